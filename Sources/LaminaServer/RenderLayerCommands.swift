import LaminaCore
import LaminaProtocol

// A layer's own commands: shadows, background, gradient, contents or raster, mask, border, and
// the offscreen group around them when opacity, a shadow of its pixels or a mask needs one.
// `RenderWalk.draw` runs the steps in order; the value types at the end hold what each step
// decided (`OwnDraws`, `LayerMask`, `LayerShadows`, `LayerGroup`).

extension RenderWalk {
    /// Lists the commands of a layer placed by `toDisplay`: its shadows, background, gradient,
    /// contents, sublayers and border, in a group when its opacity, shadow or mask needs one.
    ///
    /// Each step decides one part (what the layer draws of its own, its mask, its shadow, its
    /// group) or lists one; what they decide travels in small values on the stack, and the steps
    /// are inlined into this function, so splitting it adds no work per layer.
    mutating func draw(_ id: LayerID, _ layer: ServerLayer, _ p: LayerProperties, localTime: Double, toDisplay: Transform3D,
                       parentOpacity: Double, tint: Color?, into commands: inout [DrawCommand]) {
        guard !p.isHidden else { return }
        let opacity = parentOpacity * p.opacity
        // `!(x > 0)` also skips NaN.
        guard opacity > 0 else { return }

        let hasSublayers = !layer.sublayers.isEmpty
        let own = ownDraws(id, p, toDisplay: toDisplay, tint: tint)
        let mask = self.mask(of: p, over: own, hasSublayers: hasSublayers, localTime: localTime, toDisplay: toDisplay)
        // A plain mask of alpha 0 hides the layer and everything in it.
        guard mask.alpha > 0 else { return }
        let shadows = LayerShadows(p, own, mask: mask, hasSublayers: hasSublayers, opacity: opacity, tint: tint,
                                   toDisplay: toDisplay)
        let group = LayerGroup(p, own, mask: mask, shadows: shadows, hasSublayers: hasSublayers, opacity: opacity)

        shadows.appendBelowLayer(own, opacity: opacity, toDisplay: toDisplay, into: &commands)
        let groupStart = commands.count
        group.begin(own, shadow: shadows.ofPixels, toDisplay: toDisplay, into: &commands)
        let contentStart = commands.count
        if let clip = mask.clip { commands.append(clip) }
        // The border goes above the gradient, contents and sublayers.
        let borderAbove = (hasSublayers || own.hasImage) && own.borderVisible
        own.appendBelowSublayers(p, borderAbove: borderAbove, opacity: group.inner, toDisplay: toDisplay, into: &commands)
        if hasSublayers, own.hasArea || !p.masksToBounds {
            drawSublayers(of: layer, p, own, localTime: localTime, toDisplay: toDisplay, opacity: group.inner, tint: tint,
                          into: &commands)
        }
        if borderAbove { own.appendBorder(p, opacity: group.inner, toDisplay: toDisplay, into: &commands) }

        if mask.clip != nil {
            guard Self.closeMaskClip(groupStart: groupStart, contentStart: contentStart, into: &commands) else { return }
        } else if let maskLayer = mask.layer {
            drawOffscreenMask(maskLayer, of: p, own, group: group, localTime: localTime, toDisplay: toDisplay,
                              groupStart: groupStart, contentStart: contentStart, into: &commands)
            return
        }
        if group.isNeeded { group.end(hasShadow: shadows.ofPixels != nil, groupStart: groupStart, into: &commands) }
    }

