import LaminaCore

/// `GradientDrawingOptions` (`CGGradientDrawingOptions`): whether a gradient paints beyond its
/// ends.
public struct GradientDrawingOptions: OptionSet, Sendable {
    public var rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    public static let drawsBeforeStartLocation = GradientDrawingOptions(rawValue: 1)
    public static let drawsAfterEndLocation = GradientDrawingOptions(rawValue: 2)
}

/// A gradient's colour at a location in [0, 1].
public struct GradientStop: Sendable, Hashable {
    public var location: Double
    public var color: Color
    public init(_ location: Double, _ color: Color) {
        self.location = location
        self.color = color
    }
}

/// A drawing context modelled on `CGContext`: it records what is drawn as commands
/// (`drawing`), which laminad rasterises at the scale the layer is shown. Coordinates are the
/// layer's bounds, y down. Nothing is checked here; laminad refuses a drawing over its budgets
/// (docs/protocol.md, "Drawings") with an error naming the command.
@MainActor
public final class DrawingContext {
    /// The rectangle being drawn: the layer's bounds.
    public let bounds: Rect
    /// The commands recorded so far.
    public private(set) var drawing = Drawing()

    public init(bounds: Rect = .zero) { self.bounds = bounds }

    private func add(_ op: DrawingOp, _ numbers: [Double] = [], _ strings: [String] = []) {
        drawing.commands.append(DrawingCommand(op, numbers, strings))
    }
    private static func c(_ c: Color) -> [Double] { [c.red, c.green, c.blue, c.alpha] }
    private static func r(_ r: Rect) -> [Double] { [r.minX, r.minY, r.width, r.height] }

    // State and the CTM.
    public func saveGState() { add(.saveGState) }
    public func restoreGState() { add(.restoreGState) }
    public func translateBy(x: Double, y: Double) { add(.translateBy, [x, y]) }
    public func scaleBy(x: Double, y: Double) { add(.scaleBy, [x, y]) }
    /// Rotates by `angle` radians, from +x towards +y.
    public func rotate(by angle: Double) { add(.rotateBy, [angle]) }
    /// Concatenates the affine map x' = a·x + c·y + tx, y' = b·x + d·y + ty.
    public func concatenate(a: Double, b: Double, c: Double, d: Double, tx: Double, ty: Double) {
        add(.concatenate, [a, b, c, d, tx, ty])
    }

    // Paths.
    public func beginPath() { add(.beginPath) }
    public func move(to p: Point) { add(.move, [p.x, p.y]) }
    public func addLine(to p: Point) { add(.addLine, [p.x, p.y]) }
    public func addQuadCurve(to p: Point, control: Point) { add(.addQuadCurve, [p.x, p.y, control.x, control.y]) }
    public func addCurve(to p: Point, control1: Point, control2: Point) {
        add(.addCurve, [p.x, p.y, control1.x, control1.y, control2.x, control2.y])
    }
    /// An arc of a circle, angles in radians from +x towards +y; `clockwise: false` sweeps
    /// towards increasing angles.
    public func addArc(center: Point, radius: Double, startAngle: Double, endAngle: Double, clockwise: Bool) {
        add(.addArc, [center.x, center.y, radius, startAngle, endAngle, clockwise ? 1 : 0])
    }
    public func addRect(_ rect: Rect) { add(.addRect, Self.r(rect)) }
    public func addRoundedRect(in rect: Rect, cornerWidth: Double, cornerHeight: Double) {
        add(.addRoundedRect, Self.r(rect) + [cornerWidth, cornerHeight])
    }
    public func addEllipse(in rect: Rect) { add(.addEllipse, Self.r(rect)) }
    public func closePath() { add(.closePath) }
    /// Adds SVG path data (`"M 0 0 L 10 10 Q … C … Z"`; M, L, H, V, Q, C, Z, lower case relative).
    public func addPath(_ svg: String) { add(.addPath, [], [svg]) }
    /// Adds `path`'s elements.
    public func addPath(_ path: Path) {
        for e in path.elements {
            switch e {
            case .moveTo(let p): move(to: p)
            case .lineTo(let p): addLine(to: p)
            case let .quadCurveTo(c, p): addQuadCurve(to: p, control: c)
            case let .curveTo(c1, c2, p): addCurve(to: p, control1: c1, control2: c2)
            case .closeSubpath: closePath()
            }
        }
    }

