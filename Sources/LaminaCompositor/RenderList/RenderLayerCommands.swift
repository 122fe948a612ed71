import LaminaCore
import LaminaProtocol

// A layer's own commands: shadows, background, gradient, contents or raster, mask, border, and
// the offscreen group around them when opacity, a shadow of its pixels or a mask needs one.
// `RenderWalk.draw` runs the steps in order; the value types at the end hold what the steps
// share (`LayerLook`, `PlainMask`, `LayerGroup`).

extension RenderWalk {
    /// Lists the commands of a layer placed by `toDisplay`: its shadows, background, gradient,
    /// contents, sublayers and border, in a group when its opacity, shadow or mask needs one.
    ///
    /// The steps decide what the layer draws of its own, its mask, its shadow and its group,
    /// then list the commands in painter's order. On this per-layer path the large values (a
    /// layer, a command, contents) stay locals here and are lent to the steps; what the steps
    /// share is small and plain (`LayerLook`, `LayerGroup`), so no step copies or retains more
    /// than the single function did.
    mutating func draw(_ id: LayerID, _ layer: ServerLayer, _ p: LayerProperties, localTime: Double, toDisplay: Transform3D,
                       parentOpacity: Double, tint: Color?, into commands: inout [DrawCommand]) {
        guard !p.isHidden else { return }
        let opacity = parentOpacity * p.opacity
        // `!(x > 0)` also skips NaN.
        guard opacity > 0 else { return }

        let hasSublayers = !layer.sublayers.isEmpty
        let look = LayerLook(p, tint: tint)
        let gradient = look.gradient(p, tint: tint)
        let contents = contentsOrRaster(id, p, toDisplay: toDisplay, radii: look.radii)
        let showsApp = p.appSurface != 0 && apps != nil
        let drawsImage = gradient != nil || contents != nil || p.kind == .tiled || showsApp

        let maskLayer = self.maskLayer(of: p)
        var plainMask: PlainMask?
        if let m = maskLayer, m.layer.sublayers.isEmpty, !hasSublayers, !drawsImage {
            plainMask = self.plainMask(m, localTime: localTime, toDisplay: toDisplay)
            // A plain mask of alpha 0 hides the layer and everything in it.
            if let plainMask, !(plainMask.alpha > 0) { return }
        }

        // The shadow below the layer is listed first; a shadow of its pixels is cast by its group.
        let shadowOfPixels = appendShadow(p, look, hasSublayers: hasSublayers, hasGradient: gradient != nil,
                                          contents: contents, drawsMore: showsApp || p.kind == .tiled || p.kind == .emitter,
                                          hasMask: maskLayer != nil, opacity: opacity, tint: tint, toDisplay: toDisplay,
                                          into: &commands)
        let group = LayerGroup(p, look, drawsImage: drawsImage, hasMask: maskLayer != nil, plainMask: plainMask,
                               shadowOfPixels: shadowOfPixels != nil, hasSublayers: hasSublayers, opacity: opacity)
        let groupStart = commands.count
        group.begin(look, shadow: shadowOfPixels, toDisplay: toDisplay, into: &commands)
        let contentStart = commands.count
        if let plainMask { commands.append(plainMask.clip) }
        // Background filters first: what lies behind, filtered, under the layer's own draws.
        if !p.backgroundFilters.isEmpty, let filters = DrawFilters(p.backgroundFilters) {
            var c = DrawCommand(kind: .backdrop, transform: toDisplay, bounds: look.bounds, opacity: group.inner,
                                cornerRadii: look.radii)
            c.filters = filters
            c.backdropDepth = group.depth
            commands.append(c)
        }
        // The border goes above the gradient, contents and sublayers.
        let borderAbove = (hasSublayers || drawsImage) && look.borderVisible
        look.appendFill(p, borderAbove: borderAbove, opacity: group.inner, toDisplay: toDisplay, into: &commands)
        look.appendImage(gradient, contents, opacity: group.inner, toDisplay: toDisplay, into: &commands)
        if showsApp {
            appendAppSurface(p, bounds: look.bounds, radii: look.radii, opacity: group.inner, tint: tint, toDisplay: toDisplay,
                             into: &commands)
        }
        if p.kind == .tiled { appendTiles(id, p, opacity: group.inner, toDisplay: toDisplay, into: &commands) }
        if p.kind == .emitter { appendParticles(id, p, opacity: group.inner, localTime: localTime, toDisplay: toDisplay, into: &commands) }
        if hasSublayers, look.hasArea || !p.masksToBounds {
            drawSublayers(of: layer, p, look, localTime: localTime, toDisplay: toDisplay, opacity: group.inner, tint: tint,
                          into: &commands)
        }
        if borderAbove { look.appendBorder(p, opacity: group.inner, toDisplay: toDisplay, into: &commands) }

        if plainMask != nil {
            guard Self.closeMaskClip(groupStart: groupStart, contentStart: contentStart, into: &commands) else { return }
        } else if let maskLayer {
            drawOffscreenMask(maskLayer, of: p, look, group: group, localTime: localTime, toDisplay: toDisplay,
                              groupStart: groupStart, contentStart: contentStart, into: &commands)
            return
        }
        if group.isNeeded { group.end(shadowOfPixels: shadowOfPixels != nil, groupStart: groupStart, into: &commands) }
    }