    /// What the layer draws of its own, tinted: decides the background, border and gradient, and
    /// lays out the contents (or a shape or text layer's raster).
    @inline(__always)
    private mutating func ownDraws(_ id: LayerID, _ p: LayerProperties, toDisplay: Transform3D, tint: Color?) -> OwnDraws {
        let bounds = p.bounds
        let hasArea = bounds.size.width > 0 && bounds.size.height > 0
        let radii = hasArea && p.cornerRadius > 0
            ? CornerRadii(radius: p.cornerRadius, mask: p.maskedCorners, size: bounds.size) : .zero
        let background = p.backgroundColor.tinted(by: tint)
        let borderColor = p.borderColor.tinted(by: tint)
        var gradient = p.kind == .gradient && hasArea ? DrawGradient(p, bounds: bounds) : nil
        if let t = tint, var g = gradient {
            g.colors = g.colors.map { $0.tinted(by: t) }
            gradient = g
        }
        if let g = gradient, !g.colors.contains(where: { $0.alpha > 0 }) { gradient = nil }
        let rastered = p.kind == .shape || p.kind == .text
        if rastered { rasterLayers?.append(id) }
        let contents = rastered ? rasterDraw(id, p, toDisplay: toDisplay, radii: radii) : contentsDraw(p, radii: radii)
        return OwnDraws(bounds: bounds, hasArea: hasArea, radii: radii, background: background, borderColor: borderColor,
                        fillVisible: hasArea && background.alpha > 0,
                        borderVisible: hasArea && p.borderWidth > 0 && borderColor.alpha > 0,
                        gradient: gradient, contents: contents)
    }

    /// The layer's mask: a layer of the same client outside the sublayer tree (validated when
    /// set), left out when it is already being drawn (a cycle) or masks nest too deep.
    ///
    /// The fast path for the commonest mask, a plain rounded rectangle of one alpha with no
    /// sublayers, over a layer that draws in one pass (no sublayers, no gradient): it masks
    /// exactly like a clip to its rounded bounds times that alpha, so nothing is drawn
    /// offscreen. (Over several draws, clipping each one would let the lower ones show
    /// through the antialiased edge, so those take the offscreen mask.)
    @inline(__always)
    private func mask(of p: LayerProperties, over own: OwnDraws, hasSublayers: Bool, localTime: Double,
                      toDisplay: Transform3D) -> LayerMask {
        var mask = LayerMask()
        guard p.mask != 0, !masksInUse.contains(p.mask), masksInUse.count < Self.maximumMaskDepth,
              let m = tree[LayerID(rawValue: p.mask)] else { return mask }
        let maskID = LayerID(rawValue: p.mask)
        mask.layer = (maskID, m)
        guard m.sublayers.isEmpty, !hasSublayers, !own.hasImage else { return mask }
        let (mp, _) = properties(of: maskID, m, parentTime: localTime)
        let uniform = mp.borderWidth <= 0 || mp.borderColor.alpha == 0 || mp.borderColor.alpha == mp.backgroundColor.alpha
        let shadowless = mp.shadowOpacity <= 0 || mp.shadowColor.alpha == 0 || mp.masksToBounds
        guard mp.kind == .layer, mp.contents == 0, mp.mask == 0, uniform, shadowless else { return mask }
        let inPlane = mp.transformToSuperlayer
        let faces = mp.isDoubleSided || inPlane.facesViewer
        let area = mp.bounds.size.width > 0 && mp.bounds.size.height > 0
        mask.alpha = mp.isHidden || !faces || !area ? 0 : Swift.max(0, mp.backgroundColor.alpha * mp.opacity)
        guard mask.alpha > 0 else { return mask }
        let r = mp.cornerRadius > 0 ? CornerRadii(radius: mp.cornerRadius, mask: mp.maskedCorners, size: mp.bounds.size) : .zero
        mask.clip = DrawCommand(kind: .pushClip, transform: inPlane.concatenating(toDisplay.flatteningZ),
                                bounds: mp.bounds, cornerRadii: r)
        return mask
    }

    /// The sublayers, clipped to the rounded bounds with masksToBounds (a clip around nothing
    /// is taken back).
    @inline(__always)
    private mutating func drawSublayers(of layer: ServerLayer, _ p: LayerProperties, _ own: OwnDraws, localTime: Double,
                                        toDisplay: Transform3D, opacity: Double, tint: Color?,
                                        into commands: inout [DrawCommand]) {
        let clipStart = commands.count
        if p.masksToBounds {
            commands.append(DrawCommand(kind: .pushClip, transform: toDisplay, bounds: own.bounds, cornerRadii: own.radii))
        }
        visitSublayers(of: layer, p, localTime: localTime, toDisplay: toDisplay, opacity: opacity, tint: tint, into: &commands)
        if p.masksToBounds {
            if commands.count == clipStart + 1 { commands.removeLast() } else { commands.append(DrawCommand(kind: .popClip)) }
        }
    }

