import CCairo
import CPango
import LaminaCore
import LaminaCompositor

/// What a layer's drawing rasterises from: its commands, its bounds (the drawing covers the
/// bounds, as a `draw(in:)` backing store does) and the pixels' versions of the images it draws
/// (an image updated or replaced draws it again). The cache key.
public struct DrawingStyle: Sendable, Hashable {
    public var drawing: Drawing
    public var bounds: Rect
    /// Per image number the drawing names: the source's id and generation (absent: no such image).
    public var imageVersions: [UInt32: [UInt64]]
    public init(_ p: LayerProperties, images: [UInt32: ImageSource] = [:]) {
        drawing = p.drawing
        bounds = p.bounds
        var versions: [UInt32: [UInt64]] = [:]
        for n in p.drawing.imageNumbers {
            if let s = images[n], !s.isDestroyed { versions[n] = [s.id, s.generation] }
        }
        imageVersions = versions
    }
}

/// Rasterises drawings (`drawing`, the commands a `draw(_:in:)` delegate recorded) with cairo
/// and pango into an image of the layer's bounds at `scale` pixels per point, clipped to them.
///
/// Core Graphics' semantics in cairo: the path is in user space when added (the CTM applies
/// then), filling, stroking and clipping consume it; `saveGState` saves the CTM, clip, line
/// style, colours, alpha, blend mode and shadow. Angles are radians from +x towards +y (y
/// points down); `clockwise: false` sweeps towards increasing angles. Quadratic curves become
/// cubics. A gradient's `options` other than `none` extend both ends (cairo pads both).
/// Shadows blur the shape's alpha with three box blurs (close to a Gaussian of the blur).
public enum DrawingRasterizer {
    /// The drawing at `scale`, or nil when it draws nothing (empty drawing or bounds). A
    /// drawing larger than `rasterMaximumSide` pixels is drawn at a lower scale.
    public static func rasterize(_ style: DrawingStyle, scale requested: Double, images: [UInt32: ImageSource] = [:]) -> RasterImage? {
        let b = style.bounds
        guard !style.drawing.isEmpty, b.width > 0, b.height > 0, b.width.isFinite, b.height.isFinite,
              requested.isFinite, requested > 0 else { return nil }
        var scale = requested
        let longest = Swift.max(b.width, b.height) * scale
        if longest > Double(rasterMaximumSide) { scale *= Double(rasterMaximumSide) / longest }
        let pw = Swift.max(1, Int((b.width * scale).rounded(.up))), ph = Swift.max(1, Int((b.height * scale).rounded(.up)))
        guard let canvas = CairoCanvas(width: pw, height: ph) else { return nil }
        let cr = canvas.context
        cairo_scale(cr, scale, scale)
        cairo_translate(cr, -b.minX, -b.minY)
        cairo_set_antialias(cr, CAIRO_ANTIALIAS_GOOD)
        var painter = DrawingPainter(cr: cr, scale: scale, images: images)
        for c in style.drawing.commands { painter.perform(c) }
        guard cairo_status(cr) == CAIRO_STATUS_SUCCESS else { return nil }
        return RasterImage(bitmap: canvas.bitmap(),
                           frame: Rect(x: b.minX, y: b.minY, width: Double(pw) / scale, height: Double(ph) / scale), scale: scale)
    }
}

/// The graphics state cairo does not keep for us: two colours, global alpha, the shadow.
private struct PainterState {
    var fill = Color(red: 0, green: 0, blue: 0, alpha: 1)
    var stroke = Color(red: 0, green: 0, blue: 0, alpha: 1)
    var alpha = 1.0
    var shadow: (offset: Size, blur: Double, color: Color)?
}

/// Runs a drawing's commands on a cairo context.
private struct DrawingPainter {
    let cr: OpaquePointer
    let scale: Double
    let images: [UInt32: ImageSource]
    var state = PainterState()
    var saved: [PainterState] = []

    init(cr: OpaquePointer, scale: Double, images: [UInt32: ImageSource]) {
        self.cr = cr
        self.scale = scale
        self.images = images
    }

