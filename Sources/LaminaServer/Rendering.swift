import LaminaCore

/// One layer's filled quad, ready to draw: everything the renderer needs and nothing it must
/// look up in the tree.
public struct DrawQuad: Sendable, Equatable {
    /// Maps the layer's bounds coordinates to display points (row vectors, projective: the
    /// renderer divides by w so `sublayerTransform` perspective shows).
    public var transform: Transform3D
    /// The layer's bounds rectangle in its own coordinates.
    public var bounds: Rect
    /// The layer's background colour, straight alpha.
    public var color: Color
    /// The opacity of the layer multiplied by that of every ancestor.
    public var opacity: Double

    public init(transform: Transform3D, bounds: Rect, color: Color, opacity: Double) {
        self.transform = transform
        self.bounds = bounds
        self.color = color
        self.opacity = opacity
    }
}

/// What one frame shows, back to front.
public struct DrawList: Sendable, Equatable {
    /// The display's size in points; one point is one pixel in this slice.
    public var width: Int
    public var height: Int
    /// What the display shows where no layer draws (opaque black unless configured).
    public var background: Color
    /// Quads in painter's order: the first is drawn first, at the back.
    public var quads: [DrawQuad]

    public init(width: Int, height: Int, background: Color = .black, quads: [DrawQuad] = []) {
        self.width = width
        self.height = height
        self.background = background
        self.quads = quads
    }
}

/// Draws a `DrawList` into the current output's framebuffer (wlroots' `wlr_renderer`, made small).
public protocol Renderer: AnyObject {
    /// A short name for logs and stats ("GLES 3.2 llvmpipe", say).
    var name: String { get }
    /// Draws the frame. Premultiplied-alpha blending, opacity already multiplied down the tree.
    func draw(_ list: DrawList) throws
    /// Reads back what the last `draw` produced, top row first.
    func readPixels() throws -> Bitmap
}

/// A place frames go: the headless FBO, or a KMS output (wlroots' `wlr_backend`, made small).
public protocol DisplayBackend: AnyObject {
    /// "headless" or "kms".
    var name: String { get }
    /// The output's size in pixels.
    var width: Int { get }
    var height: Int { get }
    /// The renderer that draws into this backend's buffers.
    var renderer: any Renderer { get }
    /// Draws `list` and shows it (headless: keeps it in the FBO for readback; KMS: page flip).
    func present(_ list: DrawList) throws

    /// A descriptor the event loop watches for the backend's events (KMS: page flips and
    /// hotplug), or nil for a backend that has none. When it is readable, call `dispatchEvents`.
    var eventDescriptor: Int32? { get }
    /// Handles what is pending on `eventDescriptor` without blocking.
    func dispatchEvents() throws -> BackendEvents
    /// True while a presented frame has not reached the screen yet (a page flip is queued).
    /// The next frame waits for it: `present` then blocks until the flip completes.
    var isFramePending: Bool { get }
    /// The time between refreshes of the display in seconds, or nil where there is no refresh
    /// to pace to (headless).
    var refreshInterval: Double? { get }
}

/// What a backend reports after handling the events on its `eventDescriptor`.
public struct BackendEvents: Sendable, Equatable {
    /// When each frame that reached the screen since the last call showed, oldest first, in
    /// seconds of CLOCK_MONOTONIC (the page-flip event's time, or when the event was read where
    /// the device gives no real vblank time).
    public var presented: [Double]
    /// The outputs changed (a display was connected, or turned back on): draw the current
    /// state again even though nothing in the tree changed.
    public var needsRedraw: Bool

    public init(presented: [Double] = [], needsRedraw: Bool = false) {
        self.presented = presented
        self.needsRedraw = needsRedraw
    }
}

/// What a display backend adds for frame pacing (weston's repaint loop): backends that show
/// frames asynchronously (KMS page flips) override these; the defaults describe a synchronous
/// backend such as headless, which needs none of them.
extension DisplayBackend {
    public var eventDescriptor: Int32? { nil }
    public func dispatchEvents() throws -> BackendEvents { BackendEvents() }
    public var isFramePending: Bool { false }
    public var refreshInterval: Double? { nil }
}
