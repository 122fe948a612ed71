import CCairo
import LaminaCore

/// What a shape layer draws: the `CAShapeLayer` properties that change its pixels. Two equal
/// styles rasterise to the same image at the same scale (it is the cache key).
public struct ShapeStyle: Sendable, Hashable {
    public var path: Path
    public var fillColor: Color
    public var fillRule: FillRule
    public var strokeColor: Color
    public var lineWidth: Double
    public var lineCap: LineCap
    public var lineJoin: LineJoin
    public var miterLimit: Double
    public var lineDashPattern: [Double]
    public var lineDashPhase: Double
    public var strokeStart: Double
    public var strokeEnd: Double

    /// The shape-layer properties of `p` (its presentation values, when animating).
    public init(_ p: LayerProperties) {
        path = p.path
        fillColor = p.fillColor
        fillRule = p.fillRule
        strokeColor = p.strokeColor
        lineWidth = p.lineWidth
        lineCap = p.lineCap
        lineJoin = p.lineJoin
        miterLimit = p.miterLimit
        lineDashPattern = p.lineDashPattern
        lineDashPhase = p.lineDashPhase
        strokeStart = p.strokeStart
        strokeEnd = p.strokeEnd
    }

    /// Whether anything would be stroked: a visible colour, a width and some length kept.
    public var strokes: Bool {
        strokeColor.alpha > 0 && lineWidth > 0 && strokeStart < strokeEnd
    }

    /// Whether anything would be filled.
    public var fills: Bool { fillColor.alpha > 0 }
}

/// Rasterises shape layers with cairo: the path filled by its fill rule, then stroked, both
/// antialiased, into an image covering the path's filled and stroked extent.
public enum ShapeRasterizer {
    /// The shape drawn at `scale` pixels per point, or nil when it draws nothing.
    ///
    /// The path is in the layer's bounds coordinates (y down) and is not clipped to the bounds
    /// (Core Animation clips a shape layer only with `masksToBounds`); the image's `frame` says
    /// where it lies. Its pixel grid is aligned to the layer's point grid at `scale` (the frame's
    /// origin is a whole number of pixels), so an unmoved shape samples texel for pixel. A shape
    /// larger than `rasterMaximumSide` pixels is drawn at a lower scale.
    ///
    /// `strokeStart`/`strokeEnd` trim the path by arc length before stroking (`Path.trimmed`);
    /// the dash pattern keeps its place on the untrimmed path. A line width of 0 strokes nothing.
    public static func rasterize(_ style: ShapeStyle, scale requested: Double) -> RasterImage? {
        guard style.fills || style.strokes, !style.path.elements.isEmpty, style.path.isFinite,
              requested.isFinite, requested > 0 else { return nil }
        let trimmed = style.strokes ? style.path.trimmed(from: style.strokeStart, to: style.strokeEnd) : nil
        let dashed = trimmed.map { usesDashes(style, length: $0.path.length) } ?? false

        // The extent in points, measured on a scratch context.
        guard let probe = CairoCanvas(width: 1, height: 1) else { return nil }
        var extent = Rect.zero
        if style.fills {
            appendPath(style.path, to: probe.context)
            extent = extent.union(extents(probe.context, fill: true))
            cairo_new_path(probe.context)
        }
        if let trimmed, !trimmed.path.elements.isEmpty {
            configureStroke(style, dashed: dashed, phaseOffset: trimmed.startOffsetInSubpath, probe.context)
            appendPath(trimmed.path, to: probe.context)
            extent = extent.union(extents(probe.context, fill: false))
            cairo_new_path(probe.context)
        }
        guard extent.width > 0, extent.height > 0, extent.minX.isFinite, extent.maxY.isFinite else { return nil }

        var scale = requested
        let longest = Swift.max(extent.width, extent.height) * scale + 2
        if longest > Double(rasterMaximumSide) { scale *= Double(rasterMaximumSide - 4) / longest }
        guard scale > 0, scale.isFinite else { return nil }
        // Whole pixels around the extent, one spare for the antialiased edge.
        let x0 = (extent.minX * scale).rounded(.down) - 1, y0 = (extent.minY * scale).rounded(.down) - 1
        let x1 = (extent.maxX * scale).rounded(.up) + 1, y1 = (extent.maxY * scale).rounded(.up) + 1
        let width = Int(x1 - x0), height = Int(y1 - y0)
        guard let canvas = CairoCanvas(width: width, height: height) else { return nil }
        let cr = canvas.context
        cairo_translate(cr, -x0, -y0)
        cairo_scale(cr, scale, scale)
        cairo_set_antialias(cr, CAIRO_ANTIALIAS_GOOD)
        if style.fills {
            appendPath(style.path, to: cr)
            cairo_set_fill_rule(cr, style.fillRule == .evenOdd ? CAIRO_FILL_RULE_EVEN_ODD : CAIRO_FILL_RULE_WINDING)
            style.fillColor.setSource(cr)
            cairo_fill(cr)
        }
        if let trimmed, !trimmed.path.elements.isEmpty {
            configureStroke(style, dashed: dashed, phaseOffset: trimmed.startOffsetInSubpath, cr)
            appendPath(trimmed.path, to: cr)
            style.strokeColor.setSource(cr)
            cairo_stroke(cr)
        }
        guard cairo_status(cr) == CAIRO_STATUS_SUCCESS else { return nil }
        let frame = Rect(x: x0 / scale, y: y0 / scale, width: Double(width) / scale, height: Double(height) / scale)
        return RasterImage(bitmap: canvas.bitmap(), frame: frame, scale: scale)
    }

