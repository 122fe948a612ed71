#if canImport(Glibc)
import Glibc
#endif
import LaminaCore
import LaminaPlatform
import LaminaProtocol
import Synchronization

/// The socket under a `Connection`: blocking writes under a lock, and a reader thread that
/// matches replies to the requests waiting for them. Safe to use from any thread.
final class Channel: Sendable {
    private let fd: Int32
    /// The descriptor while open, -1 once closed; writes hold this lock.
    private let socket: Mutex<Int32>
    private let state = Mutex(State())
    /// Called on the reader thread for every error the server reports about a commit or the
    /// connection (request errors go to the request instead).
    let onServerError: @Sendable (LaminaError) -> Void
    /// Called on the reader thread for messages laminad sends on its own (events, completions).
    let onEvent: @Sendable (ServerMessage) -> Void
    /// Called once on the reader thread when the connection ends, whoever ended it.
    let onClosed: @Sendable (LaminaError) -> Void

    struct State: ~Copyable {
        var nextRequest: UInt32 = 1
        var nextSerial: UInt32 = 1
        var lastAnswered: UInt32 = 0
        var requests: [UInt32: CheckedContinuation<Reply, any Error>] = [:]
        var serialWaiters: [(serial: UInt32, continuation: CheckedContinuation<Void, any Error>)] = []
        /// Commit errors not yet thrown by `sync()`.
        var unreported: [ErrorMessage] = []
        /// The latest virtual-clock time laminad announced (protocol 1.5 `clock`).
        var clock: Double?
        var closed: LaminaError?
    }

    private init(fd: FileDescriptor, onServerError: @escaping @Sendable (LaminaError) -> Void,
                 onEvent: @escaping @Sendable (ServerMessage) -> Void, onClosed: @escaping @Sendable (LaminaError) -> Void) {
        let raw = fd.release()
        self.fd = raw
        socket = Mutex(raw)
        self.onServerError = onServerError
        self.onEvent = onEvent
        self.onClosed = onClosed
    }

    /// Connects to the first of `candidates` that accepts, says hello and waits for the welcome
    /// (blocking), then starts the reader thread. Returns the path that answered.
    static func open(candidates: [SocketPath.Candidate], hello: Hello, onServerError: @escaping @Sendable (LaminaError) -> Void,
                     onEvent: @escaping @Sendable (ServerMessage) -> Void,
                     onClosed: @escaping @Sendable (LaminaError) -> Void) throws(LaminaError) -> (Channel, Welcome, String) {
        var connected: (FileDescriptor, String)?
        var failures: [String] = []
        for candidate in candidates {
            do {
                connected = (try UnixSocket.connect(path: candidate.path), candidate.path)
                break
            } catch {
                failures.append("\(candidate): \(String(cString: strerror(error.errno)))")
            }
        }
        guard let (fd, path) = connected else {
            if failures.count == 1 { throw .connectionFailed("cannot connect to laminad at \(failures[0])") }
            throw .connectionFailed("no laminad answered; tried " + failures.joined(separator: "; "))
        }
        var decoder = FrameDecoder(limit: Int(UInt32.max))
        do {
            try fd.writeAll(ClientMessage.hello(hello).encoded())
        } catch {
            throw .connectionFailed("sending hello to \(path): \(error)")
        }
        let welcome: Welcome
        welcomeLoop: while true {
            do {
                if let frame = try decoder.next() {
                    switch try ServerMessage.decode(type: frame.type, body: frame.body) {
                    case .welcome(let w):
                        welcome = w
                        break welcomeLoop
                    case .error(let e):
                        throw LaminaError.server(e)
                    default:
                        throw LaminaError.protocolViolation("the server answered hello with something other than welcome")
                    }
                }
                var buf = [UInt8](repeating: 0, count: 65536)
                let n = try buf.withUnsafeMutableBytes { p in Result { () throws(SystemError) -> Int? in try fd.read(into: p) } }.get()
                guard let n, n > 0 else { throw LaminaError.connectionClosed("laminad closed the connection during hello") }
                decoder.append(Array(buf[0..<n]))
            } catch let e as LaminaError {
                throw e
            } catch {
                throw .connectionFailed("during hello: \(error)")
            }
        }
        let channel = Channel(fd: fd, onServerError: onServerError, onEvent: onEvent, onClosed: onClosed)
        let leftover = decoder
        do {
            try detachThread("lamina reader") { [channel] in channel.readLoop(decoder: leftover) }
        } catch {
            channel.close()
            throw .connectionFailed("cannot start the reader thread: \(error)")
        }
        return (channel, welcome, path)
    }

