import LaminaCore

/// The radius of each corner of a rounded rectangle, in layer coordinates (y down, so the
/// `minY` corners are the top ones).
public struct CornerRadii: Sendable, Equatable {
    public var minXMinY: Double
    public var maxXMinY: Double
    public var maxXMaxY: Double
    public var minXMaxY: Double

    /// The corners' shape (`cornerCurve`), the same for all four.
    public var curve: CornerCurve

    public init(minXMinY: Double, maxXMinY: Double, maxXMaxY: Double, minXMaxY: Double, curve: CornerCurve = .circular) {
        self.minXMinY = minXMinY
        self.maxXMinY = maxXMinY
        self.maxXMaxY = maxXMaxY
        self.minXMaxY = minXMaxY
        self.curve = curve
    }

    /// Square corners.
    public static let zero = CornerRadii(minXMinY: 0, maxXMinY: 0, maxXMaxY: 0, minXMaxY: 0)

    /// Core Animation's corners for a layer of size `size`: `radius` on the corners in `mask`,
    /// limited to half the shorter side so opposite corners never overlap, shaped by `curve`
    /// (square corners are circular whatever the curve, so they compare equal to `.zero`).
    public init(radius: Double, mask: CornerMask, size: Size, curve: CornerCurve = .circular) {
        let r = Swift.max(0, Swift.min(radius, Swift.min(size.width, size.height) / 2))
        self.init(minXMinY: mask.contains(.minXMinY) ? r : 0, maxXMinY: mask.contains(.maxXMinY) ? r : 0,
                  maxXMaxY: mask.contains(.maxXMaxY) ? r : 0, minXMaxY: mask.contains(.minXMaxY) ? r : 0,
                  curve: r > 0 && !mask.isEmpty ? curve : .circular)
    }

    /// True when every corner is square.
    public var isZero: Bool { minXMinY == 0 && maxXMinY == 0 && maxXMaxY == 0 && minXMaxY == 0 }

    /// How far each corner's curve reaches along its edges, for a rectangle of `size`: its
    /// radius for a circular corner, up to `ContinuousCorner.reach` radii for a continuous one.
    /// Outside squares of these sides at the corners the shape's edges are straight.
    public func reaches(within size: Size) -> CornerRadii {
        guard curve == .continuous else { return self }
        let limit = Swift.min(size.width, size.height) / 2
        func reach(_ r: Double) -> Double { ContinuousCorner.reach(radius: r, limit: limit) }
        return CornerRadii(minXMinY: reach(minXMinY), maxXMinY: reach(maxXMinY), maxXMaxY: reach(maxXMaxY),
                           minXMaxY: reach(minXMaxY), curve: .continuous)
    }

    /// The largest radius.
    public var largest: Double { Swift.max(minXMinY, maxXMinY, maxXMaxY, minXMaxY) }
}

/// A layer's shadow as the renderer draws it.
public struct DrawShadow: Sendable, Equatable {
    /// The shadow colour, straight alpha.
    public var color: Color
    /// `shadowOpacity`, times the alpha of the caster's shape where the renderer draws the
    /// shadow from the shape rather than from composited pixels.
    public var opacity: Double
    /// `shadowOffset`, in the caster's layer coordinates.
    public var offset: Size
    /// `shadowRadius`: the blur's Gaussian has a standard deviation of half of it.
    public var radius: Double

    public init(color: Color, opacity: Double, offset: Size, radius: Double) {
        self.color = color
        self.opacity = opacity
        self.offset = offset
        self.radius = radius
    }
}

/// A gradient layer's gradient as the renderer draws it (`CAGradientLayer`).
public struct DrawGradient: Sendable, Equatable {
    /// `type`: axial, radial or conic.
    public var type: GradientType
    /// The stops' colours, straight alpha, already multiplied by any replicator instance colour.
    /// At least two.
    public var colors: [Color]
    /// One location per colour, non-decreasing, in [0, 1].
    public var locations: [Double]
    /// `startPoint` and `endPoint` mapped from unit coordinates to the layer's bounds.
    public var start: Point
    public var end: Point

