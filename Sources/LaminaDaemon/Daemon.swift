#if canImport(Glibc)
import Glibc
#endif
import LaminaCore
import LaminaGLES
import LaminaImage
import LaminaInput
import LaminaKMS
import LaminaPlatform
import LaminaProtocol
import LaminaRaster
import LaminaCompositor
import LaminaVideo
import LaminaWayland
import Logging

/// laminad's wiring: the event loop, the listening socket, client connections, the frame clock
/// and signals, around a `Compositor`.
public final class Daemon {
    public struct Options: Sendable {
        public var socketPath: String
        public var clock: FrameClock.ClockKindSetting
        /// Write every presented frame as a numbered PNG here (headless demo output).
        public var framesDirectory: String?
        public var compositor = Compositor.Configuration()
        /// Bytes a slow client may leave unread before it is dropped.
        public var maxQueuedBytes = 128 << 20
        /// Above this many unread bytes, laminad stops handling a client's requests until it
        /// reads (backpressure); the client's socket buffer then fills and its writes block.
        public var pauseQueuedBytes = 4 << 20
        /// Once paused, a client is read again when its unread bytes are down to this many
        /// (the low watermark; at most `pauseQueuedBytes`).
        public var resumeQueuedBytes = 1 << 20
        /// Unread bytes over all clients; past it the client with the most unread is dropped.
        public var maxTotalQueuedBytes = 512 << 20
        /// Frames handled for one client per turn of the event loop, and bytes read for it.
        public var framesPerTurn = 64
        public var bytesPerTurn = 256 << 10
        /// Seconds a connection may take to say hello.
        public var handshakeTimeout = 5.0
        /// A listening socket passed by socket activation, used instead of binding `socketPath`.
        public var listenerDescriptor: Int32?
        /// How long before a refresh a page-flipping backend starts rendering (weston's repaint window).
        public var repaintWindow = 0.007
        /// Blank the displays after this many seconds without a change; nil never blanks
        /// (`[power] blank_after`, formerly `[display] idle_blank`).
        public var idleBlankSeconds: Double?
        /// Dim the backlights after this many seconds without a change (0: never) to
        /// `dimToPercent` of their level (`[power] dim_after`, `dim_to`).
        public var dimAfterSeconds = 0.0
        public var dimToPercent = 30.0
        /// Outputs whose TV is switched through an HDMI-CEC adapter (`[[power.cec]]`).
        public var cec: [CECOutputSetting] = []
        /// The sysfs tree backlights are found in (nil: $LAMINA_SYSFS_ROOT, for tests, else /sys).
        public var sysfsRoot: String?
        /// A cursor is configured (`[display] cursor`): pointer motion moves it, touches hide it.
        public var cursor = false
        /// Hide the cursor after this many seconds without pointer motion; 0 never does.
        public var cursorHideSeconds = 5.0
        /// When the process started (CLOCK_MONOTONIC seconds), for the time-to-first-frame log line.
        public var startTime: Double?
        /// Permissions, owner and group applied to the socket file laminad binds (not to a passed one).
        /// 0660 unless configured: applied after binding, whatever the umask.
        public var socketMode: UInt32? = 0o660
        public var socketOwner: UInt32?
        public var socketGroup: UInt32?
        /// Members of this group are privileged, besides root and the socket's owner
        /// (docs/protocol.md, "Authorisation").
        public var privilegedGroup: UInt32?
        /// Where kept sessions are journalled, to come back after a restart (nil: nowhere).
        public var sessionJournal: String?
        /// Seconds between a change to a kept session that no client is told of (a client
        /// leaving, a scroll) and the journal write that records it. A change a client is told
        /// of (a commit's `applied`) is written at the end of the loop's turn, before the reply.
        public var journalDelay = 0.5
        /// Seconds between a client leaving and the heap's free pages going back to the kernel
        /// (`HeapTrimmer`); disconnects meanwhile share the trim.
        public var heapTrimDelay = 1.0
        /// Seconds of real time a video's source has to give its first picture before it is an
        /// error event (`[video] open_timeout`): a server that accepts and never sends.
        public var videoOpenTimeout = 10.0
        /// Seconds a playing video may go without a newer picture before it is an error event
        /// (`[video] stall_timeout`; 0: never): a stream that stopped sending mid-way.
        public var videoStallTimeout = 10.0
        /// Who converts planar YUV video pictures (`[video] yuv`): the renderer's shader, the
        /// decoder's videoconvert, or (nil, "auto") whichever the renderer prefers.
        public var videoYUVInRenderer: Bool?
        /// Where videos' sound goes (`[audio] sink`): "auto" (autoaudiosink: ALSA, PulseAudio
        /// or PipeWire, whatever the system has), "none" (no sound is decoded), or a GStreamer
        /// bin description ("alsasink device=hw:1,0", "wavenc ! filesink location=/tmp/x.wav").
        public var audioSink = "auto"
        /// Input devices and the keymap (`[input]`).
        public var input = InputSettings()
        /// The Wayland server (`[wayland]`, WaylandHost.swift).
        public var wayland = WaylandSettings()
        /// The configuration file laminad read (`--config`), read again at SIGHUP; nil: none.
        public var configurationFile: String?
        /// Its `[[output]]` settings (with `--output`'s) as laminad started with them.
        public var outputs: [OutputConfiguration] = []