    /// Pops the fast-path mask's clip; false when nothing was drawn inside it, and the layer's
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
    @inline(__always)
    private mutating func drawOffscreenMask(_ maskLayer: (id: LayerID, layer: ServerLayer), of p: LayerProperties, _ own: OwnDraws,
                                            group: LayerGroup, localTime: Double, toDisplay: Transform3D,
                                            groupStart: Int, contentStart: Int, into commands: inout [DrawCommand]) {
        guard commands.count > contentStart else {
            commands.removeSubrange(groupStart...)
            return
        }
        commands.append(DrawCommand(kind: .beginMask, transform: toDisplay, bounds: own.bounds))
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
        let g = DrawContents.layout(bounds: p.bounds, imageWidth: source.width, imageHeight: source.height,
                                    contentsRect: p.contentsRect, contentsCenter: p.contentsCenter,
                                    gravity: p.contentsGravity, scale: p.contentsScale)
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
        guard let rasters, var draw = rasters.contents(tree: serial, layer: id, p, toDisplay: toDisplay) else { return nil }
        if p.masksToBounds {
            guard p.bounds.width > 0, p.bounds.height > 0 else { return nil }
            draw = DrawContents(source: draw.source, destination: draw.destination, minificationFilter: draw.minificationFilter,
                                magnificationFilter: draw.magnificationFilter, clip: (p.bounds, radii))
        }
        return draw
    }
}

/// What a layer draws of its own, replicator tint applied.
private struct OwnDraws {
    let bounds: Rect
    let hasArea: Bool
    let radii: CornerRadii
    let background: Color
    let borderColor: Color
    let fillVisible: Bool
    let borderVisible: Bool
    /// Nil unless a gradient layer has a colour that shows.
    let gradient: DrawGradient?
    let contents: DrawContents?

    /// Whether a gradient or contents draw above the background.
    var hasImage: Bool { gradient != nil || contents != nil }

