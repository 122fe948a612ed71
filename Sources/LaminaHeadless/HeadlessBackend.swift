import LaminaCore
import LaminaCompositor
import LaminaProtocol

/// Why the headless backend could not present a frame.
public enum HeadlessBackendError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The draw list's size is not the output's (a frame drawn for the size before a mode change).
    case sizeMismatch(listWidth: Int, listHeight: Int, outputWidth: Int, outputHeight: Int)

    public var description: String {
        switch self {
        case let .sizeMismatch(lw, lh, ow, oh):
            "cannot present a \(lw)×\(lh) draw list on the \(ow)×\(oh) headless output"
        }
    }
}

/// A display backend with no display: frames are drawn into offscreen buffers and stay there
/// to be read back (weston's headless backend, for pixel tests, benchmarks and CI machines
/// without a GPU). It has one output, `HeadlessOutput`, covering the display.
///
/// The buffers come from the renderer's side (a `RenderTargetAllocator`; laminad's draws with
/// OpenGL ES), so this module knows no GL. Like the renderer that draws into its buffers, a
/// backend must be used on the thread that created it.
public final class HeadlessBackend: DisplayBackend {
    /// The one output: `bufferCount` offscreen buffers drawn in turn.
    public let output: HeadlessOutput
    /// Whether frames redraw only their damage; false draws every frame whole.
    public var damageTracking = true

    /// The most buffers a headless output rotates.
    public static let maximumBuffers = 4

    /// Creates a `width` × `height` offscreen output of `buffers` buffers (1 to
    /// `maximumBuffers`), which `allocator` makes.
    public init(width: Int, height: Int, buffers: Int = 1, allocator: any RenderTargetAllocator) throws {
        let count = min(max(1, buffers), Self.maximumBuffers)
        output = HeadlessOutput(buffers: try (0..<count).map { _ in try allocator.makeBuffer(width: width, height: height) },
                                allocator: allocator)
    }

    /// "headless".
    public var name: String { "headless" }
    /// The desktop's width in points: the output's right edge (its position, its mode turned
    /// by its transform and divided by its scale).
    public var width: Int { Int(output.layoutRect.maxX.rounded()) }
    /// The desktop's height in points.
    public var height: Int { Int(output.layoutRect.maxY.rounded()) }
    /// The one output.
    public var outputs: [any Output] { [output] }

    /// Changes the output (`laminactl output headless mode|transform|scale|position …`): a mode
    /// gives it new buffers of that size (any size; a refresh is refused, as nothing paces
    /// headless frames); a transform, scale or position changes how the desktop maps onto them.
    /// Its one output cannot be disabled.
    public func configure(_ change: OutputChange, output name: String) throws {
        guard name == output.name else { throw UnknownOutput(name: name, known: outputNames, backend: self.name) }
        switch change {
        case .none:
            break
        case .mode(let mode):
            guard mode.refresh == 0 else {
                throw OutputChangeRefused("a headless output shows frames at once and has no refresh: give the mode as \(mode.width)x\(mode.height), without @\(mode.refresh)")
            }
            try output.resize(width: Int(mode.width), height: Int(mode.height))
        case .transform(let text):
            guard let transform = OutputTransform(rawValue: text) else { throw OutputChangeRefused("unknown transform '\(text)'") }
            output.place(transform: transform)
        case .scale(let scale):
            output.place(scale: scale)
        case let .position(x, y):
            output.place(origin: Point(x: Double(x), y: Double(y)))
        case .brightness:
            throw OutputChangeRefused("a headless output has no backlight of its own: laminad sets brightness through /sys/class/backlight")
        case .enabled(let on):
            guard on else { throw OutputChangeRefused("the headless backend's one output cannot be disabled") }
        }
    }

    /// How many frames have been presented.
    public var framesPresented: Int { output.framesPresented }
    /// What the frames drew.
    public var damageStatistics: DamageStatistics { output.damageStatistics }

    /// Checks that `list` is the desktop's size.
    public func checkSize(of list: DrawList) throws(HeadlessBackendError) {
        guard list.width == width, list.height == height else {
            throw .sizeMismatch(listWidth: list.width, listHeight: list.height, outputWidth: width, outputHeight: height)
        }
    }
}