        /// The journal's default place: beside the socket, named after it
        /// (`/run/lamina/laminad.sock` → `/run/lamina/laminad.sessions`).
        public static func defaultSessionJournal(socketPath: String) -> String {
            (socketPath.hasSuffix(".sock") ? String(socketPath.dropLast(5)) : socketPath) + ".sessions"
        }

        public init(socketPath: String, clock: FrameClock.ClockKindSetting, framesDirectory: String? = nil) {
            self.socketPath = socketPath
            self.clock = clock
            self.framesDirectory = framesDirectory
        }
    }

    let options: Options
    let logger: Logger
    let loop: EventLoop
    let compositor: Compositor
    /// The clients' connections (ClientTransport.swift).
    private var transport: ClientTransport!
    /// The repaint loop's timer (the compositor arms it; it calls `Compositor.frameDue`).
    private var frameTimer: DaemonFrameTimer!
    private var signals: SignalSource?
    /// SIGINT and SIGTERM stop laminad; SIGUSR1 blanks the displays and SIGUSR2 lights them;
    /// SIGHUP reads the configuration's `[[output]]` settings again (`OutputSettingsKeeper`).
    private static let handledSignals = [SIGINT, SIGTERM, SIGUSR1, SIGUSR2, SIGHUP]
    /// Outputs changed at run time, kept across restarts, and SIGHUP's reload.
    private(set) var outputSettings: OutputSettingsKeeper!
    private let ownsSocketPath: Bool
    private var watchdogTimer: LoopTimer?
    /// When the displays are lit and blanked (DisplayPowerPolicy.swift).
    private(set) var power: DisplayPowerPolicy!
    /// Where a cursor is configured: when it shows (`CursorPolicy.swift`).
    private(set) var cursor: CursorPolicy?
    /// The outputs' backlights (`display brightness`, idle dimming; OutputBacklights.swift).
    private(set) var backlights: OutputBacklights!
    /// The TVs of outputs with an HDMI-CEC adapter (OutputCEC.swift); nil: none configured.
    private(set) var cec: OutputCEC?
    private var journal: SessionJournalStore?
    private var journalTimer: LoopTimer?
    private var journalWriteArmed = false
    /// The delayed write came due while another was on its way: it follows that one.
    private var journalWriteWanted = false
    /// Replies about kept sessions' changes waiting for the journal (group commit).
    private var acknowledgements = JournalAcknowledgements()
    private var groupCommitQueued = false
    /// Input devices and the keymap (InputDeviceHost.swift).
    var inputHost: InputDeviceHost?
    private var heapTrimmer: HeapTrimmer?
    /// Wayland clients (WaylandHost.swift); nil when off.
    private(set) var wayland: WaylandHost?