    /// Adds `path` to the context's current path. Quadratic curves become the equivalent cubics
    /// (cairo has none); a path that does not start with a move starts at (0, 0), as in Core Graphics.
    static func appendPath(_ path: Path, to cr: OpaquePointer) {
        var current = Point.zero
        var started = false
        for e in path.elements {
            switch e {
            case .moveTo(let p):
                cairo_move_to(cr, p.x, p.y)
                current = p
                started = true
            case .lineTo(let p):
                if !started { cairo_move_to(cr, 0, 0); started = true }
                cairo_line_to(cr, p.x, p.y)
                current = p
            case let .quadCurveTo(c, p):
                if !started { cairo_move_to(cr, 0, 0); started = true }
                let c1 = current + (c - current) * (2.0 / 3), c2 = p + (c - p) * (2.0 / 3)
                cairo_curve_to(cr, c1.x, c1.y, c2.x, c2.y, p.x, p.y)
                current = p
            case let .curveTo(c1, c2, p):
                if !started { cairo_move_to(cr, 0, 0); started = true }
                cairo_curve_to(cr, c1.x, c1.y, c2.x, c2.y, p.x, p.y)
                current = p
            case .closeSubpath:
                cairo_close_path(cr)
                var x = 0.0, y = 0.0
                cairo_get_current_point(cr, &x, &y)
                current = Point(x: x, y: y)
            }
        }
    }

    /// The most dashes a stroke is cut into; a finer pattern strokes solid.
    public static let maximumDashCount = 100_000.0

    /// Whether the stroke is dashed. cairo refuses a pattern whose entries are all zero (and
    /// would then draw nothing more), so such a pattern strokes solid; so does a pattern so fine
    /// for the path's length that cutting it would take unbounded time.
    static func usesDashes(_ style: ShapeStyle, length: Double) -> Bool {
        let dashes = style.lineDashPattern
        guard !dashes.isEmpty, dashes.allSatisfy({ $0 >= 0 && $0.isFinite }) else { return false }
        let period = dashes.reduce(0, +) * (dashes.count % 2 == 1 ? 2 : 1)
        return period > 0 && length / period * Double(dashes.count) <= maximumDashCount
    }

    /// Line width, caps, joins, miter limit and dashes.
    static func configureStroke(_ style: ShapeStyle, dashed: Bool, phaseOffset: Double, _ cr: OpaquePointer) {
        cairo_set_line_width(cr, style.lineWidth)
        let cap: cairo_line_cap_t = switch style.lineCap {
        case .butt: CAIRO_LINE_CAP_BUTT
        case .round: CAIRO_LINE_CAP_ROUND
        case .square: CAIRO_LINE_CAP_SQUARE
        }
        let join: cairo_line_join_t = switch style.lineJoin {
        case .miter: CAIRO_LINE_JOIN_MITER
        case .round: CAIRO_LINE_JOIN_ROUND
        case .bevel: CAIRO_LINE_JOIN_BEVEL
        }
        cairo_set_line_cap(cr, cap)
        cairo_set_line_join(cr, join)
        cairo_set_miter_limit(cr, Swift.max(style.miterLimit, 1))
        let dashes = style.lineDashPattern
        if dashed {
            // Within one period, so cairo never walks a huge phase dash by dash.
            let period = dashes.reduce(0, +) * (dashes.count % 2 == 1 ? 2 : 1)
            var phase = (style.lineDashPhase + phaseOffset).truncatingRemainder(dividingBy: period)
            if !phase.isFinite { phase = 0 } else if phase < 0 { phase += period }
            dashes.withUnsafeBufferPointer { cairo_set_dash(cr, $0.baseAddress, Int32($0.count), phase) }
        } else {
            cairo_set_dash(cr, nil, 0, 0)
        }
    }

    private static func extents(_ cr: OpaquePointer, fill: Bool) -> Rect {
        var x0 = 0.0, y0 = 0.0, x1 = 0.0, y1 = 0.0
        if fill { cairo_fill_extents(cr, &x0, &y0, &x1, &y1) } else { cairo_stroke_extents(cr, &x0, &y0, &x1, &y1) }
        return Rect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }
}