    /// The background (with the border when nothing goes above it), then the gradient and the
    /// contents.
    @inline(__always)
    func appendBelowSublayers(_ p: LayerProperties, borderAbove: Bool, opacity: Double, toDisplay: Transform3D,
                              into commands: inout [DrawCommand]) {
        if fillVisible || (borderVisible && !borderAbove) {
            commands.append(DrawCommand(kind: .layer, transform: toDisplay, bounds: bounds,
                                        color: fillVisible ? background : .clear, opacity: opacity,
                                        cornerRadii: radii, borderWidth: borderVisible && !borderAbove ? p.borderWidth : 0,
                                        borderColor: borderColor))
        }
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

/// How a layer's mask applies to it.
private struct LayerMask {
    /// The mask layer (nil: no mask, or one left out).
    var layer: (id: LayerID, layer: ServerLayer)?
    /// The fast path: the mask is this clip to its rounded bounds, times `alpha`.
    var clip: DrawCommand?
    var alpha = 1.0
}

/// A layer's shadow, in the one form it is drawn. Core Animation clips a layer's own shadow
/// with masksToBounds, which leaves nothing outside the bounds to see: no shadow then.
private struct LayerShadows {
    /// shadowPath: the shadow is the path's shape, whatever the layer draws.
    var path: DrawCommand?
    /// The fast path: a layer that is only a rounded rectangle of one alpha casts the
    /// analytically blurred rectangle.
    var shape: DrawShadow?
    /// Otherwise the shadow of the layer's pixels, cast by its group.
    var ofPixels: DrawShadow?

    @inline(__always)
    init(_ p: LayerProperties, _ own: OwnDraws, mask: LayerMask, hasSublayers: Bool, opacity: Double, tint: Color?,
         toDisplay: Transform3D) {
        guard p.shadowOpacity > 0, p.shadowColor.alpha > 0, !p.masksToBounds else { return }
        let shadow = DrawShadow(color: p.shadowColor.tinted(by: tint), opacity: p.shadowOpacity,
                                offset: p.shadowOffset, radius: p.shadowRadius)
        if !p.shadowPath.elements.isEmpty {
            var c = DrawCommand(kind: .pathShadow, transform: toDisplay, bounds: own.bounds, opacity: opacity, shadow: shadow)
            c.polygons = p.shadowPath.fillPolygons()
            path = c.polygons.isEmpty ? nil : c
            return
        }
        // The alpha is uniform unless a border sits over a translucent fill (the ring is then
        // more opaque than the inside) or a gradient or a mask changes it.
        if !hasSublayers, own.contents == nil, own.fillVisible, mask.layer == nil,
           !own.borderVisible && own.gradient == nil || own.background.alpha == 1 {
            var s = shadow
            s.opacity *= own.background.alpha
            shape = s
            return
        }
        ofPixels = shadow
    }

    /// The shadows that go below the layer, outside its group: the path's, or the rectangle's.
    @inline(__always)
    func appendBelowLayer(_ own: OwnDraws, opacity: Double, toDisplay: Transform3D, into commands: inout [DrawCommand]) {
        if let path { commands.append(path) }
        if let shape {
            commands.append(DrawCommand(kind: .shadow, transform: toDisplay, bounds: own.bounds, opacity: opacity,
                                        cornerRadii: own.radii, shadow: shape))
        }
    }
}

/// The offscreen group a layer draws into, when one is needed, composited once.
private struct LayerGroup {
    let isNeeded: Bool
    /// The layer's opacity (what its draws take when there is no group).
    let layerOpacity: Double
    /// The group's opacity: the layer's, times the fast-path mask's alpha.
    let opacity: Double
    /// A masked layer that also casts a shadow of its pixels: the shadow's group holds the
    /// mask's group, so the shadow is cast by the masked pixels.
    let isDouble: Bool
    /// The opacity of the layer's own draws: inside a group the layer draws at full opacity, and
    /// the group is composited with it.
    var inner: Double { isNeeded ? 1 : layerOpacity }

    @inline(__always)
    init(_ p: LayerProperties, _ own: OwnDraws, mask: LayerMask, shadows: LayerShadows, hasSublayers: Bool, opacity: Double) {
        // A translucent gradient layer with a background or border composites its own content
        // as one, like any layer's pixels (two draws at the opacity would show through).
        let ownContentOverlaps = own.hasImage && (own.fillVisible || own.borderVisible) && opacity < 1
        let maskNeedsGroup = mask.layer != nil && (mask.clip == nil || mask.alpha < 1)
        isNeeded = shadows.ofPixels != nil || maskNeedsGroup || ownContentOverlaps
            || (hasSublayers && p.allowsGroupOpacity && p.opacity < 1)
        layerOpacity = opacity
        self.opacity = opacity * mask.alpha
        isDouble = mask.layer != nil && mask.clip == nil && shadows.ofPixels != nil
    }

    @inline(__always)
    func begin(_ own: OwnDraws, shadow: DrawShadow?, toDisplay: Transform3D, into commands: inout [DrawCommand]) {
        if isNeeded {
            commands.append(DrawCommand(kind: .beginGroup, transform: toDisplay, bounds: own.bounds,
                                        opacity: isDouble ? layerOpacity : opacity, shadow: shadow))
        }
        if isDouble {
            commands.append(DrawCommand(kind: .beginGroup, transform: toDisplay, bounds: own.bounds, opacity: 1))
        }
    }

    /// Ends the group; an empty group is taken back, and one draw alone in a group is that draw
    /// at the group's opacity, with no offscreen pass.
    @inline(__always)
    func end(hasShadow: Bool, groupStart: Int, into commands: inout [DrawCommand]) {
        if commands.count == groupStart + 1 {
            commands.removeLast()
        } else if !hasShadow, commands.count == groupStart + 2, Self.isOneDraw(commands[groupStart + 1].kind) {
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