    mutating func perform(_ c: DrawingCommand) {
        let n = c.numbers
        func pt(_ i: Int) -> Point { Point(x: n[i], y: n[i + 1]) }
        switch c.op {
        case .saveGState:
            cairo_save(cr)
            saved.append(state)
        case .restoreGState:
            guard let s = saved.popLast() else { return }
            cairo_restore(cr)
            state = s
        case .translateBy: cairo_translate(cr, n[0], n[1])
        case .scaleBy:
            // A zero scale would put cairo in an error state for good: draw nothing after it.
            guard n[0] != 0, n[1] != 0 else { cairo_scale(cr, 1e-300, 1e-300); return }
            cairo_scale(cr, n[0], n[1])
        case .rotateBy: cairo_rotate(cr, n[0])
        case .concatenate:
            var m = cairo_matrix_t(xx: n[0], yx: n[1], xy: n[2], yy: n[3], x0: n[4], y0: n[5])
            guard n[0] * n[3] - n[1] * n[2] != 0 else { return }
            cairo_transform(cr, &m)
        case .beginPath: cairo_new_path(cr)
        case .move: cairo_move_to(cr, n[0], n[1])
        case .addLine:
            ensureCurrentPoint()
            cairo_line_to(cr, n[0], n[1])
        case .addQuadCurve:
            ensureCurrentPoint()
            var x = 0.0, y = 0.0
            cairo_get_current_point(cr, &x, &y)
            let cur = Point(x: x, y: y), p = pt(0), q = pt(2)
            let c1 = cur + (q - cur) * (2.0 / 3), c2 = p + (q - p) * (2.0 / 3)
            cairo_curve_to(cr, c1.x, c1.y, c2.x, c2.y, p.x, p.y)
        case .addCurve:
            ensureCurrentPoint()
            cairo_curve_to(cr, n[2], n[3], n[4], n[5], n[0], n[1])
        case .addArc:
            if n[5] != 0 { cairo_arc_negative(cr, n[0], n[1], n[2], n[3], n[4]) } else { cairo_arc(cr, n[0], n[1], n[2], n[3], n[4]) }
        case .addRect: cairo_rectangle(cr, n[0], n[1], n[2], n[3])
        case .addRoundedRect: roundedRect(Rect(x: n[0], y: n[1], width: n[2], height: n[3]), n[4], n[5])
        case .addEllipse: ellipse(Rect(x: n[0], y: n[1], width: n[2], height: n[3]))
        case .closePath: cairo_close_path(cr)
        case .addPath:
            guard let p = try? Path(svgData: c.strings[0]) else { return }
            ShapeRasterizer.appendPath(p, to: cr)
        case .fillPath:
            cairo_set_fill_rule(cr, n[0] == 1 ? CAIRO_FILL_RULE_EVEN_ODD : CAIRO_FILL_RULE_WINDING)
            paint(state.fill) { cairo_fill_preserve($0) }
            cairo_new_path(cr)
        case .strokePath:
            paint(state.stroke) { cairo_stroke_preserve($0) }
            cairo_new_path(cr)
        case .clip:
            cairo_set_fill_rule(cr, n[0] == 1 ? CAIRO_FILL_RULE_EVEN_ODD : CAIRO_FILL_RULE_WINDING)
            cairo_clip(cr)
        case .fillRect, .strokeRect, .fillEllipse, .strokeEllipse, .clearRect:
            // These leave the current path alone, as in Core Graphics.
            let kept = cairo_copy_path(cr)
            defer {
                cairo_new_path(cr)
                if let kept {
                    if kept.pointee.status == CAIRO_STATUS_SUCCESS { cairo_append_path(cr, kept) }
                    cairo_path_destroy(kept)
                }
            }
            cairo_new_path(cr)
            let r = Rect(x: n[0], y: n[1], width: n[2], height: n[3])
            if c.op == .fillEllipse || c.op == .strokeEllipse { ellipse(r) } else { cairo_rectangle(cr, r.minX, r.minY, r.width, r.height) }
            switch c.op {
            case .fillRect, .fillEllipse:
                cairo_set_fill_rule(cr, CAIRO_FILL_RULE_WINDING)
                paint(state.fill) { cairo_fill_preserve($0) }
            case .strokeRect, .strokeEllipse: paint(state.stroke) { cairo_stroke_preserve($0) }
            default:
                cairo_save(cr)
                cairo_set_operator(cr, CAIRO_OPERATOR_CLEAR)
                cairo_fill_preserve(cr)
                cairo_restore(cr)
            }
        case .setFillColor: state.fill = Color(red: n[0], green: n[1], blue: n[2], alpha: n[3])
        case .setStrokeColor: state.stroke = Color(red: n[0], green: n[1], blue: n[2], alpha: n[3])
        case .setLineWidth: cairo_set_line_width(cr, n[0])
        case .setLineCap: cairo_set_line_cap(cr, [CAIRO_LINE_CAP_BUTT, CAIRO_LINE_CAP_ROUND, CAIRO_LINE_CAP_SQUARE][Int(n[0])])
        case .setLineJoin: cairo_set_line_join(cr, [CAIRO_LINE_JOIN_MITER, CAIRO_LINE_JOIN_ROUND, CAIRO_LINE_JOIN_BEVEL][Int(n[0])])
        case .setMiterLimit: cairo_set_miter_limit(cr, Swift.max(n[0], 1))
        case .setLineDash:
            let lengths = Array(n.dropFirst())
            // An empty or all-zero pattern strokes solid (cairo refuses all zeros).
            if lengths.isEmpty || !lengths.contains(where: { $0 > 0 }) {
                cairo_set_dash(cr, nil, 0, 0)
            } else {
                lengths.withUnsafeBufferPointer { cairo_set_dash(cr, $0.baseAddress, Int32($0.count), n[0]) }
            }
        case .setAlpha: state.alpha = n[0]
        case .setBlendMode: cairo_set_operator(cr, Self.operators[Int(n[0])])
        case .setShadow:
            let color = Color(red: n[3], green: n[4], blue: n[5], alpha: n[6])
            state.shadow = color.alpha > 0 ? (Size(width: n[0], height: n[1]), n[2], color) : nil
        case .drawLinearGradient, .drawRadialGradient:
            let linear = c.op == .drawLinearGradient
            guard let pattern = linear ? cairo_pattern_create_linear(n[0], n[1], n[2], n[3])
                : cairo_pattern_create_radial(n[0], n[1], n[2], n[3], n[4], n[5]) else { return }
            defer { cairo_pattern_destroy(pattern) }
            let first = linear ? 5 : 7
            cairo_pattern_set_extend(pattern, n[first - 1] == 0 ? CAIRO_EXTEND_NONE : CAIRO_EXTEND_PAD)
            for s in stride(from: first, to: n.count, by: 5) {
                cairo_pattern_add_color_stop_rgba(pattern, n[s], n[s + 1], n[s + 2], n[s + 3], n[s + 4])
            }
            paintPattern(pattern) { cairo_paint($0) }
        case .showText:
            showText(c.strings[0], font: c.strings[1], size: n[2], at: pt(0))
        case .drawImage:
            drawImage(UInt32(exactly: n[0]) ?? 0, in: Rect(x: n[1], y: n[2], width: n[3], height: n[4]))
        }
    }

