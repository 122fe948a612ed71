#if canImport(Glibc)
import Glibc
#endif
import LaminaCore
import LaminaImage
import LaminaInput
import LaminaKMS
import LaminaPlatform
import LaminaProtocol
import LaminaRaster
import LaminaServer
import LaminaVideo
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
        /// Blank the displays after this many seconds without a change; nil never blanks.
        public var idleBlankSeconds: Double?
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
        /// Seconds between a change to a kept session and the journal write that records it.
        public var journalDelay = 0.5
        /// Seconds of real time a video's source has to give its first picture before it is an
        /// error event (`[video] open_timeout`): a server that accepts and never sends.
        public var videoOpenTimeout = 10.0
        /// Seconds a playing video may go without a newer picture before it is an error event
        /// (`[video] stall_timeout`; 0: never): a stream that stopped sending mid-way.
        public var videoStallTimeout = 10.0
        /// Who converts planar YUV video pictures (`[video] yuv`): the renderer's shader, the
        /// decoder's videoconvert, or (nil, "auto") whichever the renderer prefers.
        public var videoYUVInRenderer: Bool?
        /// Input devices and the keymap (`[input]`).
        public var input = InputSettings()

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

    private final class Connection {
        let fd: FileDescriptor
        let id: ClientID
        let acceptedAt: Double
        /// Unsent replies and events, oldest first; a chunk is released as soon as it is sent.
        var outgoing: [[UInt8]] = []
        /// Bytes of `outgoing[0]` already sent.
        var sentOfFirst = 0
        private(set) var queued = 0
        var closing = false
        /// Dropped: no more reads or writes; the disconnect runs after the current event.
        var dead = false
        /// In the daemon's ready list: whole frames wait in the compositor.
        var ready = false
        var interest: (read: Bool, write: Bool) = (true, false)
        init(fd: FileDescriptor, id: ClientID, acceptedAt: Double) {
            self.fd = fd
            self.id = id
            self.acceptedAt = acceptedAt
        }
        func enqueue(_ bytes: [UInt8]) {
            outgoing.append(bytes)
            queued += bytes.count
        }
        func dropQueue() -> Int {
            let n = queued
            outgoing.removeAll()
            sentOfFirst = 0
            queued = 0
            return n
        }
        /// Marks `n` bytes from the front as sent.
        func consume(_ n: Int) {
            queued -= n
            sentOfFirst += n
            while let first = outgoing.first, sentOfFirst >= first.count {
                sentOfFirst -= first.count
                outgoing.removeFirst()
            }
        }
    }

    let options: Options
    let logger: Logger
    let loop: EventLoop
    let compositor: Compositor
    private let listener: FileDescriptor
    private var connections: [ClientID: Connection] = [:]
    /// Connections with whole frames waiting, served round-robin one budget per turn.
    private var readyList: [ClientID] = []
    private var readyServiceQueued = false
    /// Unread bytes over all connections.
    private var totalQueued = 0
    /// Accepting is paused after EMFILE and friends; `acceptTimer` resumes it.
    private var acceptPausedSince: Double?
    private var acceptRefusals = 0
    /// When the current episode of refused accepts began (it ends with the next accept).
    private var acceptEpisodeStart: Double?
    private var acceptTimer: LoopTimer?
    private var handshakeTimer: LoopTimer?
    /// Counters for `stats`.
    private var droppedForQueue = 0
    private var droppedForHandshake = 0
    private var frameTimer: LoopTimer?
    private var signals: SignalSource?
    /// SIGINT and SIGTERM stop laminad; SIGUSR1 blanks the displays and SIGUSR2 lights them.
    private static let handledSignals = [SIGINT, SIGTERM, SIGUSR1, SIGUSR2]
    private var frameScheduled = false
    /// The renderer's refusal to import dma-buf pictures was logged.
    private var videoImportRefusalLogged = false
    private var framesWritten = 0
    /// Set for backends that page-flip (KMS): each output's frames follow its own presentation
    /// events and refresh (`RepaintPlanner`, weston's per-output repaint loop).
    private var planner: RepaintPlanner?
    /// Draw the next frame even if the tree did not change (an output was lit or turned back on).
    private var forcedRedraw = false
    /// When the frame now waiting for its page flip was committed.
    private var flipPendingSince: Double?
    private var firstFrameShown = false
    private let ownsSocketPath: Bool
    private var watchdogTimer: LoopTimer?
    private(set) var idleTimer: LoopTimer?
    private(set) var blankedByIdle = false
    /// Touches and buttons that woke a blanked display: the rest of them is not delivered.
    var swallowedTouches: Set<Int32> = []
    var swallowedButtons: Set<UInt32> = []
    var swallowedKeys: Set<UInt32> = []
    /// Where a cursor is configured: when it shows (`CursorPolicy.swift`).
    private(set) var cursor: CursorPolicy?
    private var journal: SessionJournalStore?
    private var journalTimer: LoopTimer?
    private var journalWriteArmed = false
    /// Input devices and the keymap (InputDeviceHost.swift).
    var inputHost: InputDeviceHost?

    public init(backend: any DisplayBackend, options: Options, logger: Logger) throws {
        self.options = options
        self.logger = logger
        // Before GStreamer and restored sessions' videos start threads (see `SignalSource.block`).
        try SignalSource.block(Self.handledSignals)
        loop = try EventLoop()
        compositor = Compositor(backend: backend, clock: FrameClock(options.clock), configuration: options.compositor,
                                logger: logger, realTime: { monotonicSeconds() })
        // Shape and text layers are drawn on the CPU with cairo and pango.
        let rasterizer = ServerRasterizer()
        rasterizer.warn = { [logger] message in logger.warning("\(message)") }
        compositor.layerRasters = rasterizer
        // Font files clients send (register-font) join fontconfig's application fonts.
        compositor.fontRegistry = FontconfigRegistry()
        // Clients' videos are decoded with GStreamer (installed before the journal is restored,
        // so restored sessions' videos play); its buses wake the loop through an eventfd.
        var videoDecoding: GStreamerVideo?
        do {
            let video = try GStreamerVideo()
            video.openTimeout = options.videoOpenTimeout
            video.stallTimeout = options.videoStallTimeout
            video.planarYUV = options.videoYUVInRenderer ?? backend.renderer.planarVideo.preferred
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
        try loop.add(listener.rawValue) { [unowned self] _ in acceptAll() }
        acceptTimer = try LoopTimer(loop: loop) { [unowned self] _ in resumeAccepting() }
        handshakeTimer = try LoopTimer(loop: loop) { [unowned self] _ in checkHandshakes() }
        compositor.platformStatistics = { [unowned self] in connectionStatistics() }
        compositor.isHeldBack = { [unowned self] id in (connections[id]?.queued ?? 0) >= options.pauseQueuedBytes }
        compositor.send = { [unowned self] id, bytes in send(bytes, to: id) }
        compositor.close = { [unowned self] id in closeAfterFlush(id) }
        compositor.onFrameNeeded = { [unowned self] in scheduleFrame() }
        compositor.routeInjected = { [unowned self] action, origin in handleInput(action, origin: origin) }
        if let video = videoDecoding {
            try loop.add(video.wakeup) { [unowned self] _ in
                video.drainWakeup()
                compositor.pollVideos()
            }
            let yuv = options.videoYUVInRenderer.map { "[video] yuv = \($0 ? "renderer" : "decoder")" } ?? backend.renderer.planarVideo.reason
            logger.info("video frames: \(video.uploadPath) (\(yuv)); dma-buf pictures: \(backend.renderer.videoImport)")
        }
        if journal != nil {
            journalTimer = try LoopTimer(loop: loop) { [unowned self] _ in
                journalWriteArmed = false
                journal?.writeIfChanged(compositor)
            }
            compositor.onSessionsChanged = { [unowned self] in
                guard !journalWriteArmed else { return }
                journalWriteArmed = true
                do { try journalTimer?.arm(after: options.journalDelay) } catch { logger.error("journal timer: \(error)") }
            }
        }
        if backend.canSetPower {
            compositor.setOutputRoots(backend.outputRoots)
            // `laminactl display off|on [OUTPUT]`.
            compositor.displayPower = { [unowned self] on, output in try setDisplayPower(on, output: output) }
        }
        compositor.onFrameRendered = { [unowned self] in
            for note in compositor.presenter.takeNotes() { logger.info("\(note)") }
            if !videoImportRefusalLogged, let why = compositor.backend.renderer.videoImportRefusal {
                videoImportRefusalLogged = true
                logger.notice("video pictures in dma-buf memory are copied from now on: \(why)")
            }
            // Frames drawn for requests (a screenshot, the virtual clock) flip outputs too.
            planner?.noteFlipping(compositor.lastFlipping)
            do { try writeFrameIfAsked() } catch { logger.error("writing frame: \(error)") }
        }
        if case .real = options.clock {
            frameTimer = try LoopTimer(loop: loop) { [unowned self] _ in frameTick() }
        }
        if let fd = backend.eventDescriptor {
            var planner = RepaintPlanner(repaintWindow: options.repaintWindow)
            planner.setOutputs(backend.pagedOutputs)
            self.planner = planner
            try loop.add(fd) { [unowned self] _ in backendEvents() }
            // Light the displays with the background before any client connects.
            forcedRedraw = true
        }
        signals = try SignalSource(loop: loop, signals: Self.handledSignals) { [unowned self] sig in
            switch sig {
            case SIGUSR1, SIGUSR2:
                // USR1 blanks, USR2 relights every display, like `laminactl display off|on`.
                do { try setDisplayPower(sig == SIGUSR2) } catch { logger.error("display \(sig == SIGUSR2 ? "on" : "off"): \(error)") }
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
        if let seconds = options.idleBlankSeconds, seconds > 0, backend.canSetPower {
            idleTimer = try LoopTimer(loop: loop) { [unowned self] _ in
                logger.info("idle for \(seconds) s: blanking the displays")
                do { try setDisplayPower(false); blankedByIdle = true } catch { logger.error("idle blank: \(error)") }
            }
            try idleTimer?.arm(after: seconds)
        }
        inputHost = InputDeviceHost.start(for: self)
        // Injected keys are translated by the same keymap as the keyboard's.
        compositor.keyAction = { [unowned self] name, pressed in inputHost?.keyAction(named: name, pressed: pressed) }
        if options.cursor {
            cursor = try CursorPolicy(backend: backend, hideAfter: options.cursorHideSeconds, loop: loop, logger: logger) { [unowned self] in
                redrawWithoutChange()
            }
        }
        logger.notice("listening on \(options.socketPath)\(ownsSocketPath ? "" : " (socket activation)"), backend \(backend.name) \(backend.width)x\(backend.height), renderer \(backend.renderer.name)")
    }

    /// Serves until SIGINT or SIGTERM.
    public func run() throws {
        if forcedRedraw || compositor.needsFrame { scheduleFrame() }
        ServiceManager.notify("READY=1\nSTATUS=listening on \(options.socketPath), backend \(compositor.backend.name)")
        try loop.run()
        journal?.writeIfChanged(compositor)
        journal?.flush()
        for c in connections.values { c.fd.close() }
        connections.removeAll()
        if ownsSocketPath { unlink(options.socketPath) }
    }

    /// Blanks (false) or relights (true) the named display, or every display, and returns every
    /// output's state afterwards. Headless has none to blank. An unknown name throws `UnknownOutput`.
    @discardableResult
    public func setDisplayPower(_ on: Bool, output: String? = nil) throws -> [OutputPower] {
        let backend = compositor.backend
        guard backend.canSetPower else {
            throw BackendUnavailable(reason: "display \(on ? "on" : "off") needs the KMS backend; this daemon runs \(backend.name)")
        }
        try backend.setPower(on, output: output)
        planner?.setOutputs(backend.pagedOutputs)
        blankedByIdle = false
        if on {
            forcedRedraw = true
            scheduleFrame()
        }
        return backend.outputPower.map { OutputPower(name: $0.name, isOn: $0.isOn) }
    }

    /// Draws a frame although the tree did not change (the renderer-drawn cursor moved); not
    /// while the displays are blanked for idleness (pointer motion does not wake them).
    func redrawWithoutChange() {
        guard !blankedByIdle else { return }
        forcedRedraw = true
        scheduleFrame()
    }

    /// A hung display path (a flip that never completes) stops the pings, so systemd restarts laminad.
    private func watchdogTick() {
        if let since = flipPendingSince, monotonicSeconds() - since > 2 {
            logger.warning("a page flip has been pending for \(Int(monotonicSeconds() - since)) s: withholding the watchdog ping")
            return
        }
        ServiceManager.notify("WATCHDOG=1")
    }

    // MARK: Frames

    private func scheduleFrame() {
        guard !frameScheduled else { return }
        if let seconds = options.idleBlankSeconds, let idleTimer {
            try? idleTimer.arm(after: seconds)
            if blankedByIdle {
                blankedByIdle = false
                do { try setDisplayPower(true) } catch { logger.error("unblank: \(error)") }
                return
            }
        }
        if let planner, !planner.outputs.isEmpty {
            // The soonest repaint time of an output that is free and needs the frame; none while
            // every output awaits its flip (the flip event schedules again).
            let now = monotonicSeconds()
            guard let at = planner.nextFrameTime(now: now, sceneChanged: forcedRedraw || compositor.needsFrame) else { return }
            frameScheduled = true
            if case .real = options.clock {
                do { try frameTimer?.arm(after: at - now) } catch { logger.error("frame timer: \(error)") }
            } else {
                loop.afterCurrentEvent { [unowned self] in frameTick() }
            }
            return
        }
        frameScheduled = true
        switch options.clock {
        case .virtual:
            // Everything read in this wake-up lands in one frame.
            loop.afterCurrentEvent { [unowned self] in frameTick() }
        case .real(let hz):
            // Start the frame on the next refresh boundary of the monotonic clock.
            let period = 1 / hz
            let now = monotonicSeconds()
            let next = (now / period).rounded(.down) * period + period
            do { try frameTimer?.arm(after: next - now) } catch { logger.error("frame timer: \(error)") }
        }
    }

    private func frameTick() {
        frameScheduled = false
        if let planner, !planner.outputs.isEmpty {
            pacedFrame()
            return
        }
        do {
            // No output to pace to (headless, or no display lit): animations still run and
            // report their events.
            if forcedRedraw {
                forcedRedraw = false
                try compositor.render()
            } else {
                try compositor.renderIfNeeded()
            }
        } catch {
            logger.error("frame failed: \(error)")
        }
    }

    /// One frame on the outputs that are free and need it, drawn for the soonest refresh among
    /// them; the others keep their queued flips and owe the frame. The compositor builds the
    /// draw list and hands it to the frame step (`FramePresenter`): for each of those outputs
    /// `beginFrame` → `Renderer.draw(_:into:damage:)` → `commit`, then the backend's one
    /// `flushCommit`.
    private func pacedFrame() {
        guard var planner = self.planner else { return }
        let changed = forcedRedraw || compositor.needsFrame
        let ready = planner.ready(sceneChanged: changed)
        guard !ready.isEmpty else { return }
        let start = monotonicSeconds()
        // Drawn for the refresh it is aimed at: the compositor's clock reads that time while it
        // draws (FrameClock.frameTarget; the virtual clock ignores it).
        let target = planner.frameStarted(at: start, on: ready, sceneChanged: changed)
        self.planner = planner
        forcedRedraw = false
        do {
            try compositor.render(at: target, on: ready)
        } catch {
            logger.error("frame failed: \(error)")
        }
        let flipping = compositor.lastFlipping
        self.planner?.frameSubmitted(ready, flipping: flipping, now: monotonicSeconds())
        if flipping.isEmpty {
            // Shown synchronously (a modeset), or nowhere to show it.
            noteFirstFrame(at: monotonicSeconds())
        } else if flipPendingSince == nil {
            flipPendingSince = start
        }
        // Outputs that owe the frame and are free already (a modeset), or a scene still moving.
        if forcedRedraw || compositor.needsFrame || !(self.planner?.ready(sceneChanged: false).isEmpty ?? true) { scheduleFrame() }
    }

    /// Page flips and hotplug from the backend.
    private func backendEvents() {
        let events: BackendEvents
        do { events = try compositor.backend.dispatchEvents() } catch {
            logger.error("display events: \(error)")
            return
        }
        for p in events.presented {
            planner?.presented(p.output, at: p.time)
            noteFirstFrame(at: p.time)
        }
        if planner?.anyAwaiting != true { flipPendingSince = nil }
        if events.needsRedraw { forcedRedraw = true }
        // A display plugged in, unplugged or changing mode can change the desktop's size.
        let backend = compositor.backend
        compositor.resize(width: backend.width, height: backend.height)
        compositor.setOutputRoots(backend.outputRoots)
        planner?.setOutputs(backend.pagedOutputs)
        if forcedRedraw || compositor.needsFrame || !(planner?.ready(sceneChanged: false).isEmpty ?? true) { scheduleFrame() }
    }

    private func noteFirstFrame(at time: Double) {
        let backend = compositor.backend
        guard !firstFrameShown, !backend.outputNames.isEmpty else { return }
        firstFrameShown = true
        let since = options.startTime.map { " \(Int(((time - $0) * 1000).rounded())) ms after start" } ?? ""
        logger.notice("first frame on screen\(since): \(backend.summary)")
    }

    private func writeFrameIfAsked() throws {
        guard let dir = options.framesDirectory else { return }
        framesWritten += 1
        let n = String(framesWritten)
        let path = dir + "/frame-" + String(repeating: "0", count: max(0, 5 - n.count)) + n + ".png"
        try PNG.write(try compositor.presenter.screenshot(), toFile: path)
    }

    // MARK: Connections

    /// Accepts waiting connections, at most 32 a turn. When the process is out of descriptors
    /// (EMFILE, ENFILE) or memory, the listener stays readable: accepting pauses for a moment
    /// instead of spinning, and the episode is logged once.
    private func acceptAll() {
        for _ in 0..<32 {
            let fd: FileDescriptor
            do {
                guard let accepted = try UnixSocket.accept(listener) else { return }
                fd = accepted
            } catch {
                if [EMFILE, ENFILE, ENOBUFS, ENOMEM].contains(error.errno) {
                    pauseAccepting(error)
                } else {
                    logger.error("accept: \(error)")
                }
                return
            }
            if let since = acceptEpisodeStart {
                acceptEpisodeStart = nil
                logger.notice("accepting connections again after \(Int((monotonicSeconds() - since) * 1000)) ms (\(acceptRefusals) refused accept\(acceptRefusals == 1 ? "" : "s"))")
                acceptRefusals = 0
            }
            let peer = identify(fd)
            let id = compositor.connect(peer: peer)
            let conn = Connection(fd: fd, id: id, acceptedAt: monotonicSeconds())
            connections[id] = conn
            logger.info("\(id) accepted (pid \(peer.pid), uid \(peer.uid)\(peer.isPrivileged ? ", privileged" : ""))")
            do {
                try loop.add(fd.rawValue) { [unowned self] events in handle(events, on: id) }
            } catch {
                logger.error("watching \(id): \(error)")
                connections[id] = nil
                compositor.disconnected(id)
                continue
            }
            if handshakeTimer?.isArmed == false { try? handshakeTimer?.arm(after: options.handshakeTimeout) }
        }
    }

    /// Who connected, by SO_PEERCRED: root, the socket's owner (laminad's user unless
    /// configured) and members of the privileged group may make privileged requests.
    private func identify(_ fd: FileDescriptor) -> PeerIdentity {
        guard let cred = UnixSocket.peerCredentials(fd) else { return PeerIdentity(uid: UInt32.max, pid: 0, isPrivileged: false) }
        let owner = options.socketOwner ?? geteuid()
        var privileged = cred.uid == 0 || cred.uid == owner
        if !privileged, let group = options.privilegedGroup {
            privileged = cred.gid == group || (UnixSocket.peerGroups(fd)?.contains(group) ?? false)
        }
        return PeerIdentity(uid: cred.uid, pid: cred.pid, isPrivileged: privileged)
    }

    private func pauseAccepting(_ error: SystemError) {
        acceptRefusals += 1
        guard acceptPausedSince == nil else { return }
        acceptPausedSince = monotonicSeconds()
        // Logged once an episode: until a connection is accepted again, retries are quiet.
        if acceptEpisodeStart == nil {
            acceptEpisodeStart = acceptPausedSince
            logger.error("accept: \(error): pausing new connections (\(connections.count) open); retrying every 0.25 s")
        }
        loop.remove(listener.rawValue)
        try? acceptTimer?.arm(after: 0.25)
    }

    private func resumeAccepting() {
        guard acceptPausedSince != nil else { return }
        do {
            try loop.add(listener.rawValue) { [unowned self] _ in acceptAll() }
        } catch {
            try? acceptTimer?.arm(after: 0.25)
            return
        }
        acceptPausedSince = nil
        acceptAll()
    }

    /// Drops connections that have not said hello within the handshake timeout, and re-arms
    /// for the oldest one left. The timer is disarmed when no connection is waiting.
    private func checkHandshakes() {
        let now = monotonicSeconds()
        var next: Double?
        for conn in Array(connections.values) where !conn.dead && compositor.isAwaitingHello(conn.id) {
            let due = conn.acceptedAt + options.handshakeTimeout
            if due <= now {
                logger.warning("\(conn.id) did not say hello within \(options.handshakeTimeout) s: dropping it")
                droppedForHandshake += 1
                compositor.refuse(conn.id, ErrorMessage(code: .notHello, message: "no hello within the handshake timeout of \(options.handshakeTimeout) s"))
            } else {
                next = min(next ?? due, due)
            }
        }
        if let next { try? handshakeTimer?.arm(after: next - now) }
    }

    private func handle(_ events: EventLoop.Events, on id: ClientID) {
        guard let conn = connections[id], !conn.dead else { return }
        if events.isWritable { flush(conn) }
        if events.isDead && !events.isReadable {
            drop(conn, "hung up")
            return
        }
        if events.isReadable || events.isHangup { serviceInput(conn) }
    }

    /// Reads and handles what a client sent, within this turn's budget. While whole frames
    /// are left over, or its unread output is over `pauseQueuedBytes`, the client's socket is
    /// not read: the frames are handled on later turns (`serveReady`), in turn with everyone.
    private func serviceInput(_ conn: Connection) {
        guard !conn.dead, !conn.closing else { return }
        if conn.queued >= options.pauseQueuedBytes || conn.ready {
            updateInterest(conn)
            return
        }
        var buffer = [UInt8](repeating: 0, count: 65536)
        var bytesRead = 0
        while !conn.dead, !conn.closing, bytesRead < options.bytesPerTurn {
            let received: (count: Int, descriptors: [Int32], truncated: Bool)?
            do {
                received = try buffer.withUnsafeMutableBytes { p in
                    Result { () throws(SystemError) -> (count: Int, descriptors: [Int32], truncated: Bool)? in
                        try UnixSocket.receive(conn.fd, into: p)
                    }
                }.get()
            } catch {
                logger.info("\(conn.id) read: \(error)")
                drop(conn, "read failed")
                return
            }
            guard let received else { break }
            // Every received descriptor is mapped (or refused) and closed here, whatever happens next.
            let attachments = received.descriptors.map { fd -> MemoryAttachment in
                do { return .memory(try ReadOnlyMapping(closing: fd)) } catch { return .unusable("\(error)") }
            }
            let n = received.count
            if received.truncated {
                logger.warning("\(conn.id) sent more file descriptors than one read takes: dropping it")
                drop(conn, "too many descriptors")
                return
            }
            if n == 0 {
                drop(conn, "closed")
                return
            }
            bytesRead += n
            buffer.withUnsafeBytes {
                compositor.receive(UnsafeRawBufferPointer(rebasing: $0[0..<n]), attachments: attachments, from: conn.id,
                                   frameBudget: options.framesPerTurn)
            }
            if compositor.hasPendingFrame(conn.id) || conn.queued >= options.pauseQueuedBytes { break }
        }
        if !conn.dead, compositor.hasPendingFrame(conn.id) { markReady(conn) }
        updateInterest(conn)
    }

    private func markReady(_ conn: Connection) {
        guard !conn.ready else { return }
        conn.ready = true
        readyList.append(conn.id)
        if !readyServiceQueued {
            readyServiceQueued = true
            loop.nextTurn { [unowned self] in serveReady() }
        }
    }

    /// One budget of frames for each client with frames waiting, then back to the loop.
    private func serveReady() {
        readyServiceQueued = false
        let list = readyList
        readyList.removeAll()
        for id in list {
            guard let conn = connections[id], !conn.dead else { continue }
            conn.ready = false
            if conn.queued >= options.pauseQueuedBytes {
                // Listed again by `flush` once the client has read enough.
                continue
            }
            compositor.handlePending(id, frameBudget: options.framesPerTurn)
            if !conn.dead, compositor.hasPendingFrame(id) { markReady(conn) }
            updateInterest(conn)
        }
    }

    /// Watches a connection for what it can do now: reading while nothing is held back,
    /// writing while output is queued.
    private func updateInterest(_ conn: Connection) {
        guard !conn.dead else { return }
        let read = !conn.closing && !conn.ready && conn.queued < options.pauseQueuedBytes
        let write = conn.queued > 0
        guard read != conn.interest.read || write != conn.interest.write else { return }
        conn.interest = (read, write)
        var interest: EventLoop.Interest = []
        if read { interest.insert(.readable) }
        if write { interest.insert(.writable) }
        try? loop.modify(conn.fd.rawValue, interest: interest, hangup: read)
    }

    private func send(_ bytes: [UInt8], to id: ClientID) {
        guard let conn = connections[id], !conn.dead else { return }
        guard conn.queued + bytes.count <= options.maxQueuedBytes else {
            logger.warning("\(id) is not reading: \(conn.queued + bytes.count) bytes would be queued for it, over max_queued_bytes (\(options.maxQueuedBytes)): dropping it")
            droppedForQueue += 1
            drop(conn, "output budget")
            return
        }
        conn.enqueue(bytes)
        totalQueued += bytes.count
        flush(conn)
        if totalQueued > options.maxTotalQueuedBytes { shedOutput() }
    }

    /// Over the global output budget: the connections holding the most unread bytes go first.
    private func shedOutput() {
        while totalQueued > options.maxTotalQueuedBytes,
              let worst = connections.values.filter({ !$0.dead && $0.queued > 0 }).max(by: { $0.queued < $1.queued }) {
            logger.warning("\(worst.id) holds \(worst.queued) unread bytes while all clients hold \(totalQueued), over max_total_queued_bytes (\(options.maxTotalQueuedBytes)): dropping it")
            droppedForQueue += 1
            drop(worst, "global output budget")
        }
    }

    private func flush(_ conn: Connection) {
        guard !conn.dead else { return }
        while let first = conn.outgoing.first {
            let n: Int
            do {
                n = try first.withUnsafeBytes { p in
                    Result { () throws(SystemError) -> Int in try conn.fd.write(UnsafeRawBufferPointer(rebasing: p[conn.sentOfFirst...])) }
                }.get()
            } catch {
                logger.info("\(conn.id) write: \(error)")
                drop(conn, "write failed")
                return
            }
            if n == 0 { break }
            conn.consume(n)
            totalQueued -= n
        }
        if conn.queued == 0, conn.closing {
            drop(conn, "closed after its last reply")
            return
        }
        // Reading resumes once the client has read enough; frames it left waiting come first.
        if conn.queued < options.pauseQueuedBytes, compositor.hasPendingFrame(conn.id), !conn.ready {
            markReady(conn)
        }
        updateInterest(conn)
    }

    private func closeAfterFlush(_ id: ClientID) {
        guard let conn = connections[id], !conn.dead else { return }
        conn.closing = true
        flush(conn)
    }

    /// Stops all I/O on the connection now; the compositor forgets it after the current event,
    /// so nothing that is walking the compositor's lists sees them change.
    private func drop(_ conn: Connection, _ why: String) {
        guard !conn.dead else { return }
        conn.dead = true
        totalQueued -= conn.dropQueue()
        loop.remove(conn.fd.rawValue)
        logger.debug("\(conn.id) dropped: \(why)")
        let id = conn.id
        loop.afterCurrentEvent { [unowned self] in disconnect(id) }
    }

    private func disconnect(_ id: ClientID) {
        guard let conn = connections.removeValue(forKey: id) else { return }
        if !conn.dead {
            totalQueued -= conn.dropQueue()
            loop.remove(conn.fd.rawValue)
        }
        conn.fd.close()
        compositor.disconnected(id)
    }

    /// Connection counters for `stats`.
    private func connectionStatistics() -> [Statistic] {
        var list = [
            Statistic(name: "queuedBytes", value: Double(totalQueued)),
            Statistic(name: "budget.maxTotalQueuedBytes", value: Double(options.maxTotalQueuedBytes)),
            Statistic(name: "budget.maxQueuedBytes", value: Double(options.maxQueuedBytes)),
            Statistic(name: "budget.pauseQueuedBytes", value: Double(options.pauseQueuedBytes)),
            Statistic(name: "clientsDroppedForOutput", value: Double(droppedForQueue)),
            Statistic(name: "clientsDroppedForHandshake", value: Double(droppedForHandshake)),
            Statistic(name: "acceptPaused", value: acceptPausedSince == nil ? 0 : 1),
        ]
        if let journal {
            list.append(Statistic(name: "sessionJournal.writes", value: Double(journal.writes)))
            list.append(Statistic(name: "sessionJournal.pending", value: journal.writtenGeneration == compositor.journalGeneration ? 0 : 1))
            list.append(Statistic(name: "sessionJournal.lastWriteSeconds", value: journal.lastWriteSeconds))
        }
        for conn in connections.values.sorted(by: { $0.id < $1.id }) where conn.queued > 0 {
            list.append(Statistic(name: "queuedBytes.client.\(conn.id.rawValue)", value: Double(conn.queued)))
        }
        return list
    }
}

extension ReadOnlyMapping: PixelMemory {}
