import LaminaCore
import LaminaProtocol
import Logging

/// The server without its sockets: sessions, the display's model tree, commits, requests and
/// frames. laminad's event loop feeds it bytes and sends what it asks to send; tests and
/// benchmarks can drive it directly.
public final class Compositor {
    public struct Configuration: Sendable {
        public var limits = ClientLimits()
        /// The largest frame body a client may send, in bytes.
        public var frameLimit = 16 << 20
        /// The largest frame body before a client has said hello: a hello is small, and bytes
        /// from a peer that has not said who it is must not pile up.
        public var helloFrameLimit = 64 << 10
        /// A commit with more operations than this is applied this many at a time, one step per
        /// turn of the loop, to a copy of the client's tree (shown whole when done): other
        /// clients wait at most one step (about 8 ms in a release build).
        public var commitStepOperations = 2048
        public var background: Color = .black
        /// The picture found on the displays at start: kept under the scene or faded out (`[boot]`).
        public var boot = BootSettings()
        /// Videos decoded at once, over all clients (each is a GStreamer pipeline with its
        /// threads); a create-video past it is an error event to that client.
        public var maxVideos = 4
        /// With a virtual clock, how long a frame waits for a video's picture to be decoded
        /// (real seconds): long enough for any small clip, bounded for a stream that never answers.
        public var videoFrameWait = 5.0
        /// How long before a refresh a page-flipping output starts drawing (weston's repaint window).
        public var repaintWindow = 0.007
        /// The refresh rate display links follow where no output paces frames and the clock is
        /// virtual (laminad's `refresh`, 60 by default); the real clock's own rate otherwise.
        public var displayLinkRefreshRate = 60.0
        /// When the process started (CLOCK_MONOTONIC seconds), for the time-to-first-frame log line.
        public var startTime: Double?
        public init() {}
    }

    public let configuration: Configuration
    public internal(set) var model: ModelTree
    public internal(set) var clock: FrameClock
    public let backend: any DisplayBackend
    /// The frame step onto the backend's outputs, with the renderer; it keeps the last desktop
    /// for screenshots.
    public let presenter: FramePresenter
    let logger: Logger
    /// Seconds of the real clock, supplied by the platform (CLOCK_MONOTONIC).
    let realTime: () -> Double

    var sessions: [ClientID: Session] = [:]
    var nextClient: UInt32 = 1
    // Render-tree animations (CompositorAnimations.swift).
    var nextAnimationID: UInt64 = 1
    var animationRecords: [UInt64: AnimationRecord] = [:]
    var groupCounts: [GroupKey: Int] = [:]
    /// Reused each frame for the events of one layer's animations.
    var frameEvents: [AnimationEvent] = []
    /// Each client's animations and layers on their way out, by entry serial: the presentation
    /// side of the display, kept apart from its model (`model`). An entry's state is made
    /// with its first animation and goes with the entry.
    public internal(set) var animationStates: [EntrySerial: AnimationState] = [:]
    /// The old renderings of transitions in progress (the render side's, RenderTransitions.swift).
    var transitionSnapshots = TransitionSnapshots()
    /// What commits since the last frame replaced on layers that transitions now animate: the
    /// next frame draws their old renderings (CompositorFrames.swift, `drawReplacedRenderings`).
    var replacedRenderings: [ReplacedRendering] = []
    /// The display's layout as clients were last told it (`display-changed`, CompositorOutputs.swift).
    var announcedDisplay: DisplayLayout
    /// Connections that asked to `watch` events.
    var watchers: Set<ClientID> = []
    /// Input routing (CompositorInput.swift).
    var input = CompositorInput()
    /// Hosted app windows and the clients managing them (CompositorApps.swift).
    var apps = HostedApps()
    /// Big commits being applied a step at a time (CompositorStaging.swift).
    var staged: [ClientID: StagedCommit] = [:]
    /// The platform that runs the compositor: sends, closes, budgets, the journal, input
    /// routing, display power (`CompositorHost`). Until one is set, nothing is sent.
    public weak var host: (any CompositorHost)?
    /// Moves whenever a named session changes (a commit, a client arriving or leaving): the
    /// platform rewrites the session journal when it has moved (CompositorJournal.swift).
    public internal(set) var journalGeneration: UInt64 = 0
    func sessionsChanged() {
        journalGeneration &+= 1
        host?.sessionsChanged()
    }

