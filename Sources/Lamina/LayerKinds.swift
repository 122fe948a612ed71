import LaminaCore

// Core Animation's layer subclasses. Each is a `Layer` created with its kind; the kind decides
// which properties laminad draws from. Every property is also reachable through
// `setValue(_:forKey:)` by its Core Animation name.

extension Layer {
    // MARK: Contents and shadow shape (every layer)

    /// The part of the contents image drawn, in unit coordinates ((0, 0, 1, 1): all of it).
    public var contentsRect: Rect {
        get { model.contentsRect }
        set { setValue(.rect(newValue), forKey: .contentsRect) }
    }
    /// The stretchable middle of the contents (nine-slice), in unit coordinates.
    public var contentsCenter: Rect {
        get { model.contentsCenter }
        set { setValue(.rect(newValue), forKey: .contentsCenter) }
    }
    public var contentsGravity: ContentsGravity {
        get { model.contentsGravity }
        set { setValue(.string(newValue.rawValue), forKey: .contentsGravity) }
    }
    /// Contents pixels per point.
    public var contentsScale: Double {
        get { model.contentsScale }
        set { setValue(.number(newValue), forKey: .contentsScale) }
    }
    public var minificationFilter: ContentsFilter {
        get { model.minificationFilter }
        set { setValue(.string(newValue.rawValue), forKey: .minificationFilter) }
    }
    public var magnificationFilter: ContentsFilter {
        get { model.magnificationFilter }
        set { setValue(.string(newValue.rawValue), forKey: .magnificationFilter) }
    }
    /// A promise that the contents cover the bounds opaquely, so laminad may skip blending.
    public var isOpaque: Bool {
        get { model.isOpaque }
        set { setValue(.bool(newValue), forKey: .isOpaque) }
    }
    /// The shadow's shape; nil for the layer's own. Cheaper for laminad than a shape it derives.
    public var shadowPath: Path? {
        get { model.shadowPath.elements.isEmpty ? nil : model.shadowPath }
        set { setValue(.path(newValue ?? Path()), forKey: .shadowPath) }
    }
}

/// `CAGradientLayer`: a gradient over the bounds, drawn above the background colour.
public final class GradientLayer: Layer {
    public override init() { super.init(kind: .gradient) }

    /// The colours, from location 0 to 1. Animatable (between lists of the same length).
    public var colors: [Color] {
        get { model.colors }
        set { setValue(.colors(newValue), forKey: .colors) }
    }
    /// Where each colour sits, in [0, 1]; nil spaces them evenly.
    public var locations: [Double]? {
        get { model.locations.isEmpty ? nil : model.locations }
        set { setValue(.numbers(newValue ?? []), forKey: .locations) }
    }
    /// In unit coordinates of the bounds; (0.5, 0), the top middle, by default.
    public var startPoint: Point {
        get { model.startPoint }
        set { setValue(.point(newValue), forKey: .startPoint) }
    }
    /// In unit coordinates of the bounds; (0.5, 1), the bottom middle, by default.
    public var endPoint: Point {
        get { model.endPoint }
        set { setValue(.point(newValue), forKey: .endPoint) }
    }
    public var type: GradientType {
        get { model.gradientType }
        set { setValue(.string(newValue.rawValue), forKey: .gradientType) }
    }
}

/// `CAShapeLayer`: a path filled and stroked, antialiased, in the layer's bounds coordinates.
public final class ShapeLayer: Layer {
    public override init() { super.init(kind: .shape) }

    public var path: Path? {
        get { model.path.elements.isEmpty ? nil : model.path }
        set { setValue(.path(newValue ?? Path()), forKey: .path) }
    }
    /// Opaque black by default; nil fills nothing.
    public var fillColor: Color? {
        get { model.fillColor == .clear ? nil : model.fillColor }
        set { setValue(.color(newValue ?? .clear), forKey: .fillColor) }
    }
    public var fillRule: FillRule {
        get { model.fillRule }
        set { setValue(.string(newValue.rawValue), forKey: .fillRule) }
    }
    /// nil (the default) strokes nothing.
    public var strokeColor: Color? {
        get { model.strokeColor == .clear ? nil : model.strokeColor }
        set { setValue(.color(newValue ?? .clear), forKey: .strokeColor) }
    }
    public var lineWidth: Double {
        get { model.lineWidth }
        set { setValue(.number(newValue), forKey: .lineWidth) }
    }
    public var lineCap: LineCap {
        get { model.lineCap }
        set { setValue(.string(newValue.rawValue), forKey: .lineCap) }
    }
    public var lineJoin: LineJoin {
        get { model.lineJoin }
        set { setValue(.string(newValue.rawValue), forKey: .lineJoin) }
    }
    public var miterLimit: Double {
        get { model.miterLimit }
        set { setValue(.number(newValue), forKey: .miterLimit) }
    }
    /// Dash and gap lengths, repeated; nil for a solid line.
    public var lineDashPattern: [Double]? {
        get { model.lineDashPattern.isEmpty ? nil : model.lineDashPattern }
        set { setValue(.numbers(newValue ?? []), forKey: .lineDashPattern) }
    }
    public var lineDashPhase: Double {
        get { model.lineDashPhase }
        set { setValue(.number(newValue), forKey: .lineDashPhase) }
    }
    /// The fraction of the path's length where the stroke starts (0 by default).
    public var strokeStart: Double {
        get { model.strokeStart }
        set { setValue(.number(newValue), forKey: .strokeStart) }
    }
    /// The fraction of the path's length where the stroke ends (1 by default).
    public var strokeEnd: Double {
        get { model.strokeEnd }
        set { setValue(.number(newValue), forKey: .strokeEnd) }
    }
}