    /// `display`: the backend wired to its renderer (`openDisplay`).
    public init(display: FramePresenter, options: Options, logger: Logger) throws {
        let backend = display.backend, renderer = display.renderer
        self.options = options
        self.logger = logger
        // Before GStreamer and restored sessions' videos start threads (see `SignalSource.block`).
        try SignalSource.block(Self.handledSignals)
        loop = try EventLoop()
        let timer = try DaemonFrameTimer(loop: loop)
        var configuration = options.compositor
        configuration.repaintWindow = options.repaintWindow
        configuration.startTime = options.startTime
        compositor = Compositor(presenter: display, clock: FrameClock(options.clock), configuration: configuration,
                                logger: logger, frameTimer: timer, realTime: { monotonicSeconds() })
        frameTimer = timer
        if let dir = options.framesDirectory { compositor.frameRecorder = PNGFrameRecorder(directory: dir) }
        // Shape and text layers are drawn on the CPU with cairo and pango.
        let rasterizer = ServerRasterizer()
        rasterizer.warn = { [logger] message in logger.warning("\(message)") }
        compositor.layerRasters = rasterizer
        // Font files clients send (register-font) join fontconfig's application fonts.
        compositor.fontRegistry = FontconfigRegistry()
        // SVG, GIF and WebP files clients send (create-encoded-image).
        compositor.imageDecoder = EncodedImageDecoder()
        // Clients' videos are decoded with GStreamer (installed before the journal is restored,
        // so restored sessions' videos play); its buses wake the loop through an eventfd.
        var videoDecoding: GStreamerVideo?
        do {
            let video = try GStreamerVideo()
            video.openTimeout = options.videoOpenTimeout
            video.stallTimeout = options.videoStallTimeout
            video.planarYUV = options.videoYUVInRenderer ?? renderer.planarVideo.preferred
            video.audioSink = options.audioSink == "none" ? nil : options.audioSink == "auto" ? "autoaudiosink" : options.audioSink
            // Under a watchdog (the unit's WatchdogSec), GStreamer starts here, before READY=1:
            // a registry scan (the first start after an install or an upgrade) takes seconds on a
            // small board, and at the first video it would block the loop past the watchdog and
            // get laminad killed mid-scan, at every restart again. Start-up counts against
            // TimeoutStartSec instead. Elsewhere it starts with the first video, so a laminad
            // that shows none pays nothing for it.
            if ServiceManager.watchdogInterval != nil {
                let started = monotonicSeconds()
                video.start()
                logger.info("video: GStreamer started before READY=1, in \(Int((monotonicSeconds() - started) * 1000)) ms")
            }
            videoDecoding = video
            compositor.videoDecoding = video
        } catch {
            logger.error("video decoding is off: \(error)")
        }
        if let dir = options.sessionJournal {
            do {
                let store = try SessionJournalStore(directory: dir, logger: logger)
                store.restore(into: compositor)
                journal = store
            } catch {
                logger.error("session journal \(dir): \(error); kept sessions will not survive a restart")
            }
        }
        let listener: FileDescriptor
        if let passed = options.listenerDescriptor {
            listener = FileDescriptor(owning: passed)
            try listener.setNonBlocking(true)
            ownsSocketPath = false
        } else {
            listener = try UnixSocket.listen(path: options.socketPath)
            ownsSocketPath = true
            if let mode = options.socketMode {
                try retryingEINTR("chmod \(options.socketPath)") { chmod(options.socketPath, mode_t(mode)) }
            }
            if options.socketOwner != nil || options.socketGroup != nil {
                // -1 leaves that id as it is.
                try retryingEINTR("chown \(options.socketPath)") {
                    chown(options.socketPath, options.socketOwner ?? UInt32.max, options.socketGroup ?? UInt32.max)
                }
            }
        }
        let budgets = ClientTransport.Budgets(
            maxQueuedBytes: options.maxQueuedBytes, pauseQueuedBytes: options.pauseQueuedBytes,
            resumeQueuedBytes: min(options.resumeQueuedBytes, options.pauseQueuedBytes), maxTotalQueuedBytes: options.maxTotalQueuedBytes,
            framesPerTurn: options.framesPerTurn, bytesPerTurn: options.bytesPerTurn, handshakeTimeout: options.handshakeTimeout)
        heapTrimmer = try HeapTrimmer(loop: loop, delay: options.heapTrimDelay, logger: logger)
        transport = try ClientTransport(listener: listener, budgets: budgets, heapTrimmer: heapTrimmer,
                                        peers: ClientTransport.PeerPolicy(socketOwner: options.socketOwner, privilegedGroup: options.privilegedGroup),
                                        loop: loop, compositor: compositor, logger: logger)
        wayland = WaylandHost.start(options: options, compositor: compositor, renderer: renderer, loop: loop, logger: logger)
        if let video = videoDecoding {
            try loop.add(video.wakeup) { [unowned self] _ in
                video.drainWakeup()
                compositor.pollVideos()
            }
            let yuv = options.videoYUVInRenderer.map { "[video] yuv = \($0 ? "renderer" : "decoder")" } ?? renderer.planarVideo.reason
            logger.info("video frames: \(video.uploadPath) (\(yuv)); dma-buf pictures: \(renderer.videoImport)")
        }
        if let journal {
            journal.written = try LoopWakeup(loop: loop) { [unowned self] in journalWritten() }
            journalTimer = try LoopTimer(loop: loop) { [unowned self] _ in
                journalWriteArmed = false
                writeJournal()
            }
        }
        outputSettings = OutputSettingsKeeper(compositor: compositor, options: options, logger: logger)
        if backend.canSetPower {
            compositor.setOutputRoots(backend.outputRoots)
        }
        timer.daemon = self
        compositor.host = self
        if let fd = backend.eventDescriptor {
            try loop.add(fd) { [unowned self] _ in backendEvents() }
        }
        signals = try SignalSource(loop: loop, signals: Self.handledSignals) { [unowned self] sig in
            switch sig {
            case SIGUSR1, SIGUSR2:
                // USR1 blanks, USR2 relights every display, like `laminactl display off|on`.
                do { try power.setPower(sig == SIGUSR2) } catch { logger.error("display \(sig == SIGUSR2 ? "on" : "off"): \(error)") }
            case SIGHUP:
                outputSettings.reload()
            default:
                logger.notice("signal \(sig): shutting down")
                ServiceManager.notify("STOPPING=1")
                loop.stop()
            }
        }
        if let interval = ServiceManager.watchdogInterval {
            watchdogTimer = try LoopTimer(loop: loop) { [unowned self] _ in watchdogTick() }
            try watchdogTimer?.arm(after: interval / 2, every: interval / 2)
        }
        let sysfsRoot = options.sysfsRoot ?? getenv("LAMINA_SYSFS_ROOT").map { String(cString: $0) } ?? "/sys"
        backlights = OutputBacklights(compositor: compositor, sysfs: SysfsBacklights(root: sysfsRoot), logger: logger)
        cec = OutputCEC.open(options.cec, loop: loop, logger: logger)
        power = try DisplayPowerPolicy(compositor: compositor, idleBlankSeconds: options.idleBlankSeconds,
                                       dimming: IdleDimming(afterSeconds: options.dimAfterSeconds, toPercent: options.dimToPercent),
                                       backlights: backlights, cec: cec, loop: loop, logger: logger)
        inputHost = InputDeviceHost.start(for: self)
        // Apps read keys with laminad's keymap: the seat's keyboard shares the compiled one.
        if let wayland, let inputHost {
            wayland.server.useKeymap(inputHost.keyboard.compiledKeymap, repeatRate: options.input.keyRepeat.rate,
                                     repeatDelay: options.input.keyRepeat.delayMilliseconds)
        }
        if options.cursor {
            cursor = try CursorPolicy(compositor: compositor, power: power, hideAfter: options.cursorHideSeconds, loop: loop, logger: logger)
        }
        logger.notice("listening on \(options.socketPath)\(ownsSocketPath ? "" : " (socket activation)"), backend \(backend.name) \(backend.width)x\(backend.height), renderer \(renderer.name)")
    }