    /// The layer's contents, or a shape or text layer's raster, as a textured draw.
    @inline(__always)
    private mutating func contentsOrRaster(_ id: LayerID, _ p: LayerProperties, toDisplay: Transform3D,
                                           radii: CornerRadii) -> DrawContents? {
        // A drawing (`draw(in:)`) takes the place of contents, as a backing store does.
        guard p.kind == .shape || p.kind == .text || !p.drawing.isEmpty else {
            // An SVG image is drawn at the scale it is shown, like a drawing.
            if p.contents != 0, let vector = tree.encodedImages[p.contents]?.vector {
                rasterLayers?.append(id)
                return vectorDraw(id, p, vector, toDisplay: toDisplay, radii: radii)
            }
            return contentsDraw(p, radii: radii)
        }
        rasterLayers?.append(id)
        return rasterDraw(id, p, toDisplay: toDisplay, radii: radii)
    }

    /// The mask layer: a layer of the same client outside the sublayer tree (validated when
    /// set); nil when there is none, when it is already being drawn (a cycle) or masks nest too
    /// deep.
    @inline(__always)
    private func maskLayer(of p: LayerProperties) -> (id: LayerID, layer: ServerLayer)? {
        guard p.mask != 0, !masksInUse.contains(p.mask), masksInUse.count < Self.maximumMaskDepth,
              let m = tree[LayerID(rawValue: p.mask)] else { return nil }
        return (LayerID(rawValue: p.mask), m)
    }

    /// The fast path for the commonest mask, a plain rounded rectangle of one alpha with no
    /// sublayers, over a layer that draws in one pass (no sublayers, no gradient or contents):
    /// it masks exactly like a clip to its rounded bounds times that alpha, so nothing is drawn
    /// offscreen. (Over several draws, clipping each one would let the lower ones show
    /// through the antialiased edge, so those take the offscreen mask.) Nil: the mask is not
    /// plain.
    @inline(__always)
    private func plainMask(_ m: (id: LayerID, layer: ServerLayer), localTime: Double, toDisplay: Transform3D) -> PlainMask? {
        let (mp, _) = properties(of: m.id, m.layer, parentTime: localTime)
        let uniform = mp.borderWidth <= 0 || mp.borderColor.alpha == 0 || mp.borderColor.alpha == mp.backgroundColor.alpha
        let shadowless = mp.shadowOpacity <= 0 || mp.shadowColor.alpha == 0 || mp.masksToBounds
        guard mp.kind == .layer, mp.contents == 0, mp.mask == 0, uniform, shadowless else { return nil }
        let inPlane = mp.transformToSuperlayer
        let faces = mp.isDoubleSided || inPlane.facesViewer
        let area = mp.bounds.size.width > 0 && mp.bounds.size.height > 0
        let alpha = mp.isHidden || !faces || !area ? 0 : Swift.max(0, mp.backgroundColor.alpha * mp.opacity)
        let r = mp.cornerRadius > 0
            ? CornerRadii(radius: mp.cornerRadius, mask: mp.maskedCorners, size: mp.bounds.size, curve: mp.cornerCurve) : .zero
        return PlainMask(alpha: alpha, transform: inPlane.concatenating(toDisplay.flatteningZ), bounds: mp.bounds, radii: r)
    }