    // MARK: Sending

    private func write(_ bytes: [UInt8], descriptors: [Int32] = []) throws(LaminaError) {
        try socket.withLock { (fd: inout Int32) throws(LaminaError) in
            guard fd >= 0 else { throw LaminaError.connectionClosed("the connection is closed") }
            var offset = 0
            if !descriptors.isEmpty {
                // The descriptors ride on the frame's first byte (SCM_RIGHTS); the rest follows plainly.
                let socket = fd
                do {
                    offset = try bytes.withUnsafeBytes { p in
                        Result { () throws(SystemError) -> Int in try UnixSocket.send(socket, bytes: p, descriptors: descriptors) }
                    }.get()
                } catch {
                    throw LaminaError.connectionClosed("writing to laminad: \(error)")
                }
                if offset == 0 { throw LaminaError.connectionClosed("writing to laminad: sendmsg sent nothing") }
            }
            while offset < bytes.count {
                let n = bytes.withUnsafeBytes { p in
                    Glibc.send(fd, p.baseAddress! + offset, p.count - offset, Int32(MSG_NOSIGNAL))
                }
                if n < 0 {
                    if errno == EINTR { continue }
                    throw LaminaError.connectionClosed("writing to laminad: \(SystemError("send", errno: errno))")
                }
                offset += n
            }
        }
    }

    /// Sends a commit; returns its serial.
    @discardableResult
    func commit(_ ops: [LaminaProtocol.Operation], descriptors: [Int32] = []) throws(LaminaError) -> UInt32 {
        if let closed = state.withLock({ $0.closed }) { throw closed }
        // Take the serial and write under one lock order (state, then socket) so serials go out in order.
        return try state.withLock { (s: inout State) throws(LaminaError) -> UInt32 in
            let serial = s.nextSerial
            s.nextSerial &+= 1
            try write(ClientMessage.commit(Commit(serial: serial, operations: ops)).encoded(), descriptors: descriptors)
            return serial
        }
    }

    /// Sends a request (with `descriptors` on its frame) and waits for its reply.
    func request(_ request: Request, descriptors: [Int32] = []) async throws -> Reply {
        try await withCheckedThrowingContinuation { (c: CheckedContinuation<Reply, any Error>) in
            let failure = state.withLock { (s: inout State) -> LaminaError? in
                if let closed = s.closed { return closed }
                let id = s.nextRequest
                s.nextRequest &+= 1
                s.requests[id] = c
                do throws(LaminaError) {
                    try write(ClientMessage.request(id: id, request).encoded(), descriptors: descriptors)
                    return nil
                } catch {
                    s.requests[id] = nil
                    return error
                }
            }
            if let failure { c.resume(throwing: failure) }
        }
    }

    /// Waits until the server has answered every commit sent so far, then throws the first
    /// commit error not yet reported this way.
    func sync() async throws {
        try await withCheckedThrowingContinuation { (c: CheckedContinuation<Void, any Error>) in
            let ready: Result<Void, LaminaError>? = state.withLock { s in
                let last = s.nextSerial &- 1
                if s.lastAnswered >= last || last == 0 {
                    if let e = s.unreported.first { s.unreported.removeAll(); return .failure(.server(e)) }
                    if let closed = s.closed { return .failure(closed) }
                    return .success(())
                }
                if let closed = s.closed { return .failure(closed) }
                s.serialWaiters.append((last, c))
                return nil
            }
            if let ready { c.resume(with: ready) }
        }
    }