    /// Serves until SIGINT or SIGTERM.
    public func run() throws {
        // Lights the displays with the background before any client connects (new outputs
        // owe a frame), and draws restored sessions.
        compositor.scheduleRepaint()
        ServiceManager.notify("READY=1\nSTATUS=listening on \(options.socketPath), backend \(compositor.backend.name)")
        try loop.run()
        if let journal {
            journal.flush()
            _ = journal.endWrite()
            journal.startWrite(compositor)
            journal.flush()
        }
        transport.closeAll()
        wayland?.close()
        if ownsSocketPath { unlink(options.socketPath) }
    }

    /// A hung display path (a flip that never completes) stops the pings, so systemd restarts laminad.
    private func watchdogTick() {
        if let since = compositor.repaint.flipPendingSince, monotonicSeconds() - since > 2 {
            logger.warning("a page flip has been pending for \(Int(monotonicSeconds() - since)) s: withholding the watchdog ping")
            return
        }
        ServiceManager.notify("WATCHDOG=1")
    }

    // MARK: Journal

    /// Starts a journal write, unless one is on its way: then it follows that one.
    private func writeJournal() {
        guard let journal else { return }
        if journal.writing != nil {
            journalWriteWanted = true
        } else if !journal.startWrite(compositor), let durable = journal.writtenGeneration {
            // Nothing changed since the last write, which is done: what waits is on disk.
            release(upTo: durable)
        }
    }