/// The headless backend's output: like a swapchain, it rotates its buffers, and a frame's
/// buffer age says how many frames ago it was last drawn, so frames redraw only what their
/// buffer lacks and tests exercise the same history a KMS output's EGL surface has
/// (`laminad --buffers N`). A frame shows as soon as it is committed.
public final class HeadlessOutput: Output {
    /// The offscreen buffers frames are drawn into, in turn.
    public private(set) var buffers: [any OffscreenBuffer]
    /// Where they came from, told of every frame presented (it paces the renderer's work).
    private let allocator: any RenderTargetAllocator
    /// How many frames have been committed.
    public private(set) var framesPresented = 0
    public var damage = DamageTracker()
    public var damageStatistics = DamageStatistics()
    /// The buffer presented last (where screenshots are read), the one being drawn, and when
    /// each was last drawn (in frames presented).
    private var current = 0
    private var drawing: Int?
    private var drawnAt: [Int?]

    /// `buffers`: at least one, all of the same size, made by `allocator`.
    init(buffers: [any OffscreenBuffer], allocator: any RenderTargetAllocator) {
        self.buffers = buffers
        self.allocator = allocator
        drawnAt = [Int?](repeating: nil, count: buffers.count)
    }

    /// The buffer presented last (the first before any frame).
    public var presentedBuffer: any OffscreenBuffer { buffers[current] }
    /// "headless".
    public var name: String { "headless" }
    /// Its top-left corner in the desktop, in points.
    public private(set) var origin = Point(x: 0, y: 0)
    public private(set) var scale = 1.0
    public private(set) var transform = OutputTransform.normal
    /// Where it sits in the desktop: its mode turned by its transform, divided by its scale.
    public var layoutRect: Rect {
        let turned = transform.logicalSize(width: pixelWidth, height: pixelHeight)
        return Rect(x: origin.x, y: origin.y, width: (Double(turned.width) / scale).rounded(),
                    height: (Double(turned.height) / scale).rounded())
    }
    public var pixelWidth: Int { buffers[0].width }
    public var pixelHeight: Int { buffers[0].height }
    /// Nothing paces headless frames: they show when committed.
    public var refreshInterval: Double? { nil }
    public var isOn: Bool { true }
    public func setPower(_ on: Bool) throws { throw PowerUnsupported(backend: "headless") }
    public var isFramePending: Bool { false }

    /// A new place in the desktop or a new mapping onto the buffers: their content no longer
    /// matches what a frame would draw, so the next frames are drawn whole.
    func place(origin: Point? = nil, scale: Double? = nil, transform: OutputTransform? = nil) {
        if let origin { self.origin = origin }
        if let scale { self.scale = scale }
        if let transform { self.transform = transform }
        drawnAt = [Int?](repeating: nil, count: buffers.count)
        damage = DamageTracker()
    }

    /// New buffers of `width` × `height`, as many as before, of unknown content: the next
    /// frames are drawn whole. The buffers before are kept where the allocator fails.
    func resize(width: Int, height: Int) throws {
        let fresh = try buffers.map { _ in try allocator.makeBuffer(width: width, height: height) }
        buffers = fresh
        drawing = nil
        drawnAt = [Int?](repeating: nil, count: buffers.count)
        damage = DamageTracker()
    }

    /// The next buffer in turn, and its age: 1 for the buffer drawn last frame, 0 for one never
    /// drawn, or whose last frame was begun but never committed.
    public func beginFrame() throws -> OutputFrame {
        if let drawing { drawnAt[drawing] = nil }
        let next = framesPresented == 0 ? 0 : (current + 1) % buffers.count
        drawing = next
        let age = drawnAt[next].map { framesPresented + 1 - $0 } ?? 0
        return OutputFrame(target: buffers[next], bufferAge: age)
    }

    /// The buffer drawn becomes the frame presented.
    public func commit(damage: DamageRegion?) throws {
        guard let next = drawing else { return }
        drawing = nil
        allocator.framePresented()
        framesPresented += 1
        drawnAt[next] = framesPresented
        current = next
    }

    /// The buffer presented last, as drawn; nil before the first frame.
    public func readPresented() throws -> Bitmap? {
        framesPresented == 0 ? nil : try presentedBuffer.read()
    }
}
