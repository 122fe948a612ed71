#if canImport(Glibc)
import Glibc
#endif
import LaminaCore
import LaminaImage
import LaminaPlatform
import LaminaProtocol
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

    public init(backend: any DisplayBackend, options: Options, logger: Logger) throws {
        self.options = options
        self.logger = logger
        loop = try EventLoop()
        compositor = Compositor(backend: backend, clock: FrameClock(options.clock), configuration: options.compositor,
                                logger: logger, realTime: monotonicSeconds)
        listener = try UnixSocket.listen(path: options.socketPath)
        try loop.add(listener.rawValue) { [unowned self] _ in acceptAll() }
        compositor.send = { [unowned self] id, bytes in send(bytes, to: id) }
        compositor.close = { [unowned self] id in closeAfterFlush(id) }
        compositor.onFrameNeeded = { [unowned self] in scheduleFrame() }
        if case .real = options.clock {
            frameTimer = try LoopTimer(loop: loop) { [unowned self] _ in frameTick() }
        }
        signals = try SignalSource(loop: loop, signals: [SIGINT, SIGTERM]) { [unowned self] sig in
            logger.notice("signal \(sig): shutting down")
            loop.stop()
        }
        logger.notice("listening on \(options.socketPath), backend \(backend.name) \(backend.width)x\(backend.height), renderer \(backend.renderer.name)")
    }

    /// Serves until SIGINT or SIGTERM.
    public func run() throws {
        try loop.run()
        for c in connections.values { c.fd.close() }
        connections.removeAll()
        unlink(options.socketPath)
    }

    // MARK: Frames

    private func scheduleFrame() {
        guard !frameScheduled else { return }
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
        do {
            if try compositor.renderIfNeeded() { try writeFrameIfAsked() }
        } catch {
            logger.error("frame failed: \(error)")
        }
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
            let n: Int?
            do {
                n = try buffer.withUnsafeMutableBytes { p in
                    Result { () throws(SystemError) -> Int? in try conn.fd.read(into: p) }
                }.get()
            } catch {
                logger.info("\(conn.id) read: \(error)")
                disconnect(conn.id)
                return
            }
            guard let n else { return }
            if n == 0 {
                disconnect(conn.id)
                return
            }
            buffer.withUnsafeBytes { compositor.receive(UnsafeRawBufferPointer(rebasing: $0[0..<n]), from: conn.id) }
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