    /// A line or curve with no current point starts at (0, 0), as in Core Graphics.
    private func ensureCurrentPoint() {
        if cairo_has_current_point(cr) == 0 { cairo_move_to(cr, 0, 0) }
    }

    private func ellipse(_ r: Rect) {
        guard r.width != 0, r.height != 0 else { return }
        cairo_new_sub_path(cr)
        cairo_save(cr)
        cairo_translate(cr, r.midX, r.midY)
        cairo_scale(cr, r.width / 2, r.height / 2)
        cairo_arc(cr, 0, 0, 1, 0, 2 * Double.pi)
        cairo_restore(cr)
        cairo_close_path(cr)
    }

    private func roundedRect(_ r: Rect, _ cw: Double, _ ch: Double) {
        let rx = Swift.min(cw, Swift.abs(r.width) / 2), ry = Swift.min(ch, Swift.abs(r.height) / 2)
        guard rx > 0, ry > 0 else { cairo_rectangle(cr, r.minX, r.minY, r.width, r.height); return }
        cairo_new_sub_path(cr)
        let corners: [(Double, Double, Double)] = [(r.maxX - rx, r.minY + ry, -Double.pi / 2), (r.maxX - rx, r.maxY - ry, 0),
                                                   (r.minX + rx, r.maxY - ry, Double.pi / 2), (r.minX + rx, r.minY + ry, Double.pi)]
        for (x, y, a) in corners {
            cairo_save(cr)
            cairo_translate(cr, x, y)
            cairo_scale(cr, rx, ry)
            cairo_arc(cr, 0, 0, 1, a, a + Double.pi / 2)
            cairo_restore(cr)
        }
        cairo_close_path(cr)
    }

