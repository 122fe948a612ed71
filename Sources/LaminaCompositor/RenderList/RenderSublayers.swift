import LaminaCore
import LaminaProtocol

// A layer's sublayers in the render walk: their drawing order, the retained commands of static
// top-level subtrees (`RenderListCache`), replicator copies and transform layers' shared 3D space.

extension RenderWalk {
    /// The sublayers' presentation values at their superlayer's local time `time`, in drawing
    /// order (zPosition, then array order; zPosition may be animated, so presentation values).
    func orderedSublayers(of layer: ServerLayer, time: Double) -> [(id: LayerID, layer: ServerLayer, props: LayerProperties, time: Double)] {
        var children: [(id: LayerID, layer: ServerLayer, props: LayerProperties, time: Double)] = []
        children.reserveCapacity(layer.sublayers.count)
        var anyZ = false
        for id in layer.sublayers {
            guard let c = tree[id] else { continue }
            let (cp, ct) = properties(of: id, c, parentTime: time)
            anyZ = anyZ || cp.zPosition != 0
            children.append((id, c, cp, ct))
        }
        if anyZ {
            children = children.enumerated().sorted { a, b in
                a.element.props.zPosition != b.element.props.zPosition
                    ? a.element.props.zPosition < b.element.props.zPosition : a.offset < b.offset
            }.map(\.element)
        }
        return children
    }

    /// - Parameter cull: the clip of a `masksToBounds` layer on the display, when it is an
    ///   axis-aligned rectangle there: sublayers wholly out of its view are not walked (ClipCull.swift).
    mutating func visitSublayers(of layer: ServerLayer, _ p: LayerProperties, localTime: Double,
                                         toDisplay: Transform3D, opacity: Double, tint: Color?,
                                         cull: ClipPartition.Region? = nil, into commands: inout [DrawCommand]) {
        let space = p.sublayerSpace
        let plane = toDisplay.flatteningZ
        guard p.kind == .replicator else {
            // The separate layout: a root's sublayer named after an output is that output's root.
            let perOutput = layer.superlayer == nil && !outputRoots.isEmpty
            let atRoot = rootSublayersPending
            rootSublayersPending = false
            for c in orderedSublayers(of: layer, time: localTime) {
                guard visits <= Self.maximumVisits else { break }
                var toPlane = plane
                if perOutput, let output = outputRoots[c.props.name] {
                    toPlane = plane.concatenating(.translation(x: output.minX, y: output.minY))
                }
                if let cull, liesOutside(cull, c.id, c.layer, c.props, localTime: c.time, superlayerSpace: space,
                                         superlayerToDisplay: toPlane) {
                    continue
                }
                if atRoot, tint == nil, let cache, !dynamicTops.contains(c.id) {
                    let key = RenderListCache.Key(entry: serial, layer: c.id)
                    if var k = cache.kept[key], k.version == version, k.place == toPlane, k.space == space, k.opacity == opacity {
                        // Unchanged since it was kept: its commands again, its rasters kept.
                        commands += k.commands
                        visits += k.visits
                        if !k.rasterLayers.isEmpty { rasters?.keep(tree: serial, layers: k.rasterLayers) }
                        k.frame = cache.currentFrame
                        cache.kept[key] = k
                        cache.hit()
                        continue
                    }
                    let start = commands.count, visitsBefore = visits, emittersBefore = liveEmitters, tiledBefore = tiledLayers
                    let appsBefore = appSurfaceDraws
                    rasterLayers = []
                    visit(c.id, c.layer, c.props, localTime: c.time, superlayerSpace: space, superlayerToDisplay: toPlane,
                          parentOpacity: opacity, tint: tint, into: &commands)
                    // Particles move with time alone: a subtree with a live emitter is walked every frame.
                    // Tiled layers' tiles come and fade with time: walked every frame too.
                    // App windows change without their manager's commits: walked every frame too.
                    if liveEmitters > emittersBefore || tiledLayers > tiledBefore || appSurfaceDraws > appsBefore {
                        rasterLayers = nil
                        continue
                    }
                    cache.kept[key] = RenderListCache.Kept(version: version, place: toPlane, space: space, opacity: opacity,
                                                           commands: Array(commands[start...]), visits: visits - visitsBefore,
                                                           rasterLayers: rasterLayers ?? [], frame: cache.currentFrame)
                    rasterLayers = nil
                    cache.miss()
                    continue
                }
                visit(c.id, c.layer, c.props, localTime: c.time, superlayerSpace: space, superlayerToDisplay: toPlane,
                      parentOpacity: opacity, tint: tint, into: &commands)
            }
            return
        }
        // CAReplicatorLayer: copy k of the sublayers through instanceTransform^k about the
        // anchor point, tinted by instanceColor + k · offsets, k · instanceDelay behind.
        let count = Swift.max(0, Swift.min(p.instanceCount, LayerProperties.instanceLimit))
        let a = p.anchorInBounds
        let toAnchor = Transform3D.translation(x: -a.x, y: -a.y), fromAnchor = Transform3D.translation(x: a.x, y: a.y)
        var power = Transform3D.identity
        let wasDelayed = delayed
        for k in 0..<count {
            guard visits <= Self.maximumVisits else { break }
            let instance = k == 0 ? space : toAnchor.concatenating(power).concatenating(fromAnchor).concatenating(space)
            let kk = Double(k)
            let c = p.instanceColor
            let color = Color(red: c.red + kk * p.instanceRedOffset, green: c.green + kk * p.instanceGreenOffset,
                              blue: c.blue + kk * p.instanceBlueOffset, alpha: c.alpha + kk * p.instanceAlphaOffset)
            let copyTint = tint.map { color.tinted(by: $0) } ?? color
            let shift = kk * p.instanceDelay
            delayed = wasDelayed || shift != 0
            if copyTint.alpha > 0 {
                for child in orderedSublayers(of: layer, time: localTime - shift) {
                    visit(child.id, child.layer, child.props, localTime: child.time, superlayerSpace: instance, superlayerToDisplay: plane,
                          parentOpacity: opacity, tint: copyTint == .white ? nil : copyTint, into: &commands)
                }
            }
            power = power.concatenating(p.instanceTransform)
        }
        delayed = wasDelayed
    }

