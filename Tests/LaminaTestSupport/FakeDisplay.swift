import LaminaCore
import LaminaCompositor
import LaminaProtocol

/// A display backend, its outputs and a renderer that only record what they are asked (no GL,
/// no KMS): for the frame step, the repaint loop and the compositor's requests, tested without
/// EGL. Outputs with a refresh interval page-flip: a committed frame stays pending until the
/// test completes its flip (`FakeBackend.completeFlips`), as a KMS output's does.

/// Every call the backend, its outputs and the renderer receive, in order.
public final class CallJournal {
    public var calls: [String] = []
    /// False keeps nothing (the fuzzer draws millions of frames).
    public var isRecording = true
    public init() {}
    public func note(_ call: @autoclosure () -> String) {
        if isRecording { calls.append(call()) }
    }
}

/// Where a fake output's frame is drawn: only its size. Read back, it is transparent black.
public final class FakeTarget: OffscreenBuffer {
    public let width: Int, height: Int
    public init(width: Int, height: Int) { (self.width, self.height) = (width, height) }
    public func read() throws -> Bitmap { Bitmap(width: width, height: height) }
}

/// Makes fake targets, and counts the frames presented into them.
public final class FakeAllocator: RenderTargetAllocator {
    public let journal: CallJournal
    public private(set) var framesPresented = 0
    public init(journal: CallJournal) { self.journal = journal }
    public func makeBuffer(width: Int, height: Int) throws -> any OffscreenBuffer {
        journal.note("allocate \(width)x\(height)")
        return FakeTarget(width: width, height: height)
    }
    public func framePresented() { framesPresented += 1 }
}

public final class RecordingRenderer: Renderer {
    public let journal: CallJournal
    /// Draws into a target this wide fail.
    public var failOn: String?
    /// Each draw's list and damage, by output (the target's width names it here).
    public var draws: [(list: DrawList, damage: DamageRegion?)] = []
    public init(journal: CallJournal) { self.journal = journal }
    public var name: String { "recording" }
    public func draw(_ list: DrawList) throws {}
    public func draw(_ list: DrawList, into target: any RenderTarget, damage: DamageRegion?) throws {
        journal.note("draw \(target.width)x\(target.height)")
        if journal.isRecording { draws.append((list, damage)) }
        if let failOn, target.width == Int(failOn) { throw ScreenshotUnavailable(reason: "draw failed") }
    }
    public func readPixels() throws -> Bitmap { Bitmap(width: 1, height: 1) }
}

public final class FakeOutput: Output {
    public let name: String
    public var layoutRect: Rect
    public var pixelWidth: Int, pixelHeight: Int
    public var scale: Double = 1
    public var transform: OutputTransform = .normal
    public var refreshInterval: Double? = 1.0 / 60
    public var isOn = true
    public var isFramePending = false
    /// Commits leave the frame pending until its flip completes (a KMS output); false: shown at once.
    public var flips = false
    public var damage = DamageTracker()
    public var damageStatistics = DamageStatistics()
    public var bufferAge = 1
    public var committed: [DamageRegion?] = []
    public var presented: Bitmap?
    public let journal: CallJournal
    public init(_ name: String, _ rect: Rect, journal: CallJournal) {
        self.name = name
        layoutRect = rect
        pixelWidth = Int(rect.width)
        pixelHeight = Int(rect.height)
        self.journal = journal
    }
    public func setPower(_ on: Bool) throws { isOn = on }
    public func beginFrame() throws -> OutputFrame {
        journal.note("begin \(name)")
        return OutputFrame(target: FakeTarget(width: pixelWidth, height: pixelHeight), bufferAge: bufferAge)
    }
    public func commit(damage: DamageRegion?) throws {
        journal.note("commit \(name)")
        if flips { isFramePending = true }
        guard journal.isRecording else { return }
        committed.append(damage)
        presented = Bitmap(width: pixelWidth, height: pixelHeight, fill: (1, 2, 3, 255))
    }
    public func readPresented() throws -> Bitmap? { presented }
    /// Overlay planes: what the output offers, what its driver would say, what it was given.
    public var planes: [OverlayPlane] = []
    public var refusal: String?
    public var scanouts: [PlaneScanout?] = []
    public var overlayPlanes: [OverlayPlane] { planes }
    /// The picture the output showed at start (a boot splash), taken once by the compositor.
    public var bootPicture: Bitmap?
    public var tookOverWithoutModeset = false
    public func takeBootPicture() -> (bitmap: Bitmap, origin: String)? {
        defer { bootPicture = nil }
        return bootPicture.map { ($0, "\($0.width)x\($0.height) from a fake CRTC") }
    }
    public func scanOut(_ scanout: PlaneScanout?) -> String? {
        scanouts.append(scanout)
        return scanout == nil ? nil : refusal
    }
}