    private func showText(_ text: String, font: String, size: Double, at p: Point) {
        guard !text.isEmpty, state.fill.alpha > 0 else { return }
        FontconfigRegistry.refreshFontMap()
        guard let layout = pango_cairo_create_layout(cr) else { return }
        defer { g_object_unref(UnsafeMutableRawPointer(layout)) }
        TextRasterizer.useScaleIndependentMetrics(layout)
        let description = TextRasterizer.fontDescription(font.isEmpty ? "Helvetica" : font,
                                                         size: Swift.min(size, TextRasterizer.maximumFontPixels / scale))
        pango_layout_set_font_description(layout, description)
        pango_font_description_free(description)
        text.withCString { pango_layout_set_text(layout, $0, -1) }
        // The point is the baseline's start, as in Core Graphics' showText(at:).
        let baseline = Double(pango_layout_get_baseline(layout)) / Double(PANGO_SCALE)
        let kept = cairo_copy_path(cr)
        cairo_new_path(cr)
        cairo_move_to(cr, p.x, p.y - baseline)
        pango_cairo_update_layout(cr, layout)
        paint(state.fill) { pango_cairo_show_layout($0, layout) }
        cairo_new_path(cr)
        if let kept {
            if kept.pointee.status == CAIRO_STATUS_SUCCESS { cairo_append_path(cr, kept) }
            cairo_path_destroy(kept)
        }
    }