    /// Lists the layer's shadow where it goes below the layer: shadowPath's shape, or for a
    /// layer that is only a rounded rectangle of one alpha, the analytically blurred rectangle.
    /// Returns the shadow its group must cast instead (of its pixels), if any. Core Animation
    /// clips a layer's own shadow with masksToBounds, which leaves nothing outside the bounds
    /// to see: no shadow then.
    @inline(__always)
    private func appendShadow(_ p: LayerProperties, _ look: LayerLook, hasSublayers: Bool, hasGradient: Bool,
                              contents: DrawContents?, drawsMore: Bool, hasMask: Bool, opacity: Double, tint: Color?,
                              toDisplay: Transform3D, into commands: inout [DrawCommand]) -> DrawShadow? {
        guard p.shadowOpacity > 0, p.shadowColor.alpha > 0, !p.masksToBounds else { return nil }
        var shadow = DrawShadow(color: p.shadowColor.tinted(by: tint), opacity: p.shadowOpacity,
                                offset: p.shadowOffset, radius: p.shadowRadius)
        if !p.shadowPath.elements.isEmpty {
            var c = DrawCommand(kind: .pathShadow, transform: toDisplay, bounds: look.bounds, opacity: opacity, shadow: shadow)
            c.polygons = p.shadowPath.fillPolygons()
            if !c.polygons.isEmpty { commands.append(c) }
            return nil
        }
        // The alpha is uniform unless a border sits over a translucent fill (the ring is then
        // more opaque than the inside) or a gradient or a mask changes it.
        if !hasSublayers, contents == nil, look.fillVisible, !hasMask,
           !look.borderVisible && !hasGradient || look.background.alpha == 1 {
            shadow.opacity *= look.background.alpha
            commands.append(DrawCommand(kind: .shadow, transform: toDisplay, bounds: look.bounds, opacity: opacity,
                                        cornerRadii: look.radii, shadow: shadow))
            return nil
        }
        // Opaque contents (a video frame, an opaque app buffer, a client picture whose alpha was
        // read as 255 throughout, or contents the layer promised `isOpaque`) over the whole of
        // what else the layer draws (its fill and border lie in its
        // bounds; contents are not cut by its corners without masksToBounds): its pixels are one
        // opaque rectangle, so its shadow is that rectangle's, drawn like a plain fill's instead of
        // blurring the layer's pixels offscreen, again whenever they move or turn.
        if !hasSublayers, !hasMask, !hasGradient, !drawsMore, p.filters.isEmpty, p.compositingFilter == nil,
           let c = contents, c.clip == nil, c.isOpaque || c.source.isOpaqueThroughout,
           c.destination.width > 0, c.destination.height > 0,
           !(look.fillVisible || look.borderVisible) || Self.covers(c.destination, look.bounds) {
            commands.append(DrawCommand(kind: .shadow, transform: toDisplay, bounds: c.destination, opacity: opacity,
                                        cornerRadii: .zero, shadow: shadow))
            return nil
        }
        return shadow
    }

