import LaminaCore
import LaminaProtocol

// A layer's own commands: shadows, background, gradient, contents or raster, mask, border, and
// the offscreen group around them when opacity, a shadow of its pixels or a mask needs one.

extension RenderWalk {
    /// Lists the commands of a layer placed by `toDisplay`: its shadows, background, gradient,
    /// contents, sublayers and border, in a group when its opacity, shadow or mask needs one.
    mutating func draw(_ id: LayerID, _ layer: ServerLayer, _ p: LayerProperties, localTime: Double, toDisplay: Transform3D,
                       parentOpacity: Double, tint: Color?, into commands: inout [DrawCommand]) {
        guard !p.isHidden else { return }
        let opacity = parentOpacity * p.opacity
        // `!(x > 0)` also skips NaN.
        guard opacity > 0 else { return }

        let bounds = p.bounds
        let hasArea = bounds.size.width > 0 && bounds.size.height > 0
        let hasSublayers = !layer.sublayers.isEmpty
        let radii = hasArea && p.cornerRadius > 0
            ? CornerRadii(radius: p.cornerRadius, mask: p.maskedCorners, size: bounds.size) : .zero
        let background = p.backgroundColor.tinted(by: tint)
        let borderColor = p.borderColor.tinted(by: tint)
        let fillVisible = hasArea && background.alpha > 0
        let borderVisible = hasArea && p.borderWidth > 0 && borderColor.alpha > 0
        var gradient = p.kind == .gradient && hasArea ? DrawGradient(p, bounds: bounds) : nil
        if let t = tint, var g = gradient {
            g.colors = g.colors.map { $0.tinted(by: t) }
            gradient = g
        }
        if let g = gradient, !g.colors.contains(where: { $0.alpha > 0 }) { gradient = nil }
        if p.kind == .shape || p.kind == .text { rasterLayers?.append(id) }
        let contents = p.kind == .shape || p.kind == .text
            ? rasterDraw(id, p, toDisplay: toDisplay, radii: radii) : contentsDraw(p, radii: radii)

        // The mask: a layer of the same client outside the sublayer tree (validated when set).
        var maskLayer: (id: LayerID, layer: ServerLayer)?
        if p.mask != 0, !masksInUse.contains(p.mask), masksInUse.count < Self.maximumMaskDepth,
           let m = tree[LayerID(rawValue: p.mask)] {
            maskLayer = (LayerID(rawValue: p.mask), m)
        }
        // The fast path for the commonest mask, a plain rounded rectangle of one alpha with no
        // sublayers, over a layer that draws in one pass (no sublayers, no gradient): it masks
        // exactly like a clip to its rounded bounds times that alpha, so nothing is drawn
        // offscreen. (Over several draws, clipping each one would let the lower ones show
        // through the antialiased edge, so those take the offscreen mask.)
        var maskClip: DrawCommand?
        var maskAlpha = 1.0
        if let m = maskLayer, m.layer.sublayers.isEmpty, !hasSublayers, gradient == nil, contents == nil {
            let (mp, _) = properties(of: m.id, m.layer, parentTime: localTime)
            let uniform = mp.borderWidth <= 0 || mp.borderColor.alpha == 0 || mp.borderColor.alpha == mp.backgroundColor.alpha
            let shadowless = mp.shadowOpacity <= 0 || mp.shadowColor.alpha == 0 || mp.masksToBounds
            if mp.kind == .layer, mp.contents == 0, mp.mask == 0, uniform, shadowless {
                let inPlane = mp.transformToSuperlayer
                let faces = mp.isDoubleSided || inPlane.facesViewer
                let area = mp.bounds.size.width > 0 && mp.bounds.size.height > 0
                maskAlpha = mp.isHidden || !faces || !area ? 0 : Swift.max(0, mp.backgroundColor.alpha * mp.opacity)
                guard maskAlpha > 0 else { return }
                let r = mp.cornerRadius > 0 ? CornerRadii(radius: mp.cornerRadius, mask: mp.maskedCorners, size: mp.bounds.size) : .zero
                maskClip = DrawCommand(kind: .pushClip, transform: inPlane.concatenating(toDisplay.flatteningZ),
                                       bounds: mp.bounds, cornerRadii: r)
            }
        }

        // Core Animation clips a layer's own shadow with masksToBounds, which leaves nothing
        // outside the bounds to see: no shadow then.
        var shadow: DrawShadow?
        if p.shadowOpacity > 0, p.shadowColor.alpha > 0, !p.masksToBounds {
            shadow = DrawShadow(color: p.shadowColor.tinted(by: tint), opacity: p.shadowOpacity,
                                offset: p.shadowOffset, radius: p.shadowRadius)
        }
        // shadowPath: the shadow is the path's shape, whatever the layer draws.
        var pathShadow: DrawCommand?
        if let s = shadow, !p.shadowPath.elements.isEmpty {
            var c = DrawCommand(kind: .pathShadow, transform: toDisplay, bounds: bounds, opacity: opacity, shadow: s)
            c.polygons = p.shadowPath.fillPolygons()
            pathShadow = c.polygons.isEmpty ? nil : c
            shadow = nil
        }
        // The fast path: a layer that is only a rounded rectangle of one alpha casts the
        // analytically blurred rectangle. The alpha is uniform unless a border sits over a
        // translucent fill (the ring is then more opaque than the inside) or a gradient or a
        // mask changes it.
        var shapeShadow: DrawShadow?
        if var s = shadow, !hasSublayers, contents == nil, fillVisible, maskLayer == nil,
           !borderVisible && gradient == nil || background.alpha == 1 {
            s.opacity *= background.alpha
            shapeShadow = s
            shadow = nil
        }
        // A translucent gradient layer with a background or border composites its own content
        // as one, like any layer's pixels (two draws at the opacity would show through).
        let ownContentOverlaps = (gradient != nil || contents != nil) && (fillVisible || borderVisible) && opacity < 1
        let maskNeedsGroup = maskLayer != nil && (maskClip == nil || maskAlpha < 1)
        let needsGroup = shadow != nil || maskNeedsGroup || ownContentOverlaps
            || (hasSublayers && p.allowsGroupOpacity && p.opacity < 1)
        let groupOpacity = opacity * maskAlpha
        // A masked layer that also casts a shadow of its pixels: the shadow's group holds the
        // mask's group, so the shadow is cast by the masked pixels.
        let twoGroups = maskLayer != nil && maskClip == nil && shadow != nil
        // Inside a group the layer draws at full opacity; the group is composited with it.
        let inner = needsGroup ? 1 : opacity

        if let pathShadow { commands.append(pathShadow) }
        if let shapeShadow {
            commands.append(DrawCommand(kind: .shadow, transform: toDisplay, bounds: bounds, opacity: opacity,
                                        cornerRadii: radii, shadow: shapeShadow))
        }
        let groupStart = commands.count
        if needsGroup {
            commands.append(DrawCommand(kind: .beginGroup, transform: toDisplay, bounds: bounds,
                                        opacity: twoGroups ? opacity : groupOpacity, shadow: shadow))
        }
        if twoGroups {
            commands.append(DrawCommand(kind: .beginGroup, transform: toDisplay, bounds: bounds, opacity: 1))
        }
        let contentStart = commands.count
        if let maskClip { commands.append(maskClip) }
        // The border goes above the gradient, contents and sublayers.
        let borderAbove = (hasSublayers || gradient != nil || contents != nil) && borderVisible
        if fillVisible || (borderVisible && !borderAbove) {
            commands.append(DrawCommand(kind: .layer, transform: toDisplay, bounds: bounds,
                                        color: fillVisible ? background : .clear, opacity: inner,
                                        cornerRadii: radii, borderWidth: borderVisible && !borderAbove ? p.borderWidth : 0,
                                        borderColor: borderColor))
        }
        if let gradient {
            commands.append(DrawCommand(kind: .gradient, transform: toDisplay, bounds: bounds, opacity: inner,
                                        cornerRadii: radii, gradient: gradient))
        }
        if let contents {
            commands.append(DrawCommand(kind: .contents, transform: toDisplay, bounds: bounds, opacity: inner,
                                        cornerRadii: radii, contents: contents))
        }
        if hasSublayers, hasArea || !p.masksToBounds {
            let clipStart = commands.count
            if p.masksToBounds {
                commands.append(DrawCommand(kind: .pushClip, transform: toDisplay, bounds: bounds, cornerRadii: radii))
            }
            visitSublayers(of: layer, p, localTime: localTime, toDisplay: toDisplay, opacity: inner, tint: tint, into: &commands)
            if p.masksToBounds {
                if commands.count == clipStart + 1 { commands.removeLast() } else { commands.append(DrawCommand(kind: .popClip)) }
            }
        }
        if borderAbove {
            commands.append(DrawCommand(kind: .layer, transform: toDisplay, bounds: bounds, opacity: inner,
                                        cornerRadii: radii, borderWidth: p.borderWidth, borderColor: borderColor))
        }
        if maskClip != nil {
            if commands.count == contentStart + 1 {
                commands.removeSubrange(groupStart...)
                return
            }
            commands.append(DrawCommand(kind: .popClip))
        } else if let maskLayer {
            // Nothing drawn, or a mask that draws nothing (which hides everything): no group.
            guard commands.count > contentStart else {
                commands.removeSubrange(groupStart...)
                return
            }
            commands.append(DrawCommand(kind: .beginMask, transform: toDisplay, bounds: bounds))
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
            if twoGroups { commands.append(DrawCommand(kind: .endGroup)) }
            return
        }
        if needsGroup {
            if commands.count == groupStart + 1 {
                commands.removeLast()
            } else if shadow == nil, commands.count == groupStart + 2,
                      [.layer, .gradient, .contents].contains(commands[groupStart + 1].kind) {
                // One draw in a group is the same draw with the group's opacity: no offscreen pass.
                var only = commands.removeLast()
                commands.removeLast()
                only.opacity *= groupOpacity
                commands.append(only)
            } else {
                commands.append(DrawCommand(kind: .endGroup))
            }
        }
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

extension Color {
    /// This colour multiplied channel by channel by `tint` (a replicator's instance colour).
    func tinted(by tint: Color?) -> Color {
        guard let t = tint else { return self }
        return Color(red: red * t.red, green: green * t.green, blue: blue * t.blue, alpha: alpha * t.alpha)
    }
}