    /// A client image stretched over `rect`, upright (row 0 at the rect's top), filtered
    /// bilinearly; nothing when the image does not exist (any more).
    private func drawImage(_ number: UInt32, in rect: Rect) {
        guard let source = images[number], !source.isDestroyed, source.width > 0, source.height > 0,
              rect.width != 0, rect.height != 0,
              let surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(source.width), Int32(source.height)) else { return }
        defer { cairo_surface_destroy(surface) }
        guard cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS, let data = cairo_image_surface_get_data(surface) else { return }
        let w = source.width, h = source.height, stride = Int(cairo_image_surface_get_stride(surface))
        var scratch: [UInt8] = []
        source.withPremultipliedRGBA(PixelRect(x: 0, y: 0, width: UInt32(w), height: UInt32(h)), scratch: &scratch) { pixels, rowLength in
            for y in 0..<h {
                let row = pixels.advanced(by: y * rowLength * 4).assumingMemoryBound(to: UInt8.self)
                let out = UnsafeMutableRawPointer(data + y * stride).assumingMemoryBound(to: UInt32.self)
                for x in 0..<w {
                    let r = UInt32(row[x * 4]), g = UInt32(row[x * 4 + 1]), b = UInt32(row[x * 4 + 2]), a = UInt32(row[x * 4 + 3])
                    out[x] = a << 24 | r << 16 | g << 8 | b
                }
            }
        }
        cairo_surface_mark_dirty(surface)
        guard let pattern = cairo_pattern_create_for_surface(surface) else { return }
        defer { cairo_pattern_destroy(pattern) }
        cairo_pattern_set_filter(pattern, CAIRO_FILTER_GOOD)
        // The edge pixels reach the rect's edges (filtered against themselves, not transparency).
        cairo_pattern_set_extend(pattern, CAIRO_EXTEND_PAD)
        // Maps the rect's user space to the image's pixels.
        var m = cairo_matrix_t()
        cairo_matrix_init_translate(&m, rect.minX, rect.minY)
        cairo_matrix_scale(&m, rect.width / Double(w), rect.height / Double(h))
        cairo_matrix_invert(&m)
        cairo_pattern_set_matrix(pattern, &m)
        let kept = cairo_copy_path(cr)
        cairo_new_path(cr)
        cairo_rectangle(cr, rect.minX, rect.minY, rect.width, rect.height)
        paintPattern(pattern) { cairo_fill($0) }
        cairo_new_path(cr)
        if let kept {
            if kept.pointee.status == CAIRO_STATUS_SUCCESS { cairo_append_path(cr, kept) }
            cairo_path_destroy(kept)
        }
    }

    /// Draws with `color` as the source, under the global alpha and shadow.
    private func paint(_ color: Color, _ draw: (OpaquePointer) -> Void) {
        guard color.alpha > 0 else { return }
        if state.alpha >= 1, state.shadow == nil {
            color.setSource(cr)
            draw(cr)
            return
        }
        guard let pattern = cairo_pattern_create_rgba(color.red, color.green, color.blue, color.alpha) else { return }
        defer { cairo_pattern_destroy(pattern) }
        paintPattern(pattern, draw)
    }

    /// Draws with `pattern` as the source; with a shadow or a global alpha, into a group first,
    /// then the blurred shadow of the group's alpha and the group at the alpha.
    private func paintPattern(_ pattern: OpaquePointer, _ draw: (OpaquePointer) -> Void) {
        guard state.alpha < 1 || state.shadow != nil else {
            cairo_set_source(cr, pattern)
            draw(cr)
            return
        }
        guard state.alpha > 0 else { return }
        cairo_push_group(cr)
        cairo_set_source(cr, pattern)
        draw(cr)
        guard let group = cairo_pop_group(cr) else { return }
        defer { cairo_pattern_destroy(group) }
        if let shadow = state.shadow { paintShadow(group, shadow) }
        cairo_set_source(cr, group)
        cairo_paint_with_alpha(cr, state.alpha)
    }

    /// The group's alpha, blurred by `blur` points (in device space, as Core Graphics' shadows
    /// are unaffected by the CTM) and offset, filled with the shadow colour.
    private func paintShadow(_ group: OpaquePointer, _ shadow: (offset: Size, blur: Double, color: Color)) {
        var surface: OpaquePointer?
        guard cairo_pattern_get_surface(group, &surface) == CAIRO_STATUS_SUCCESS, let surface,
              cairo_surface_get_type(surface) == CAIRO_SURFACE_TYPE_IMAGE else { return }
        cairo_surface_flush(surface)
        let w = Int(cairo_image_surface_get_width(surface)), h = Int(cairo_image_surface_get_height(surface))
        guard w > 0, h > 0, let mask = cairo_image_surface_create(CAIRO_FORMAT_A8, Int32(w), Int32(h)) else { return }
        defer { cairo_surface_destroy(mask) }
        guard let src = cairo_image_surface_get_data(surface), let dst = cairo_image_surface_get_data(mask) else { return }
        let ss = Int(cairo_image_surface_get_stride(surface)), ds = Int(cairo_image_surface_get_stride(mask))
        var alpha = [Double](repeating: 0, count: w * h)
        for y in 0..<h {
            let row = UnsafeRawPointer(src + y * ss).assumingMemoryBound(to: UInt32.self)
            for x in 0..<w { alpha[y * w + x] = Double(row[x] >> 24) }
        }
        // Three box blurs of the Gaussian's σ = blur / 2 (Core Graphics' blur is about 2σ).
        let sigma = shadow.blur * scale / 2
        if sigma > 0.5 {
            let r = Swift.min(Int((sigma * (12.0 / 3).squareRoot() / 2).rounded()), 64)
            if r > 0 { for _ in 0..<3 { Self.boxBlur(&alpha, w, h, r) } }
        }
        for y in 0..<h {
            for x in 0..<w { dst[y * ds + x] = UInt8(Swift.min(Swift.max(alpha[y * w + x].rounded(), 0), 255)) }
        }
        cairo_surface_mark_dirty(mask)
        // The group's device offset puts its pixels where they were drawn; add the shadow's.
        var dx = 0.0, dy = 0.0
        cairo_surface_get_device_offset(surface, &dx, &dy)
        cairo_save(cr)
        cairo_identity_matrix(cr)
        let c = shadow.color
        cairo_set_source_rgba(cr, c.red, c.green, c.blue, c.alpha * state.alpha)
        cairo_mask_surface(cr, mask, -dx + shadow.offset.width * scale, -dy + shadow.offset.height * scale)
        cairo_restore(cr)
    }

    /// A horizontal then vertical box blur of radius `r`.
    private static func boxBlur(_ a: inout [Double], _ w: Int, _ h: Int, _ r: Int) {
        var tmp = [Double](repeating: 0, count: Swift.max(w, h))
        let d = Double(2 * r + 1)
        for y in 0..<h {
            var sum = 0.0
            for x in -r...r { sum += a[y * w + Swift.min(Swift.max(x, 0), w - 1)] * (x < 0 || x >= w ? 0 : 1) }
            for x in 0..<w {
                tmp[x] = sum / d
                let add = x + r + 1, sub = x - r
                if add < w { sum += a[y * w + add] }
                if sub >= 0 { sum -= a[y * w + sub] }
            }
            for x in 0..<w { a[y * w + x] = tmp[x] }
        }
        for x in 0..<w {
            var sum = 0.0
            for y in 0...r where y < h { sum += a[y * w + x] }
            for y in 0..<h {
                tmp[y] = sum / d
                let add = y + r + 1, sub = y - r
                if add < h { sum += a[add * w + x] }
                if sub >= 0 { sum -= a[sub * w + x] }
            }
            for y in 0..<h { a[y * w + x] = tmp[y] }
        }
    }

    /// CGBlendMode's names (`DrawingOp.blendModes`) as cairo operators.
    static let operators: [cairo_operator_t] = [
        CAIRO_OPERATOR_OVER, CAIRO_OPERATOR_MULTIPLY, CAIRO_OPERATOR_SCREEN, CAIRO_OPERATOR_OVERLAY,
        CAIRO_OPERATOR_DARKEN, CAIRO_OPERATOR_LIGHTEN, CAIRO_OPERATOR_COLOR_DODGE, CAIRO_OPERATOR_COLOR_BURN,
        CAIRO_OPERATOR_SOFT_LIGHT, CAIRO_OPERATOR_HARD_LIGHT, CAIRO_OPERATOR_DIFFERENCE, CAIRO_OPERATOR_EXCLUSION,
        CAIRO_OPERATOR_HSL_HUE, CAIRO_OPERATOR_HSL_SATURATION, CAIRO_OPERATOR_HSL_COLOR, CAIRO_OPERATOR_HSL_LUMINOSITY,
        CAIRO_OPERATOR_CLEAR, CAIRO_OPERATOR_SOURCE, CAIRO_OPERATOR_IN, CAIRO_OPERATOR_OUT, CAIRO_OPERATOR_ATOP,
        CAIRO_OPERATOR_DEST_OVER, CAIRO_OPERATOR_DEST_IN, CAIRO_OPERATOR_DEST_OUT, CAIRO_OPERATOR_DEST_ATOP,
        CAIRO_OPERATOR_XOR, CAIRO_OPERATOR_ADD,
    ]
}