public final class FakeBackend: DisplayBackend {
    public let journal = CallJournal()
    public lazy var recording = RecordingRenderer(journal: journal)
    public lazy var allocator = FakeAllocator(journal: journal)
    public var fakes: [FakeOutput] = []
    public var outputs: [any Output] { fakes }
    public var name: String { "fake" }
    public var width: Int { fakes.map { Int($0.layoutRect.maxX) }.max() ?? 0 }
    public var height: Int { fakes.map { Int($0.layoutRect.maxY) }.max() ?? 0 }
    public var damageTracking = true
    /// False: the fakes keep no journal, draws or frames (the fuzzer).
    public var recordsCalls: Bool {
        get { journal.isRecording }
        set { journal.isRecording = newValue }
    }
    /// Whether outputs can be blanked (the flipping fakes can, as KMS's).
    public var canSetPower = false
    /// Where the cursor was asked to show, in order (nil: hidden).
    public var cursorRequests: [Point?] = []
    /// Whether a cursor change needs a frame to show (a cursor the renderer draws); false: it
    /// showed at once (a cursor plane).
    public var cursorNeedsFrame = false
    public init() {}
    /// Where set, a mode change is refused with this reason (a driver that will not).
    public var modeRefusal: String?
    /// Resizes the named fake to a mode (its rectangle keeps its origin), or moves it; other
    /// changes are journalled only.
    public func configure(_ change: OutputChange, output name: String) throws {
        if let modeRefusal { throw OutputChangeRefused(modeRefusal) }
        guard let o = fakes.first(where: { $0.name == name }) else { throw UnknownOutput(name: name, known: outputNames, backend: self.name) }
        switch change {
        case .mode(let mode):
            o.pixelWidth = Int(mode.width)
            o.pixelHeight = Int(mode.height)
            o.layoutRect = Rect(x: o.layoutRect.minX, y: o.layoutRect.minY, width: Double(mode.width), height: Double(mode.height))
        case let .position(x, y):
            o.layoutRect.origin = Point(x: Double(x), y: Double(y))
        default:
            break
        }
        // "mode A 96x64", "transform A 90": the change's verb, the name, its value.
        let words = change.description.split(separator: " ", maxSplits: 1).map(String.init)
        journal.note(([words[0], name] + words.dropFirst()).joined(separator: " "))
    }
    public func setCursor(_ position: Point?) -> Bool {
        cursorRequests.append(position)
        return cursorNeedsFrame
    }
    public func beginCommit() { journal.note("begin commit") }
    public func flushCommit() throws { journal.note("flush") }

    /// The frame step over these outputs, drawing with the recording renderer; screenshots it
    /// redraws go into the fake allocator's targets.
    public func makePresenter() -> FramePresenter {
        FramePresenter(backend: self, renderer: recording, offscreen: allocator)
    }

    /// Outputs side by side, `width` × `height` each, that page-flip at 60 Hz.
    public static func flipping(_ names: [String], width: Int = 64, height: Int = 48) -> FakeBackend {
        let backend = FakeBackend()
        backend.canSetPower = true
        for (i, name) in names.enumerated() {
            let o = FakeOutput(name, Rect(x: Double(i * width), y: 0, width: Double(width), height: Double(height)), journal: backend.journal)
            o.flips = true
            backend.fakes.append(o)
        }
        return backend
    }

    /// The named outputs' pending flips complete at `time`: the events the backend reports.
    public func completeFlips(_ names: [String], at time: Double) -> BackendEvents {
        var events = BackendEvents()
        for o in fakes where names.contains(o.name) && o.isFramePending {
            o.isFramePending = false
            events.presented.append(BackendEvents.Presentation(output: o.name, time: time))
        }
        return events
    }
}