    /// Whether `outer` holds all of `inner`.
    static func covers(_ outer: Rect, _ inner: Rect) -> Bool {
        outer.minX <= inner.minX && outer.minY <= inner.minY && outer.maxX >= inner.maxX && outer.maxY >= inner.maxY
    }

    /// The sublayers, clipped to the rounded bounds with masksToBounds (a clip around nothing
    /// is taken back; `ClipPartition` keeps it only around the sublayers it cuts).
    @inline(__always)
    private mutating func drawSublayers(of layer: ServerLayer, _ p: LayerProperties, _ look: LayerLook, localTime: Double,
                                        toDisplay: Transform3D, opacity: Double, tint: Color?,
                                        into commands: inout [DrawCommand]) {
        let clipStart = commands.count
        var cull: ClipPartition.Region?
        if p.masksToBounds {
            let clip = DrawCommand(kind: .pushClip, transform: toDisplay, bounds: look.bounds, cornerRadii: look.radii)
            commands.append(clip)
            cull = ClipPartition.region(of: clip)
        }
        // What tiled layers below can show: the display narrowed to this clip's box.
        let outerViewport = viewport
        if p.masksToBounds { viewport = Self.narrowed(viewport, to: p.bounds, toDisplay: toDisplay) }
        visitSublayers(of: layer, p, localTime: localTime, toDisplay: toDisplay, opacity: opacity, tint: tint, cull: cull,
                       into: &commands)
        viewport = outerViewport
        if p.masksToBounds {
            if commands.count == clipStart + 1 { commands.removeLast(); return }
            // The clip kept only around the sublayers it cuts (a list's rows out of view dropped).
            var clipOpen = true
            if clipPartitionBudget >= commands.count - clipStart {
                clipPartitionBudget -= commands.count - clipStart
                clipOpen = ClipPartition.apply(&commands, clipAt: clipStart)
            }
            if clipOpen { commands.append(DrawCommand(kind: .popClip)) }
        }
    }

    /// Pops the plain mask's clip; false when nothing was drawn inside it, and the layer's
    /// commands are taken back.
    @inline(__always)
    private static func closeMaskClip(groupStart: Int, contentStart: Int, into commands: inout [DrawCommand]) -> Bool {
        if commands.count == contentStart + 1 {
            commands.removeSubrange(groupStart...)
            return false
        }
        commands.append(DrawCommand(kind: .popClip))
        return true
    }

    /// Draws the mask layer into the layer's group, which then shows the layer's pixels times
    /// the mask's composited alpha. Nothing drawn, or a mask that draws nothing (which hides
    /// everything): the layer's commands are taken back, no group.
    private mutating func drawOffscreenMask(_ maskLayer: (id: LayerID, layer: ServerLayer), of p: LayerProperties,
                                            _ look: LayerLook, group: LayerGroup, localTime: Double, toDisplay: Transform3D,
                                            groupStart: Int, contentStart: Int, into commands: inout [DrawCommand]) {
        guard commands.count > contentStart else {
            commands.removeSubrange(groupStart...)
            return
        }
        commands.append(DrawCommand(kind: .beginMask, transform: toDisplay, bounds: look.bounds))
        let maskStart = commands.count
        // The mask sits in the masked layer's bounds coordinates like a sublayer, but
        // without the sublayer transform; its own opacity counts, no replicator tint does.
        let (mp, mt) = properties(of: maskLayer.id, maskLayer.layer, parentTime: localTime)
        masksInUse.append(p.mask)
        visit(maskLayer.id, maskLayer.layer, mp, localTime: mt, superlayerSpace: .identity, superlayerToDisplay: toDisplay.flatteningZ,
              parentOpacity: 1, tint: nil, into: &commands)
        masksInUse.removeLast()
        guard commands.count > maskStart else {
            commands.removeSubrange(groupStart...)
            return
        }
        commands.append(DrawCommand(kind: .endMask))
        if group.isDouble { commands.append(DrawCommand(kind: .endGroup)) }
    }

