#if canImport(Glibc)
import Glibc
#endif
import LaminaCore
import LaminaImage
import LaminaKMS
import LaminaPlatform
import LaminaProtocol
import LaminaRaster
import LaminaServer
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
        /// A listening socket passed by socket activation, used instead of binding `socketPath`.
        public var listenerDescriptor: Int32?
        /// How long before a refresh a page-flipping backend starts rendering (weston's repaint window).
        public var repaintWindow = 0.007
        /// Blank the displays after this many seconds without a change; nil never blanks.
        public var idleBlankSeconds: Double?
        /// When the process started (CLOCK_MONOTONIC seconds), for the time-to-first-frame log line.
        public var startTime: Double?
        /// Permissions, owner and group applied to the socket file laminad binds (not to a passed one).
        public var socketMode: UInt32?
        public var socketOwner: UInt32?
        public var socketGroup: UInt32?

        public init(socketPath: String, clock: FrameClock.ClockKindSetting, framesDirectory: String? = nil) {
            self.socketPath = socketPath
            self.clock = clock
            self.framesDirectory = framesDirectory
        }
    }

    private final class Connection {
        let fd: FileDescriptor
        let id: ClientID
        var outgoing: [UInt8] = []
        var sent = 0
        var closing = false
        var watchingWritable = false
        init(fd: FileDescriptor, id: ClientID) { self.fd = fd; self.id = id }
        var queued: Int { outgoing.count - sent }
    }

    let options: Options
    let logger: Logger
    let loop: EventLoop
    let compositor: Compositor
    private let listener: FileDescriptor
    private var connections: [ClientID: Connection] = [:]
    private var frameTimer: LoopTimer?
    private var signals: SignalSource?
    private var frameScheduled = false
    private var framesWritten = 0
    /// Set for backends that page-flip (KMS): frames follow their presentation events.
    private var pacing: RepaintScheduler?
    /// Draw the next frame even if the tree did not change (an output was lit or turned back on).
    private var forcedRedraw = false
    /// When the frame now waiting for its page flip was committed.
    private var flipPendingSince: Double?
    private var firstFrameShown = false
    /// How far ahead of the clock the frame being drawn will show: the compositor's clock reads
    /// the predicted presentation time while it renders.
    private let presentationLead = PresentationLead()
    private let ownsSocketPath: Bool
    private var watchdogTimer: LoopTimer?
    private var idleTimer: LoopTimer?
    private var blankedByIdle = false

    public init(backend: any DisplayBackend, options: Options, logger: Logger) throws {
        self.options = options
        self.logger = logger
        loop = try EventLoop()
        let lead = presentationLead
        compositor = Compositor(backend: backend, clock: FrameClock(options.clock), configuration: options.compositor,
                                logger: logger, realTime: { monotonicSeconds() + lead.seconds })
        // Shape and text layers are drawn on the CPU with cairo and pango.
        compositor.layerRasters = ServerRasterizer()
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
        compositor.send = { [unowned self] id, bytes in send(bytes, to: id) }
        compositor.close = { [unowned self] id in closeAfterFlush(id) }
        compositor.onFrameNeeded = { [unowned self] in scheduleFrame() }
        if let kms = backend as? KMSBackend {
            compositor.setOutputRoots(kms.outputRoots)
            // `laminactl display off|on [OUTPUT]`.
            compositor.displayPower = { [unowned self] on, output in try setDisplayPower(on, output: output) }
        }
        compositor.onFrameRendered = { [unowned self] in
            do { try writeFrameIfAsked() } catch { logger.error("writing frame: \(error)") }
        }
        if case .real = options.clock {
            frameTimer = try LoopTimer(loop: loop) { [unowned self] _ in frameTick() }
        }
        if let fd = backend.eventDescriptor {
            pacing = RepaintScheduler(refreshInterval: backend.refreshInterval ?? 1.0 / 60, repaintWindow: options.repaintWindow)
            try loop.add(fd) { [unowned self] _ in backendEvents() }
            // Light the displays with the background before any client connects.
            forcedRedraw = true
        }
        signals = try SignalSource(loop: loop, signals: [SIGINT, SIGTERM, SIGUSR1, SIGUSR2]) { [unowned self] sig in
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
        if let seconds = options.idleBlankSeconds, seconds > 0, backend is KMSBackend {
            idleTimer = try LoopTimer(loop: loop) { [unowned self] _ in
                logger.info("idle for \(seconds) s: blanking the displays")
                do { try setDisplayPower(false); blankedByIdle = true } catch { logger.error("idle blank: \(error)") }
            }
            try idleTimer?.arm(after: seconds)
        }
        logger.notice("listening on \(options.socketPath)\(ownsSocketPath ? "" : " (socket activation)"), backend \(backend.name) \(backend.width)x\(backend.height), renderer \(backend.renderer.name)")
    }

    /// Serves until SIGINT or SIGTERM.
    public func run() throws {
        if forcedRedraw { scheduleFrame() }
        ServiceManager.notify("READY=1\nSTATUS=listening on \(options.socketPath), backend \(compositor.backend.name)")
        try loop.run()
        for c in connections.values { c.fd.close() }
        connections.removeAll()
        if ownsSocketPath { unlink(options.socketPath) }
    }

    /// Blanks (false) or relights (true) the named display, or every display, and returns every
    /// output's state afterwards. Headless has none to blank. An unknown name throws `UnknownOutput`.
    @discardableResult
    public func setDisplayPower(_ on: Bool, output: String? = nil) throws -> [OutputPower] {
        guard let kms = compositor.backend as? KMSBackend else {
            throw BackendUnavailable(reason: "display \(on ? "on" : "off") needs the KMS backend; this daemon runs \(compositor.backend.name)")
        }
        try kms.setPower(on, output: output)
        blankedByIdle = false
        if on {
            forcedRedraw = true
            scheduleFrame()
        }
        return kms.outputPower.map { OutputPower(name: $0.name, isOn: $0.isOn) }
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
        if let pacing {
            // The frame starts from the page-flip event; nothing is drawn while a flip is queued.
            guard !compositor.backend.isFramePending else { return }
            frameScheduled = true
            if case .real = options.clock {
                let now = monotonicSeconds()
                do { try frameTimer?.arm(after: pacing.repaintTime(now: now) - now) } catch { logger.error("frame timer: \(error)") }
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
        if pacing != nil {
            pacedFrame()
            return
        }
        do {
            try compositor.renderIfNeeded()
        } catch {
            logger.error("frame failed: \(error)")
        }
    }

    /// One frame on a page-flipping backend, drawn for the refresh it is aimed at.
    private func pacedFrame() {
        let backend = compositor.backend
        guard !backend.isFramePending, forcedRedraw || compositor.needsFrame else { return }
        let start = monotonicSeconds()
        let target = pacing?.frameStarted(at: start) ?? start
        if case .real = options.clock { presentationLead.seconds = target - start }
        defer { presentationLead.seconds = 0 }
        do {
            if forcedRedraw {
                forcedRedraw = false
                try compositor.render()
            } else {
                try compositor.renderIfNeeded()
            }
            try writeFrameIfAsked()
        } catch {
            logger.error("frame failed: \(error)")
        }
        if backend.isFramePending {
            flipPendingSince = start
        } else {
            // Shown synchronously (a modeset), or nowhere to show it.
            presented(at: monotonicSeconds())
        }
    }

    /// Page flips and hotplug from the backend.
    private func backendEvents() {
        let events: BackendEvents
        do { events = try compositor.backend.dispatchEvents() } catch {
            logger.error("display events: \(error)")
            return
        }
        for time in events.presented { presented(at: time) }
        if events.needsRedraw { forcedRedraw = true }
        // A display plugged in, unplugged or changing mode can change the desktop's size.
        let backend = compositor.backend
        compositor.resize(width: backend.width, height: backend.height)
        if let kms = backend as? KMSBackend { compositor.setOutputRoots(kms.outputRoots) }
        if let interval = backend.refreshInterval, interval > 0, interval.isFinite { pacing?.refreshInterval = interval }
        if forcedRedraw || compositor.needsFrame { scheduleFrame() }
    }

    private func presented(at time: Double) {
        pacing?.presented(at: time)
        flipPendingSince = nil
        guard !firstFrameShown, let kms = compositor.backend as? KMSBackend, !kms.outputNames.isEmpty else { return }
        firstFrameShown = true
        let since = options.startTime.map { " \(Int(((time - $0) * 1000).rounded())) ms after start" } ?? ""
        logger.notice("first frame on screen\(since): \(kms.summary)")
    }

    private func writeFrameIfAsked() throws {
        guard let dir = options.framesDirectory else { return }
        framesWritten += 1
        let n = String(framesWritten)
        let path = dir + "/frame-" + String(repeating: "0", count: max(0, 5 - n.count)) + n + ".png"
        try PNG.write(try compositor.backend.renderer.readPixels(), toFile: path)
    }

    // MARK: Connections

    private func acceptAll() {
        while true {
            let fd: FileDescriptor
            do {
                guard let accepted = try UnixSocket.accept(listener) else { return }
                fd = accepted
            } catch {
                logger.error("accept: \(error)")
                return
            }
            let id = compositor.connect()
            let conn = Connection(fd: fd, id: id)
            connections[id] = conn
            if let cred = UnixSocket.peerCredentials(fd) {
                logger.info("\(id) accepted (pid \(cred.pid), uid \(cred.uid))")
            }
            do {
                try loop.add(fd.rawValue) { [unowned self] events in handle(events, on: id) }
            } catch {
                logger.error("watching \(id): \(error)")
                connections[id] = nil
                compositor.disconnected(id)
            }
        }
    }

    private func handle(_ events: EventLoop.Events, on id: ClientID) {
        guard let conn = connections[id] else { return }
        if events.isWritable { flush(conn) }
        if events.isReadable || events.isHangup { readAvailable(conn) }
    }

    private func readAvailable(_ conn: Connection) {
        var buffer = [UInt8](repeating: 0, count: 65536)
        while connections[conn.id] != nil, !conn.closing {
            let received: (count: Int, descriptors: [Int32], truncated: Bool)?
            do {
                received = try buffer.withUnsafeMutableBytes { p in
                    Result { () throws(SystemError) -> (count: Int, descriptors: [Int32], truncated: Bool)? in
                        try UnixSocket.receive(conn.fd, into: p)
                    }
                }.get()
            } catch {
                logger.info("\(conn.id) read: \(error)")
                disconnect(conn.id)
                return
            }
            guard let received else { return }
            // Every received descriptor is mapped (or refused) and closed here, whatever happens next.
            let attachments = received.descriptors.map { fd -> MemoryAttachment in
                do { return .memory(try ReadOnlyMapping(closing: fd)) } catch { return .unusable("\(error)") }
            }
            let n = received.count
            if received.truncated {
                logger.warning("\(conn.id) sent more file descriptors than one read takes: dropping it")
                disconnect(conn.id)
                return
            }
            if n == 0 {
                disconnect(conn.id)
                return
            }
            buffer.withUnsafeBytes { compositor.receive(UnsafeRawBufferPointer(rebasing: $0[0..<n]), attachments: attachments, from: conn.id) }
        }
    }

    private func send(_ bytes: [UInt8], to id: ClientID) {
        guard let conn = connections[id] else { return }
        guard conn.queued + bytes.count <= options.maxQueuedBytes else {
            logger.warning("\(id) is not reading its replies (\(conn.queued) bytes queued): dropping it")
            disconnect(id)
            return
        }
        conn.outgoing.append(contentsOf: bytes)
        flush(conn)
    }

    private func flush(_ conn: Connection) {
        while conn.queued > 0 {
            let n: Int
            do {
                n = try conn.outgoing.withUnsafeBytes { p in
                    Result { () throws(SystemError) -> Int in try conn.fd.write(UnsafeRawBufferPointer(rebasing: p[conn.sent...])) }
                }.get()
            } catch {
                logger.info("\(conn.id) write: \(error)")
                disconnect(conn.id)
                return
            }
            if n == 0 { break }
            conn.sent += n
        }
        if conn.queued == 0 {
            conn.outgoing.removeAll(keepingCapacity: conn.outgoing.count < 1 << 20)
            conn.sent = 0
            if conn.closing { disconnect(conn.id); return }
        }
        let wantWritable = conn.queued > 0
        if wantWritable != conn.watchingWritable {
            conn.watchingWritable = wantWritable
            try? loop.modify(conn.fd.rawValue, interest: wantWritable ? [.readable, .writable] : .readable)
        }
    }

    private func closeAfterFlush(_ id: ClientID) {
        guard let conn = connections[id] else { return }
        conn.closing = true
        flush(conn)
    }

    private func disconnect(_ id: ClientID) {
        guard let conn = connections.removeValue(forKey: id) else { return }
        loop.remove(conn.fd.rawValue)
        conn.fd.close()
        compositor.disconnected(id)
    }
}

extension ReadOnlyMapping: PixelMemory {}

/// The predicted presentation time's lead over the clock, shared with the compositor's clock closure.
private final class PresentationLead {
    var seconds = 0.0
}