    /// A `CATransformLayer`: it draws nothing of its own; its sublayers (and those of transform
    /// layers inside it) are placed in one 3D space instead of being flattened into its plane,
    /// and drawn back to front by the depth of each one's centre. Each ordinary sublayer still
    /// flattens its own subtree. Planes that intersect are not split: the one whose centre is
    /// nearer wins everywhere.
    mutating func visitTransformLayer(_ layer: ServerLayer, _ p: LayerProperties, localTime: Double,
                                              inSuperlayer: Transform3D, superlayerToDisplay: Transform3D,
                                              opacity: Double, tint: Color?, into commands: inout [DrawCommand]) {
        var planes: [(depth: Double, commands: [DrawCommand])] = []
        collectPlanes(layer, p, localTime: localTime, inSuperlayer: inSuperlayer, superlayerToDisplay: superlayerToDisplay,
                      opacity: opacity, tint: tint, into: &planes)
        let sorted = planes.enumerated().sorted { x, y in
            x.element.depth != y.element.depth ? x.element.depth < y.element.depth : x.offset < y.offset
        }
        for plane in sorted { commands += plane.element.commands }
    }

    mutating func collectPlanes(_ layer: ServerLayer, _ p: LayerProperties, localTime: Double,
                                        inSuperlayer: Transform3D, superlayerToDisplay: Transform3D, opacity: Double,
                                        tint: Color?, into planes: inout [(depth: Double, commands: [DrawCommand])]) {
        let space = p.sublayerSpace
        let childSpace = space.isIdentity ? inSuperlayer : space.concatenating(inSuperlayer)
        for c in orderedSublayers(of: layer, time: localTime) {
            let cp = c.props
            if cp.kind == .transform {
                guard !cp.isHidden, opacity * cp.opacity > 0 else { continue }
                let nested = cp.transformToSuperlayer.concatenating(childSpace)
                if !cp.isDoubleSided, !nested.facesViewer { continue }
                collectPlanes(c.layer, cp, localTime: c.time, inSuperlayer: nested, superlayerToDisplay: superlayerToDisplay,
                              opacity: opacity * cp.opacity, tint: tint, into: &planes)
                continue
            }
            var drawn: [DrawCommand] = []
            visit(c.id, c.layer, cp, localTime: c.time, superlayerSpace: childSpace, superlayerToDisplay: superlayerToDisplay,
                  parentOpacity: opacity, tint: tint, into: &drawn)
            guard !drawn.isEmpty else { continue }
            let t = cp.transformToSuperlayer.concatenating(childSpace)
            let centre = Point(x: cp.bounds.midX, y: cp.bounds.midY)
            // Depth before any perspective of the plane below: z grows towards the viewer.
            let z = centre.x * t.m13 + centre.y * t.m23 + t.m43
            let w = centre.x * t.m14 + centre.y * t.m24 + t.m44
            planes.append((w > 0 ? z / w : -.infinity, drawn))
        }
    }
}