    /// The layer's `contents` as a textured draw: nil when it names no image, or an image the
    /// client has destroyed (a layer showing a destroyed image draws no contents), or when the
    /// image would land on nothing.
    func contentsDraw(_ p: LayerProperties, radii: CornerRadii) -> DrawContents? {
        guard p.contents != 0, let source = tree.images[p.contents] ?? tree.videos[p.contents]?.image else { return nil }
        return contentsDraw(p, source: source, scale: p.contentsScale, radii: radii)
    }

    /// An SVG image's contents: the document drawn (by the rasterizer, which keeps it while the
    /// scale holds) at as many pixels per point as the layer shows it at, so it stays sharp under
    /// any transform or output scale; laid out by its intrinsic size in points.
    func vectorDraw(_ id: LayerID, _ p: LayerProperties, _ vector: any VectorDocument, toDisplay: Transform3D,
                    radii: CornerRadii) -> DrawContents? {
        let size = vector.size
        guard let rasters, size.width > 0, size.height > 0 else { return nil }
        // Where the document lands, in the layer's points (laid out as an image of its
        // intrinsic size), and how many display pixels each of its points then covers.
        let fine = 64.0
        let at = DrawContents.layout(bounds: p.bounds, imageWidth: Int((size.width * fine).rounded(.up)),
                                     imageHeight: Int((size.height * fine).rounded(.up)), contentsRect: p.contentsRect,
                                     contentsCenter: p.contentsCenter, gravity: p.contentsGravity, scale: fine).destination
        let cw = abs(p.contentsRect.width), ch = abs(p.contentsRect.height)
        guard at.width > 0, at.height > 0, cw > 0, ch > 0 else { return nil }
        let perPoint = max(at.width / (cw * size.width), at.height / (ch * size.height)) * toDisplay.largestStretch(over: at)
        guard perPoint.isFinite, perPoint > 0 else { return nil }
        let wanted = min(max((perPoint * 4).rounded(.up) / 4, 0.25), 64)
        guard let raster = rasters.vectorContents(tree: serial, layer: id, document: vector, pixelsPerPoint: wanted) else { return nil }
        return contentsDraw(p, source: raster.source, scale: raster.pixelsPerPoint, radii: radii)
    }

    /// `source` as the layer's contents, `scale` of its pixels to a point.
    func contentsDraw(_ p: LayerProperties, source: ImageSource, scale: Double, radii: CornerRadii) -> DrawContents? {
        let g = DrawContents.layout(bounds: p.bounds, imageWidth: source.width, imageHeight: source.height,
                                    contentsRect: p.contentsRect, contentsCenter: p.contentsCenter,
                                    gravity: p.contentsGravity, scale: scale)
        guard g.destination.width > 0, g.destination.height > 0, g.sourceRect.width != 0, g.sourceRect.height != 0 else { return nil }
        // Core Animation clips contents to the rounded bounds only with masksToBounds; the corner
        // radius alone rounds the background and border.
        let clip: (rect: Rect, radii: CornerRadii)? = p.masksToBounds ? (p.bounds, radii) : nil
        if let clip, !(clip.rect.width > 0 && clip.rect.height > 0) { return nil }
        return DrawContents(source: source, destination: g.destination, destinationInsets: g.destinationInsets,
                            sourceRect: g.sourceRect, sourceInsets: g.sourceInsets,
                            minificationFilter: p.minificationFilter, magnificationFilter: p.magnificationFilter,
                            isOpaque: p.isOpaque, clip: clip)
    }

    /// A shape or text layer's raster as a textured draw, clipped like contents.
    func rasterDraw(_ id: LayerID, _ p: LayerProperties, toDisplay: Transform3D, radii: CornerRadii) -> DrawContents? {
        guard let rasters, var draw = rasters.contents(tree: serial, layer: id, p, toDisplay: toDisplay, images: tree.images) else { return nil }
        if p.masksToBounds {
            guard p.bounds.width > 0, p.bounds.height > 0 else { return nil }
            draw = DrawContents(source: draw.source, destination: draw.destination, minificationFilter: draw.minificationFilter,
                                magnificationFilter: draw.magnificationFilter, clip: (p.bounds, radii))
        }
        return draw
    }
}