    /// When frames go out: the pending reasons and each output's repaint state
    /// (CompositorFrames.swift).
    public internal(set) var repaint: RepaintLoop
    /// The platform's timer for the repaint loop; when it fires, the platform calls `frameDue()`.
    let frameTimer: any FrameTimer
    /// Requests waiting for the next frame (a screenshot while an output awaits its flip).
    var frameWaiters: [FrameWaiter] = []
    /// The clients' display links (`DisplayLinks.swift`): frame messages after each frame.
    public internal(set) var displayLinks = DisplayLinks()
    /// Times the repaint loop armed the frame timer (`stats`: `repaint.wakeups`).
    var timerArmings: UInt64 = 0
    /// Frames the outputs showed, one per output: page flips completed, and frames shown at once
    /// (a modeset, headless) (`stats display.framesPresented`).
    var framesPresented: UInt64 = 0
    /// The first frame reached the screen (logged once).
    var firstFrameShown = false
    /// Receives every presented frame (`laminad --frames-dir`); nil records nothing.
    public var frameRecorder: (any FrameRecording)?
    /// The renderer's refusal to import dma-buf pictures was logged.
    var videoImportRefusalLogged = false
    /// Sends bytes to a client (the host queues them).
    func send(_ client: ClientID, _ bytes: [UInt8]) { host?.send(bytes, to: client) }
    /// Draws shape and text layers on the CPU (laminad sets LaminaRaster's `ServerRasterizer`);
    /// without one they show only their background and border.
    public var layerRasters: (any LayerRasterizing)?
    /// Registers the font files clients send (LaminaRaster's `FontconfigRegistry` in laminad);
    /// without one `register-font` is refused.
    public var fontRegistry: (any FontRegistry)?
    /// Static top-level subtrees' draw commands, kept from frame to frame (`RenderListCache`).
    public let renderCache = RenderListCache()
    /// Decodes clients' videos (LaminaVideo's `GStreamerVideo` in laminad); without it,
    /// create-video is answered with an error event.
    public var videoDecoding: (any VideoDecoding)?
    /// Videos with a decoder, oldest first (CompositorVideo.swift).
    var liveVideos: [VideoSurface] = []
    /// Animated images still changing frame (CompositorAnimatedImages.swift).
    var liveAnimatedImages: [EncodedImage] = []
    /// Decodes the SVG, GIF and WebP files clients send (create-encoded-image); nil refuses them.
    public var imageDecoder: (any EncodedImageDecoding)? {
        get { model.imageDecoder }
        set { model.imageDecoder = newValue }
    }

    public internal(set) var stats = Counters()
    /// The display time of the last frame drawn.
    public internal(set) var lastFrameTime: Double = 0

    public struct Counters: Sendable {
        public var framesRendered: UInt64 = 0
        public var commitsApplied: UInt64 = 0
        public var commitsRejected: UInt64 = 0
        public var clientsDropped: UInt64 = 0
        public var lastFrameSeconds: Double = 0
        /// Frames in which some client's tree was cut at the per-frame draw budget.
        public var truncatedFrames: UInt64 = 0
        /// Commits applied a step at a time (over `commitStepOperations` operations), and steps.
        public var commitsStaged: UInt64 = 0
        public var stagedSteps: UInt64 = 0
        /// Tiles asked of clients (tiles-wanted messages' tiles).
        public var tilesRequested: UInt64 = 0
    }
    /// Trees whose truncation was logged (once each).
    var truncationReported: Set<EntrySerial> = []
    /// Emitter layers that shed in the last frame: their picture changes with the clock alone.
    var liveEmitters = 0
    /// A tile faded in during the last frame: the picture changes with the clock alone.
    var tilesFading = false
    /// The pictures the outputs showed at start, until they have faded out (`[boot] handoff`);
    /// nil where there were none.
    var bootHandoff: BootHandoff?

    /// `presenter`: the frame step, with the backend and the renderer the platform wired.
    /// `frameTimer`: the platform's timer the repaint loop arms (by default one that only
    /// remembers, for a compositor whose frames are drawn with `flushFrame()`).
    public init(presenter: FramePresenter, clock: FrameClock, configuration: Configuration = Configuration(),
                logger: Logger = Logger(label: "lamina.server"), frameTimer: any FrameTimer = ManualFrameTimer(),
                realTime: @escaping () -> Double) {
        let backend = presenter.backend
        self.backend = backend
        self.presenter = presenter
        self.clock = clock
        self.frameTimer = frameTimer
        repaint = RepaintLoop(pacing: clock.pacing, repaintWindow: configuration.repaintWindow)
        repaint.setOutputs(backend.pagedOutputs)
        self.configuration = configuration
        self.logger = logger
        self.realTime = realTime
        model = ModelTree(width: backend.width, height: backend.height, background: configuration.background)
        announcedDisplay = backend.displayLayout
        takeBootPictures()
    }

    /// The time the next frame shows.
    public var now: Double { clock.now(realTime: realTime()) }

    public var clientCount: Int { sessions.count }

    /// `ops` without the property sets a client of protocol minor version `minor` could not
    /// decode (a 1.3 client adopting a session a 1.4 client made), and with the layer kinds it
    /// does not know (an emitter or a scroll layer, 1.7) created as plain layers.
    static func operations(_ ops: [Operation], forMinor minor: UInt16) -> [Operation] {
        guard minor < ProtocolVersion.minor else { return ops }
        return ops.compactMap { op in
            switch op {
            case let .set(_, key, _): key.minorVersion <= minor ? op : nil
            case let .create(id, kind) where kind.minorVersion > minor: .create(id, kind: .layer)
            default: op
            }
        }
    }

    /// The minor protocol version `client` said hello with.
    func sessionMinor(_ client: ClientID) -> UInt16? { sessions[client]?.minor }
}

/// A request named an output the display backend does not have.
public struct UnknownOutput: Error, CustomStringConvertible {
    public var name: String
    /// The outputs there are.
    public var known: [String]
    public var backend: String
    public init(name: String, known: [String], backend: String) {
        self.name = name
        self.known = known
        self.backend = backend
    }
    public var description: String {
        "there is no output named '\(name)' ("
            + (known.isEmpty ? "the \(backend) backend has no outputs now" : "outputs: \(known.joined(separator: ", "))") + ")"
    }
}

extension FrameError {
    var isTooLarge: Bool { if case .tooLarge = self { true } else { false } }
}