    public init(type: GradientType, colors: [Color], locations: [Double], start: Point, end: Point) {
        self.type = type
        self.colors = colors
        self.locations = locations
        self.start = start
        self.end = end
    }

    /// The gradient a layer's presentation values describe within `bounds`, or nil where Core
    /// Animation draws nothing: fewer than two colours, or a `locations` list whose count is not
    /// that of `colors` (Core Animation then leaves the layer blank; an empty list spaces the
    /// colours evenly). Locations that go backwards are raised to the one before them.
    public init?(_ p: LayerProperties, bounds: Rect) {
        let n = p.colors.count
        guard n >= 2, p.locations.isEmpty || p.locations.count == n else { return nil }
        var locations = p.locations.isEmpty ? (0..<n).map { Double($0) / Double(n - 1) } : p.locations
        for i in locations.indices {
            locations[i] = Swift.min(1, Swift.max(0, locations[i]))
            if i > 0, locations[i] < locations[i - 1] { locations[i] = locations[i - 1] }
        }
        func inBounds(_ u: Point) -> Point {
            Point(x: bounds.minX + u.x * bounds.width, y: bounds.minY + u.y * bounds.height)
        }
        self.init(type: p.gradientType, colors: p.colors, locations: locations,
                  start: inBounds(p.startPoint), end: inBounds(p.endPoint))
    }
}

/// One step of a frame, ready to draw: everything the renderer needs and nothing it must look
/// up in the tree.
///
/// Geometry is always in the layer coordinates of `transform`, never in display coordinates,
/// so an output transform (a rotated KMS output) is applied by concatenating it to every
/// command's `transform`.
public struct DrawCommand: Sendable, Equatable {
    /// What the command does.
    public enum Kind: UInt8, Sendable {
        /// Fills `bounds`, rounded by `cornerRadii`, with `color`, and draws a border of
        /// `borderWidth` in `borderColor` inside it along the same corners. Either may be clear.
        case layer
        /// Draws `shadow` for the rounded rectangle `bounds`: a Gaussian-blurred copy of the
        /// shape in the shadow colour, computed analytically.
        case shadow
        /// Starts an offscreen group: the commands up to the matching `endGroup` are drawn into
        /// a transparent layer of their own, then composited with `opacity` (and, with a
        /// `shadow`, over a blurred copy of the group's alpha in the shadow colour).
        case beginGroup
        /// Ends the innermost group and composites it.
        case endGroup
        /// Clips the commands up to the matching `popClip` to `bounds` rounded by `cornerRadii`
        /// (`masksToBounds`), intersected with any clip already in force.
        case pushClip
        /// Ends the innermost clip.
        case popClip
        /// Draws `contents` (an image, or a server raster) with `opacity`.
        case contents
        /// Fills `bounds` rounded by `cornerRadii` with `gradient`, dithered, at `opacity`.
        case gradient
        /// Draws `shadow` for the filled path `polygons` (`shadowPath`): the path's coverage
        /// blurred with sigma = radius / 2, without drawing the layer offscreen.
        case pathShadow
        /// Ends the content of the innermost group and starts its mask: the commands up to the
        /// matching `endMask` are drawn into an offscreen layer of their own, whose alpha then
        /// multiplies the group's pixels (`mask`).
        case beginMask
        /// Ends the mask and the group it belongs to, and composites the group multiplied by
        /// the mask's alpha, with the group's opacity.
        case endMask
        /// Draws an emitter cell's `particles` in one instanced draw at `opacity`; `bounds` is
        /// the rectangle they lie in.
        case particles
        /// `backgroundFilters`: what the target holds behind `bounds` (read from below the
        /// `backdropDepth` groups the layer itself opened) goes through `filters` and is drawn
        /// back inside `bounds` rounded by `cornerRadii`, at `opacity`, before the layer's own
        /// draws (frosted glass).
        case backdrop
    }