/// `CATextLayer`: a string set in a font, rasterised by laminad at `contentsScale`.
public final class TextLayer: Layer {
    public override init() { super.init(kind: .text) }

    public var string: String? {
        get { model.string.isEmpty ? nil : model.string }
        set { setValue(.string(newValue ?? ""), forKey: .string) }
    }
    /// A font family or fontconfig pattern ("DejaVu Sans", "Sans Bold"); Helvetica by default.
    public var font: String {
        get { model.font }
        set { setValue(.string(newValue), forKey: .font) }
    }
    /// 36 by default, as Core Animation.
    public var fontSize: Double {
        get { model.fontSize }
        set { setValue(.number(newValue), forKey: .fontSize) }
    }
    /// Opaque white by default.
    public var foregroundColor: Color {
        get { model.foregroundColor }
        set { setValue(.color(newValue), forKey: .foregroundColor) }
    }
    public var alignmentMode: TextAlignment {
        get { model.alignmentMode }
        set { setValue(.string(newValue.rawValue), forKey: .alignmentMode) }
    }
    /// Whether text wraps to the bounds' width.
    public var isWrapped: Bool {
        get { model.isWrapped }
        set { setValue(.bool(newValue), forKey: .isWrapped) }
    }
    public var truncationMode: TruncationMode {
        get { model.truncationMode }
        set { setValue(.string(newValue.rawValue), forKey: .truncationMode) }
    }
    /// Runs of text, each with its own font, size, weight, colours and lines
    /// (`CATextLayer.string` set to an `NSAttributedString`): `[TextRun("Sale ", weight: 700,
    /// color: .red), TextRun("today")]`. Not empty, it is drawn instead of `string`; an attribute
    /// a run leaves unset takes the layer's. A new key in protocol 1.7 (laminad refuses more than
    /// `TextRun.maximumRuns` runs or `TextRun.maximumTextBytes` of text).
    public var attributedString: [TextRun] {
        get { model.attributedString }
        set { setValue(.attributedString(newValue), forKey: .attributedString) }
    }
    /// Points added between lines (`NSParagraphStyle.lineSpacing`); 0 by default. Protocol 1.7.
    public var lineSpacing: Double {
        get { model.lineSpacing }
        set { setValue(.number(newValue), forKey: .lineSpacing) }
    }
}

/// `CAReplicatorLayer`: its sublayers drawn `instanceCount` times, each copy transformed,
/// tinted and delayed a step further than the one before.
public final class ReplicatorLayer: Layer {
    public override init() { super.init(kind: .replicator) }

    public var instanceCount: Int {
        get { model.instanceCount }
        set { setValue(.number(Double(newValue)), forKey: .instanceCount) }
    }
    /// Applied once more for each copy, about the replicator's anchor point.
    public var instanceTransform: Transform3D {
        get { model.instanceTransform }
        set { setValue(.transform(newValue), forKey: .instanceTransform) }
    }
    /// Multiplies the first copy's colour; opaque white by default.
    public var instanceColor: Color {
        get { model.instanceColor }
        set { setValue(.color(newValue), forKey: .instanceColor) }
    }
    public var instanceRedOffset: Double {
        get { model.instanceRedOffset }
        set { setValue(.number(newValue), forKey: .instanceRedOffset) }
    }
    public var instanceGreenOffset: Double {
        get { model.instanceGreenOffset }
        set { setValue(.number(newValue), forKey: .instanceGreenOffset) }
    }
    public var instanceBlueOffset: Double {
        get { model.instanceBlueOffset }
        set { setValue(.number(newValue), forKey: .instanceBlueOffset) }
    }
    public var instanceAlphaOffset: Double {
        get { model.instanceAlphaOffset }
        set { setValue(.number(newValue), forKey: .instanceAlphaOffset) }
    }
    /// Seconds each copy's animations lag the one before.
    public var instanceDelay: Double {
        get { model.instanceDelay }
        set { setValue(.number(newValue), forKey: .instanceDelay) }
    }
}

/// `CATransformLayer`: its sublayers share its 3D space and are depth-sorted rather than
/// flattened into its plane. Its own background, border, contents and opacity are not drawn.
public final class TransformLayer: Layer {
    public override init() { super.init(kind: .transform) }
}