/// A layer's fill and border, replicator tint applied: plain values, cheap to lend.
private struct LayerLook {
    let bounds: Rect
    let hasArea: Bool
    let radii: CornerRadii
    let background: Color
    let borderColor: Color
    let fillVisible: Bool
    let borderVisible: Bool

    @inline(__always)
    init(_ p: LayerProperties, tint: Color?) {
        bounds = p.bounds
        hasArea = bounds.size.width > 0 && bounds.size.height > 0
        radii = hasArea && p.cornerRadius > 0
            ? CornerRadii(radius: p.cornerRadius, mask: p.maskedCorners, size: bounds.size, curve: p.cornerCurve) : .zero
        background = p.backgroundColor.tinted(by: tint)
        borderColor = p.borderColor.tinted(by: tint)
        fillVisible = hasArea && background.alpha > 0
        borderVisible = hasArea && p.borderWidth > 0 && borderColor.alpha > 0
    }

    /// A gradient layer's gradient, tinted; nil when no colour of it shows.
    @inline(__always)
    func gradient(_ p: LayerProperties, tint: Color?) -> DrawGradient? {
        guard p.kind == .gradient, hasArea, var g = DrawGradient(p, bounds: bounds) else { return nil }
        if let t = tint { g.colors = g.colors.map { $0.tinted(by: t) } }
        return g.colors.contains(where: { $0.alpha > 0 }) ? g : nil
    }

    /// The background, with the border when nothing goes above it.
    @inline(__always)
    func appendFill(_ p: LayerProperties, borderAbove: Bool, opacity: Double, toDisplay: Transform3D,
                    into commands: inout [DrawCommand]) {
        guard fillVisible || (borderVisible && !borderAbove) else { return }
        commands.append(DrawCommand(kind: .layer, transform: toDisplay, bounds: bounds,
                                    color: fillVisible ? background : .clear, opacity: opacity,
                                    cornerRadii: radii, borderWidth: borderVisible && !borderAbove ? p.borderWidth : 0,
                                    borderColor: borderColor))
    }

    /// The gradient, then the contents, above the background.
    @inline(__always)
    func appendImage(_ gradient: DrawGradient?, _ contents: DrawContents?, opacity: Double, toDisplay: Transform3D,
                     into commands: inout [DrawCommand]) {
        if let gradient {
            commands.append(DrawCommand(kind: .gradient, transform: toDisplay, bounds: bounds, opacity: opacity,
                                        cornerRadii: radii, gradient: gradient))
        }
        if let contents {
            commands.append(DrawCommand(kind: .contents, transform: toDisplay, bounds: bounds, opacity: opacity,
                                        cornerRadii: radii, contents: contents))
        }
    }

    /// The border on its own, above the gradient, contents and sublayers.
    @inline(__always)
    func appendBorder(_ p: LayerProperties, opacity: Double, toDisplay: Transform3D, into commands: inout [DrawCommand]) {
        commands.append(DrawCommand(kind: .layer, transform: toDisplay, bounds: bounds, opacity: opacity,
                                    cornerRadii: radii, borderWidth: p.borderWidth, borderColor: borderColor))
    }
}

/// A plain mask (`RenderWalk.plainMask`): a clip to its rounded bounds, times its alpha.
private struct PlainMask {
    let alpha: Double
    let transform: Transform3D
    let bounds: Rect
    let radii: CornerRadii

    var clip: DrawCommand { DrawCommand(kind: .pushClip, transform: transform, bounds: bounds, cornerRadii: radii) }
}