    public var kind: Kind
    /// Maps the layer's bounds coordinates to display points (row vectors, projective: the
    /// renderer divides by w so `sublayerTransform` perspective shows).
    public var transform: Transform3D
    /// The layer's bounds rectangle in its own coordinates.
    public var bounds: Rect
    /// The fill colour (the layer's background), straight alpha.
    public var color: Color
    /// The opacity of the layer multiplied by that of every ancestor up to the enclosing group
    /// (for `beginGroup`: the opacity the group is composited with).
    public var opacity: Double
    /// The corners of `bounds`.
    public var cornerRadii: CornerRadii
    /// The width of the border drawn inside `bounds`; 0 for none.
    public var borderWidth: Double
    /// The border's colour, straight alpha.
    public var borderColor: Color
    /// The shadow to draw (`shadow`, `pathShadow`, and `beginGroup` for a shadow of the
    /// group's pixels).
    public var shadow: DrawShadow?
    /// For `beginGroup`: the group is added to what lies below (premultiplied, `ONE, ONE`)
    /// instead of drawn over it, for a transition's cross-dissolve.
    public var compositesAdditively = false
    /// For `beginGroup`: the layer's `compositingFilter`. The group's pixels (not a shadow it
    /// casts, which is drawn below them as usual) blend with what lies behind them in the
    /// target the group is composited into; nil composites source-over.
    public var blendMode: BlendMode?
    /// For `beginGroup`: the layer's `filters`, applied to the group's pixels before it is
    /// composited (and before a shadow of its pixels is cast); the group's box grows by their
    /// reach.
    public var filters: DrawFilters?
    /// For `backdrop`: how many of the open groups the layer opened itself (for its opacity,
    /// mask or shadow); what lies behind is read from the target below them.
    public var backdropDepth = 0
    /// The textured draw of a `contents` command.
    public var contents: DrawContents?
    /// The gradient (`gradient`).
    public var gradient: DrawGradient?
    /// The shadow path flattened to closed polygons in layer coordinates (`pathShadow`),
    /// filled by the even-odd rule.
    public var polygons: [[Point]] = []
    /// An emitter cell's particles (`particles`).
    public var particles: DrawParticles?

    /// A command of any kind; the defaults draw nothing extra.
    public init(kind: Kind, transform: Transform3D = .identity, bounds: Rect = .zero, color: Color = .clear,
                opacity: Double = 1, cornerRadii: CornerRadii = .zero, borderWidth: Double = 0,
                borderColor: Color = .clear, shadow: DrawShadow? = nil, contents: DrawContents? = nil,
                gradient: DrawGradient? = nil) {
        self.kind = kind
        self.transform = transform
        self.bounds = bounds
        self.color = color
        self.opacity = opacity
        self.cornerRadii = cornerRadii
        self.borderWidth = borderWidth
        self.borderColor = borderColor
        self.shadow = shadow
        self.contents = contents
        self.gradient = gradient
    }

    /// A layer's filled rectangle, square corners, no border.
    public init(transform: Transform3D, bounds: Rect, color: Color, opacity: Double) {
        self.init(kind: .layer, transform: transform, bounds: bounds, color: color, opacity: opacity)
    }
}

extension DrawCommand {
    /// The most `masksToBounds` clips the renderer applies to a draw: deeper nesting keeps the
    /// innermost ones (damage is computed with the same rule).
    public static let maximumClips = 4
}

/// The name the render list's steps had when every step was a filled quad.
public typealias DrawQuad = DrawCommand