    func close() {
        socket.withLock { fd in
            if fd >= 0 { _ = shutdown(fd, Int32(SHUT_RDWR)) }
        }
    }

    // MARK: Receiving

    private func readLoop(decoder: FrameDecoder) {
        var decoder = decoder
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        var failure: LaminaError?
        loop: while true {
            do {
                while let frame = try decoder.next() {
                    dispatch(try ServerMessage.decode(type: frame.type, body: frame.body))
                }
            } catch {
                failure = .protocolViolation("undecodable message from laminad: \(error)")
                break loop
            }
            let n = buffer.withUnsafeMutableBytes { p in Glibc.read(fd, p.baseAddress, p.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 {
                failure = .connectionClosed(n == 0 ? "laminad closed the connection" : "reading from laminad: errno \(errno)")
                break loop
            }
            buffer.withUnsafeBytes { decoder.append(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
        }
        finish(with: failure ?? .connectionClosed("closed"))
    }

    private func dispatch(_ message: ServerMessage) {
        switch message {
        case .applied(let serial):
            answered(serial, error: nil)
        case .error(let e):
            switch e.subject {
            case .request:
                let c = state.withLock { $0.requests.removeValue(forKey: e.serial) }
                c?.resume(throwing: LaminaError.server(e))
            case .commit:
                answered(e.serial, error: e)
                onServerError(.server(e))
            case .none:
                state.withLock { $0.unreported.append(e) }
                onServerError(.server(e))
            }
        case let .reply(id, reply):
            let c = state.withLock { $0.requests.removeValue(forKey: id) }
            c?.resume(returning: reply)
        case .welcome:
            onServerError(.protocolViolation("a second welcome from laminad"))
        case .clock(let t):
            // Noted here, in order with the replies that follow it: a `sync()` after another
            // client moved the clock sees the new time.
            guard t.isFinite else { return }
            state.withLock { $0.clock = Swift.max($0.clock ?? t, t) }
            onEvent(message)
        case .animationEvent, .transactionCompleted, .watch, .input, .video, .scroll, .displayChanged, .frame, .tilesWanted, .appSurface:
            onEvent(message)
        }
    }

    /// Commits sent so far (the next serial less one).
    var commitsSent: UInt32 { state.withLock { $0.nextSerial &- 1 } }

    /// The latest virtual-clock time laminad announced on this channel, if any.
    var announcedClock: Double? { state.withLock { $0.clock } }

    private func answered(_ serial: UInt32, error: ErrorMessage?) {
        let (ready, errors): ([CheckedContinuation<Void, any Error>], [ErrorMessage]) = state.withLock { s in
            s.lastAnswered = max(s.lastAnswered, serial)
            if let error { s.unreported.append(error) }
            let done = s.serialWaiters.filter { $0.serial <= s.lastAnswered }.map(\.continuation)
            s.serialWaiters.removeAll { $0.serial <= s.lastAnswered }
            let errs = done.isEmpty ? [] : s.unreported
            if !done.isEmpty { s.unreported.removeAll() }
            return (done, errs)
        }
        for (i, c) in ready.enumerated() {
            if i == 0, let first = errors.first { c.resume(throwing: LaminaError.server(first)) } else { c.resume() }
        }
    }

    private func finish(with error: LaminaError) {
        let (requests, waiters, wasClosed): ([CheckedContinuation<Reply, any Error>], [CheckedContinuation<Void, any Error>], Bool) = state.withLock { s in
            let was = s.closed != nil
            s.closed = error
            let r = Array(s.requests.values)
            let w = s.serialWaiters.map(\.continuation)
            s.requests.removeAll()
            s.serialWaiters.removeAll()
            return (r, w, was)
        }
        for r in requests { r.resume(throwing: error) }
        for w in waiters { w.resume(throwing: error) }
        socket.withLock { fd in
            if fd >= 0 { _ = Glibc.close(fd) }
            fd = -1
        }
        if !wasClosed { onClosed(error) }
    }
}
