/// What kind of layer a layer is, fixed when it is created: Core Animation's layer classes.
/// Every layer has every property; a kind decides which of them the renderer draws from
/// (a plain layer ignores `colors`, a gradient layer draws them).
public enum LayerKind: UInt8, CaseIterable, Sendable, CustomStringConvertible {
    /// `CALayer`.
    case layer = 0
    /// `CAGradientLayer`: `colors`, `locations`, `startPoint`, `endPoint`, `type`.
    case gradient = 1
    /// `CAShapeLayer`: `path` filled and stroked.
    case shape = 2
    /// `CATextLayer`: `string` set in `font` at `fontSize`.
    case text = 3
    /// `CAReplicatorLayer`: its sublayers drawn `instanceCount` times.
    case replicator = 4
    /// `CATransformLayer`: its sublayers share its 3D space and are depth-sorted, not flattened.
    case transform = 5
    /// `CAEmitterLayer`: particles shed by its `emitterCells` (protocol 1.7).
    case emitter = 6
    /// `CAScrollLayer`: shows part of its sublayers through `bounds.origin`, limited by
    /// `scrollMode`; with `scrollsOnTouch`, laminad scrolls it by touch and wheel (protocol 1.7).
    case scroll = 7
    /// `CATiledLayer`: a picture too large to hold at once, drawn from tiles at levels of
    /// detail that laminad asks the owning client for as they come into view (protocol 1.7).
    case tiled = 8

    /// The name used in scene files and tree dumps.
    public var name: String {
        switch self {
        case .layer: "layer"
        case .gradient: "gradient"
        case .shape: "shape"
        case .text: "text"
        case .replicator: "replicator"
        case .transform: "transform"
        case .emitter: "emitter"
        case .scroll: "scroll"
        case .tiled: "tiled"
        }
    }

    public var description: String { name }

    /// The protocol minor version that added the kind (a server creates it as a plain layer
    /// for an older client).
    public var minorVersion: UInt16 { self == .scroll || self == .emitter || self == .tiled ? 7 : 1 }

    /// The kind named `name` (`"gradient"`, …), or nil.
    public init?(name: String) {
        guard let k = LayerKind.allCases.first(where: { $0.name == name }) else { return nil }
        self = k
    }
}

/// `contentsGravity`: where contents sit in the bounds when their size differs. Lamina's y axis
/// points down, so `top` is the top edge on screen (as on iOS, where layers are flipped).
public enum ContentsGravity: String, CaseIterable, Sendable {
    case resize, resizeAspect, resizeAspectFill
    case center, top, bottom, left, right, topLeft, topRight, bottomLeft, bottomRight
}

/// `minificationFilter` / `magnificationFilter`.
public enum ContentsFilter: String, CaseIterable, Sendable {
    case linear, nearest
    /// Linear between the two nearest mipmap levels (minification; magnifies as `linear`).
    case trilinear
}

/// `CAGradientLayer.type`.
public enum GradientType: String, CaseIterable, Sendable {
    /// Along the line from `startPoint` to `endPoint`.
    case axial
    /// Ellipse centred on `startPoint`, reaching `endPoint`'s x and y at location 1.
    case radial
    /// Angle about `startPoint`, starting towards `endPoint`.
    case conic
}

/// `CAShapeLayer.fillRule`.
public enum FillRule: String, CaseIterable, Sendable {
    case nonZero = "non-zero"
    case evenOdd = "even-odd"
}

/// `CAShapeLayer.lineCap`.
public enum LineCap: String, CaseIterable, Sendable {
    case butt, round, square
}

/// `CAShapeLayer.lineJoin`.
public enum LineJoin: String, CaseIterable, Sendable {
    case miter, round, bevel
}

/// `CATextLayer.alignmentMode`.
public enum TextAlignment: String, CaseIterable, Sendable {
    /// Left for left-to-right text.
    case natural, left, right, center, justified
}

/// `CATextLayer.truncationMode`: where an ellipsis replaces text that does not fit.
public enum TruncationMode: String, CaseIterable, Sendable {
    case none, start, end, middle
}

/// `compositingFilter`: how a layer, drawn with its sublayers as one group, blends with what
/// lies behind it. The names are Core Image's blend modes as Core Animation takes them; the
/// separable modes follow the W3C Compositing and Blending Level 1 formulas, plusLighter and
/// plusDarker Apple's (docs/protocol.md gives each). nil (the default, "" on the wire) is
/// ordinary source-over compositing.
public enum BlendMode: String, CaseIterable, Sendable {
    case multiply = "multiplyBlendMode"
    case screen = "screenBlendMode"
    case overlay = "overlayBlendMode"
    case darken = "darkenBlendMode"
    case lighten = "lightenBlendMode"
    case colorDodge = "colorDodgeBlendMode"
    case colorBurn = "colorBurnBlendMode"
    case softLight = "softLightBlendMode"
    case hardLight = "hardLightBlendMode"
    case difference = "differenceBlendMode"
    case exclusion = "exclusionBlendMode"
    /// Premultiplied colours added, each channel clamped to 1.
    case plusLighter
    /// Apple's `R = max(0, 1 − ((1 − D) + (1 − S)))`, with alpha as for plusLighter.
    case plusDarker

    /// The wire's names for `compositingFilter`, the default (nil, `""`) first.
    public static let wireNames: [String] = [""] + allCases.map(\.rawValue)
}

/// `cornerCurve`: the shape of a rounded corner (`CALayerCornerCurve`). `circular` is a quarter
/// circle of `cornerRadius`; `continuous` is Apple's smoother corner, whose curvature eases in
/// from the straight edge: it leaves the edge about 1.53 radii before the corner.
public enum CornerCurve: String, CaseIterable, Sendable {
    case circular, continuous
}

/// `CAScrollLayer.scrollMode`: the axes along which a scroll layer's `bounds.origin` moves.
public enum ScrollMode: String, CaseIterable, Sendable {
    /// `kCAScrollBoth`, the default.
    case both
    case none, vertically, horizontally

    /// Whether the origin may move along x.
    public var scrollsHorizontally: Bool { self == .both || self == .horizontally }
    /// Whether the origin may move along y.
    public var scrollsVertically: Bool { self == .both || self == .vertically }
}

/// `appSizing`: who decides an app window's size when a layer shows it (`appSurface`).
public enum AppSizing: String, CaseIterable, Sendable {
    /// laminad configures the app to the layer's bounds (in points; the app draws at the
    /// output's scale), and again whenever the bounds change: the default.
    case bounds
    /// The app keeps the size it chooses, placed in the bounds by `contentsGravity`.
    case app
}

/// `appExitContents`: what a layer showing an app window (`appSurface`) shows once the app's
/// window is gone (it closed it, exited or crashed).
public enum AppExitContents: String, CaseIterable, Sendable {
    /// Its last frame stays until the layer shows something else: the default, so an app that
    /// restarts replaces its old picture without a blank frame.
    case keep
    /// Nothing: the layer shows its own background.
    case clear
}