    /// A journal write ended (the writer thread woke the loop): the replies it covers go,
    /// and the next write starts if more wait. A failed write releases them too (it is
    /// logged and counted in stats): a disk that refuses must not stall its clients.
    private func journalWritten() {
        guard let journal, let ended = journal.endWrite() else { return }
        release(upTo: ended.generation)
        if journalWriteWanted || (acknowledgements.awaited ?? 0) > ended.generation {
            journalWriteWanted = false
            writeJournal()
        }
    }

    private func release(upTo generation: UInt64) {
        for (client, limit) in acknowledgements.journalHolds(generation) { transport.limitOutput(client, to: limit) }
    }

    // MARK: Frames

    /// Page flips and hotplug from the backend, for the repaint loop.
    private func backendEvents() {
        do { compositor.handle(try compositor.backend.dispatchEvents()) } catch {
            logger.error("display events: \(error)")
        }
    }
}

extension Daemon: CompositorHost {
    public func send(_ bytes: [UInt8], to client: ClientID) {
        if let wayland, client == wayland.kiosk.client { return wayland.kiosk.received(bytes) }
        transport.send(bytes, to: client)
    }
    public func close(_ client: ClientID) {
        if let wayland, client == wayland.kiosk.client {
            logger.error("wayland kiosk: the compositor closed its session")
            return
        }
        transport.close(client)
    }
    public func isHeldBack(_ client: ClientID) -> Bool { transport.isHeldBack(client) }

    /// The connections' counters and the journal's, for `stats`.
    public func platformStatistics() -> [Statistic] {
        var list = transport.statistics
        if let journal {
            list += journal.statistics(generation: compositor.journalGeneration)
            list.append(Statistic(name: "sessionJournal.acknowledgementsHeld", value: Double(acknowledgements.held)))
            list.append(Statistic(name: "sessionJournal.acknowledgementsWaiting", value: Double(acknowledgements.waiting)))
        }
        list += heapTrimmer?.statistics ?? []
        list += backlights?.statistics ?? []
        list += cec?.statistics ?? []
        list += wayland?.statistics ?? []
        list += ProgramBinaryCache.onThisThread?.statistics.map { Statistic(name: $0.name, value: $0.value) } ?? []
        return list
    }

    public func sessionsChanged() {
        guard journal != nil, !journalWriteArmed else { return }
        journalWriteArmed = true
        do { try journalTimer?.arm(after: options.journalDelay) } catch { logger.error("journal timer: \(error)") }
    }