    // Painting.
    public func fillPath(using rule: FillRule = .nonZero) { add(.fillPath, [rule == .evenOdd ? 1 : 0]) }
    public func strokePath() { add(.strokePath) }
    public func clip(using rule: FillRule = .nonZero) { add(.clip, [rule == .evenOdd ? 1 : 0]) }
    public func fill(_ rect: Rect) { add(.fillRect, Self.r(rect)) }
    public func stroke(_ rect: Rect) { add(.strokeRect, Self.r(rect)) }
    public func clear(_ rect: Rect) { add(.clearRect, Self.r(rect)) }
    public func fillEllipse(in rect: Rect) { add(.fillEllipse, Self.r(rect)) }
    public func strokeEllipse(in rect: Rect) { add(.strokeEllipse, Self.r(rect)) }

    // Style.
    public func setFillColor(_ color: Color) { add(.setFillColor, Self.c(color)) }
    public func setStrokeColor(_ color: Color) { add(.setStrokeColor, Self.c(color)) }
    public func setLineWidth(_ width: Double) { add(.setLineWidth, [width]) }
    public func setLineCap(_ cap: LineCap) { add(.setLineCap, [Double(LineCap.allCases.firstIndex(of: cap)!)]) }
    public func setLineJoin(_ join: LineJoin) { add(.setLineJoin, [Double(LineJoin.allCases.firstIndex(of: join)!)]) }
    public func setMiterLimit(_ limit: Double) { add(.setMiterLimit, [limit]) }
    /// Dashes of `lengths` (on, off, …) from `phase`; no lengths: solid.
    public func setLineDash(phase: Double, lengths: [Double]) { add(.setLineDash, [phase] + lengths) }
    /// The global alpha every later drawing is painted with.
    public func setAlpha(_ alpha: Double) { add(.setAlpha, [alpha]) }
    public func setBlendMode(_ mode: DrawingBlendMode) {
        add(.setBlendMode, [Double(DrawingBlendMode.allCases.firstIndex(of: mode)!)])
    }
    /// A shadow under everything painted later: `offset` and `blur` in points, unaffected by
    /// the CTM; a clear colour turns it off.
    public func setShadow(offset: Size, blur: Double, color: Color = Color(red: 0, green: 0, blue: 0, alpha: 1.0 / 3)) {
        add(.setShadow, [offset.width, offset.height, blur] + Self.c(color))
    }

    // Gradients and text.
    public func drawLinearGradient(_ stops: [GradientStop], start: Point, end: Point, options: GradientDrawingOptions = []) {
        add(.drawLinearGradient, [start.x, start.y, end.x, end.y, Double(options.rawValue & 3)] + stops.flatMap { [$0.location] + Self.c($0.color) })
    }
    public func drawRadialGradient(_ stops: [GradientStop], startCenter: Point, startRadius: Double, endCenter: Point,
                                   endRadius: Double, options: GradientDrawingOptions = []) {
        add(.drawRadialGradient, [startCenter.x, startCenter.y, startRadius, endCenter.x, endCenter.y, endRadius,
                                  Double(options.rawValue & 3)] + stops.flatMap { [$0.location] + Self.c($0.color) })
    }
    /// `image` (an `Image` of this layer's connection) stretched over `rect`, upright. A layer
    /// that records through `display()` keeps the images alive while it shows the drawing; when
    /// setting `drawing` yourself, keep them (`images`) as long as it is shown.
    public func draw(_ image: Image, in rect: Rect) {
        images.append(image)
        add(.drawImage, [Double(image.number)] + Self.r(rect))
    }

    /// The images `draw(_:in:)` named, kept alive with the drawing.
    public private(set) var images: [Image] = []

    /// `text` in the fill colour, its baseline starting at `point`; `font` as text layers name
    /// fonts ("Helvetica", "DejaVu Sans Bold").
    public func showText(_ text: String, at point: Point, font: String = "Helvetica", size: Double = 12) {
        add(.showText, [point.x, point.y, size], [text, font])
    }
}