/// What one frame shows, back to front.
public struct DrawList: Sendable, Equatable {
    /// The display's size in points; one point is one pixel in this slice.
    public var width: Int
    public var height: Int
    /// What the display shows where no layer draws (opaque black unless configured).
    public var background: Color
    /// The steps in painter's order: the first is drawn first, at the back. Groups and clips
    /// nest: every `beginGroup` has its `endGroup` and every `pushClip` its `popClip`.
    public var commands: [DrawCommand]
    /// The client trees (by serial) whose walk stopped at the per-frame draw budget.
    public var truncated: [EntrySerial] = []
    /// Emitter layers with a cell that sheds: the picture changes with time alone, so a real
    /// clock keeps drawing frames.
    public var liveEmitters = 0
    /// App windows shown in managing clients' layers (`appSurface`).
    public var appWindowsShown: Set<UInt32> = []
    /// What each client's tiled layers showed and wanted (DrawTiles.swift), by tree serial.
    public var tileViews: [EntrySerial: TileViews] = [:]
    /// A tile was fading in: the picture changes with time alone.
    public var tilesFading: Bool { tileViews.values.contains { $0.fading } }

    public init(width: Int, height: Int, background: Color = .black, commands: [DrawCommand] = []) {
        self.width = width
        self.height = height
        self.background = background
        self.commands = commands
    }

    public init(width: Int, height: Int, background: Color = .black, quads: [DrawCommand]) {
        self.init(width: width, height: height, background: background, commands: quads)
    }

    /// `commands` under its earlier name, for callers that rewrite every step's transform
    /// (an output transform); mutating it in place does not copy the array.
    public var quads: [DrawCommand] {
        get { commands }
        _modify { yield &commands }
    }
}

/// Draws a `DrawList` into the current output's framebuffer (wlroots' `wlr_renderer`, made small).
public protocol Renderer: AnyObject {
    /// A short name for logs and stats ("GLES 3.2 llvmpipe", say).
    var name: String { get }
    /// Draws the frame into the target bound now. Premultiplied-alpha blending, opacity already
    /// multiplied down the tree.
    func draw(_ list: DrawList) throws
    /// Draws the part of the frame in `damage` (all of it for nil) into `target`, leaving the
    /// rest of the target as it was. `target` must be one this renderer's side made.
    func draw(_ list: DrawList, into target: any RenderTarget, damage: DamageRegion?) throws
    /// Reads back what the last `draw` produced, top row first.
    func readPixels() throws -> Bitmap
    /// The textures held for contents, by owner (`stats`).
    var textureUsage: TextureUsage { get }
    /// What the renderer's caches hold and how often they served (`stats`, by name).
    var cacheStatistics: [(name: String, value: Double)] { get }
    /// How video pictures in dma-buf memory are shown, and why, in words (logged at start).
    var videoImport: String { get }
    /// Why such pictures are copied after all, once the driver refused one (logged then).
    var videoImportRefusal: String? { get }
    /// Whether planar YUV video pictures are better converted to RGB by this renderer (a GPU's
    /// shader) than by the decoder's `videoconvert` on the CPU, and why, in words.
    var planarVideo: (preferred: Bool, reason: String) { get }
    /// The packed RGB layouts in dma-buf memory this renderer shows as contents (imported in
    /// place, or mapped and copied where it cannot import), and in words how: what apps are
    /// offered (`zwp_linux_dmabuf_v1`). Empty for a renderer that takes none.
    var dmabufFormats: (formats: [DMABufFormat], how: String) { get }
}

extension Renderer {
    /// A renderer without textures holds none.
    public var textureUsage: TextureUsage { TextureUsage() }
    /// A renderer without caches reports none.
    public var cacheStatistics: [(name: String, value: Double)] { [] }
    public var videoImport: String { "copied: this renderer imports no dma-bufs" }
    public var videoImportRefusal: String? { nil }
    public var planarVideo: (preferred: Bool, reason: String) { (false, "this renderer converts no YUV") }
    public var dmabufFormats: (formats: [DMABufFormat], how: String) { ([], "this renderer shows no dma-bufs") }
}