/// The offscreen group a layer draws into, when one is needed, composited once.
private struct LayerGroup {
    let isNeeded: Bool
    /// The layer's opacity (what its draws take when there is no group).
    let layerOpacity: Double
    /// The group's opacity: the layer's, times the plain mask's alpha.
    let opacity: Double
    /// A masked layer that also casts a shadow of its pixels: the shadow's group holds the
    /// mask's group, so the shadow is cast by the masked pixels.
    let isDouble: Bool
    /// `compositingFilter`: how the group (the outer one, when double) blends with what lies
    /// behind it. A blended layer is always a group, even around one draw.
    let blendMode: BlendMode?
    /// `filters`: applied to the group's pixels. A filtered layer is always a group.
    let filters: DrawFilters?
    /// The opacity of the layer's own draws: inside a group the layer draws at full opacity, and
    /// the group is composited with it.
    var inner: Double { isNeeded ? 1 : layerOpacity }
    /// How many groups `begin` opens.
    var depth: Int { (isNeeded ? 1 : 0) + (isDouble ? 1 : 0) }

    @inline(__always)
    init(_ p: LayerProperties, _ look: LayerLook, drawsImage: Bool, hasMask: Bool, plainMask: PlainMask?,
         shadowOfPixels: Bool, hasSublayers: Bool, opacity: Double) {
        let maskAlpha = plainMask?.alpha ?? 1
        let offscreenMask = hasMask && plainMask == nil
        // A translucent gradient layer with a background or border composites its own content
        // as one, like any layer's pixels (two draws at the opacity would show through).
        let ownContentOverlaps = drawsImage && (look.fillVisible || look.borderVisible) && opacity < 1
        let maskNeedsGroup = offscreenMask || maskAlpha < 1
        blendMode = p.compositingFilter
        filters = p.filters.isEmpty ? nil : DrawFilters(p.filters)
        isNeeded = shadowOfPixels || maskNeedsGroup || ownContentOverlaps || blendMode != nil || filters != nil
            || (hasSublayers && p.allowsGroupOpacity && p.opacity < 1)
        layerOpacity = opacity
        self.opacity = opacity * maskAlpha
        isDouble = offscreenMask && shadowOfPixels
    }

    @inline(__always)
    func begin(_ look: LayerLook, shadow: DrawShadow?, toDisplay: Transform3D, into commands: inout [DrawCommand]) {
        if isNeeded {
            var c = DrawCommand(kind: .beginGroup, transform: toDisplay, bounds: look.bounds,
                                opacity: isDouble ? layerOpacity : opacity, shadow: shadow)
            c.blendMode = blendMode
            c.filters = filters
            commands.append(c)
        }
        if isDouble {
            commands.append(DrawCommand(kind: .beginGroup, transform: toDisplay, bounds: look.bounds, opacity: 1))
        }
    }

    /// Ends the group; an empty group is taken back, and one draw alone in a group is that draw
    /// at the group's opacity, with no offscreen pass.
    @inline(__always)
    func end(shadowOfPixels: Bool, groupStart: Int, into commands: inout [DrawCommand]) {
        if commands.count == groupStart + 1 {
            commands.removeLast()
        } else if !shadowOfPixels, blendMode == nil, filters == nil, commands.count == groupStart + 2, Self.isOneDraw(commands[groupStart + 1].kind) {
            var only = commands.removeLast()
            commands.removeLast()
            only.opacity *= opacity
            commands.append(only)
        } else {
            commands.append(DrawCommand(kind: .endGroup))
        }
    }

    @inline(__always)
    private static func isOneDraw(_ kind: DrawCommand.Kind) -> Bool {
        kind == .layer || kind == .gradient || kind == .contents
    }
}

extension Color {
    /// This colour multiplied channel by channel by `tint` (a replicator's instance colour).
    func tinted(by tint: Color?) -> Color {
        guard let t = tint else { return self }
        return Color(red: red * t.red, green: green * t.green, blue: blue * t.blue, alpha: alpha * t.alpha)
    }
}