    public func acknowledgementAwaitsJournal(_ client: ClientID) {
        guard journal != nil, let offset = transport.outputOffset(client) else { return }
        acknowledgements.hold(client, from: offset, until: compositor.journalGeneration)
        transport.limitOutput(client, to: acknowledgements.limit(of: client))
        guard !groupCommitQueued else { return }
        groupCommitQueued = true
        // One write for everything changed in this turn of the loop (after its last event).
        loop.afterCurrentEvent { [unowned self] in
            groupCommitQueued = false
            writeJournal()
        }
    }

    public func outputChanged(_ change: OutputChange, output: String) {
        outputSettings.record(change, output: output)
    }

    public func frameSubmitted() { wayland?.server.frameStarted() }
    public func framePresented(at time: Double) {
        guard let wayland else { return }
        wayland.server.windowsShown = compositor.appWindowsShown
        wayland.server.framePresented(at: time)
    }
    public func displayChanged(_ layout: DisplayLayout) { wayland?.describe(layout) }
    public func appsManaged(_ managed: Bool) { wayland?.setManaged(managed) }
    public func sizeApps(_ sizes: [UInt32: Size]) {
        for (app, size) in sizes { wayland?.server.configure(app: app, width: Int(size.width), height: Int(size.height)) }
    }
    public func appInput(_ input: AppInput) { wayland?.server.handleAppInput(input, at: compositor.now) }
    public func closeApp(_ app: UInt32) { wayland?.server.close(app: app) }

    public func routeInjected(_ action: InputAction, origin: InputOrigin) -> Bool {
        handleInput(action, origin: origin)
        return true
    }

    /// Injected keys are translated by the same keymap as the keyboard's.
    public var hasKeymap: Bool { true }
    public func keyAction(named name: String, pressed: Bool) -> InputAction? { inputHost?.keyAction(named: name, pressed: pressed) }

    /// `laminactl display brightness [OUTPUT] PERCENT`: activity (a dimmed backlight is
    /// restored first, so the new level is the one dimming starts from).
    public func setBrightness(_ percent: Double, output: String?) throws {
        power.activity()
        try backlights.setBrightness(percent, output: output)
    }

    /// `laminactl display off|on [OUTPUT]`; nil on a backend without outputs to blank.
    public func displayPower(_ on: Bool, output: String?) throws -> [OutputPower]? {
        guard compositor.backend.canSetPower else { return nil }
        return try power.setPower(on, output: output)
    }
}

/// The repaint loop's timer on laminad's event loop: a timerfd for a time, the end of the
/// current event for "soon". Firing is the one way into the compositor per frame.
private final class DaemonFrameTimer: FrameTimer {
    private let loop: EventLoop
    private var timer: LoopTimer!
    /// Set once the daemon is made; armings before then (restoring the journal) only arm.
    weak var daemon: Daemon?

    init(loop: EventLoop) throws {
        self.loop = loop
        timer = try LoopTimer(loop: loop) { [unowned self] _ in daemon?.compositor.frameDue() }
    }

    func arm(at time: Double) {
        daemon?.power.frameWanted()
        do { try timer.arm(after: time - monotonicSeconds()) } catch { daemon?.logger.error("frame timer: \(error)") }
    }

    func armAfterCurrentEvent() {
        daemon?.power.frameWanted()
        loop.afterCurrentEvent { [unowned self] in daemon?.compositor.frameDue() }
    }
}

/// Writes every presented frame as a numbered PNG file (`--frames-dir`, the headless demo).
private final class PNGFrameRecorder: FrameRecording {
    let directory: String
    private var written = 0
    init(directory: String) { self.directory = directory }

    func record(_ frame: Bitmap) throws {
        written += 1
        let n = String(written)
        try PNG.write(frame, toFile: directory + "/frame-" + String(repeating: "0", count: max(0, 5 - n.count)) + n + ".png")
    }
}

extension ReadOnlyMapping: PixelMemory {}
