#if canImport(Glibc)
import Glibc
#endif
import LaminaPlatform
import LaminaProtocol
import LaminaCompositor
import Logging

/// laminad's clients on the wire: the listening socket, accepting (paused when out of
/// descriptors), the handshake deadline, reading within a budget per turn, the queues of
/// replies and events, and backpressure. A client whose unread output reaches the high
/// watermark (`pauseQueuedBytes`) is not read, nor its frames handled, until it has read down
/// to the low one (`resumeQueuedBytes`): with one threshold, a client hovering at it would be
/// paused and resumed on every event. Over `maxQueuedBytes` it is dropped, and over
/// `maxTotalQueuedBytes` for everyone the client holding the most goes.
///
/// Bytes go to the compositor and its replies come back through `send`; a drop is carried out
/// after the current event, never inside a compositor call.
final class ClientTransport {
    struct Budgets: Sendable {
        /// Bytes a slow client may leave unread before it is dropped.
        var maxQueuedBytes = 128 << 20
        /// The high watermark: from this many unread bytes on, the client is not read.
        var pauseQueuedBytes = 4 << 20
        /// The low watermark: reading resumes once the client has read down to this many.
        var resumeQueuedBytes = 1 << 20
        /// Unread bytes over all clients; past it the client with the most unread is dropped.
        var maxTotalQueuedBytes = 512 << 20
        /// Frames handled for one client per turn of the event loop, and bytes read for it.
        var framesPerTurn = 64
        var bytesPerTurn = 256 << 10
        /// Seconds a connection may take to say hello.
        var handshakeTimeout = 5.0
    }

    /// Who may make privileged requests besides root: the socket's owner, a group's members.
    struct PeerPolicy: Sendable {
        var socketOwner: UInt32?
        var privilegedGroup: UInt32?
    }

    private final class Connection {
        let budgets: Budgets
        let fd: FileDescriptor
        let id: ClientID
        let acceptedAt: Double
        /// Unsent replies and events, oldest first; a chunk is released as soon as it is sent.
        var outgoing: [[UInt8]] = []
        /// Bytes of `outgoing[0]` already sent.
        var sentOfFirst = 0
        private(set) var queued = 0
        /// Bytes sent since the connection was accepted: with `queued`, where the stream stands.
        private(set) var sent = 0
        /// Bytes of the stream from this offset on wait (an acknowledgement waiting for the
        /// session journal, `JournalAcknowledgements`); nil: everything queued may go.
        var limit: Int?
        /// The stream's offset after everything queued so far.
        var offset: Int { sent + queued }
        /// Bytes that may be written now.
        var sendable: Int { limit.map { max(0, min(queued, $0 - sent)) } ?? queued }
        var closing = false
        /// Dropped: no more reads or writes; the disconnect runs after the current event.
        var dead = false
        /// In the daemon's ready list: whole frames wait in the compositor.
        var ready = false
        var interest: (read: Bool, write: Bool) = (true, false)
        /// Reads are paused: the unread output reached the high watermark and has not yet
        /// fallen to the low one.
        private(set) var isPaused = false
        init(fd: FileDescriptor, id: ClientID, acceptedAt: Double, budgets: Budgets) {
            self.budgets = budgets
            self.fd = fd
            self.id = id
            self.acceptedAt = acceptedAt
        }
        func enqueue(_ bytes: [UInt8]) {
            outgoing.append(bytes)
            queued += bytes.count
            if queued >= budgets.pauseQueuedBytes { isPaused = true }
        }
        func dropQueue() -> Int {
            let n = queued
            outgoing.removeAll()
            sentOfFirst = 0
            queued = 0
            isPaused = false
            return n
        }
        /// Marks `n` bytes from the front as sent.
        func consume(_ n: Int) {
            queued -= n
            sent += n
            sentOfFirst += n
            while let first = outgoing.first, sentOfFirst >= first.count {
                sentOfFirst -= first.count
                outgoing.removeFirst()
            }
            if queued <= budgets.resumeQueuedBytes { isPaused = false }
        }
    }

    let budgets: Budgets
    let peers: PeerPolicy
    let loop: EventLoop
    unowned let compositor: Compositor
    let logger: Logger
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
    /// Gives the heap back to the system a moment after clients leave (HeapTrimmer.swift).
    private let heapTrimmer: HeapTrimmer?

    init(listener: FileDescriptor, budgets: Budgets, heapTrimmer: HeapTrimmer?, peers: PeerPolicy, loop: EventLoop, compositor: Compositor,
         logger: Logger) throws {
        self.heapTrimmer = heapTrimmer
        self.listener = listener
        self.budgets = budgets
        self.peers = peers
        self.loop = loop
        self.compositor = compositor
        self.logger = logger
        try loop.add(listener.rawValue) { [unowned self] _ in acceptAll() }
        acceptTimer = try LoopTimer(loop: loop) { [unowned self] _ in resumeAccepting() }
        handshakeTimer = try LoopTimer(loop: loop) { [unowned self] _ in checkHandshakes() }
    }

    /// Whether `client`'s frames wait because it does not read what it is sent.
    func isHeldBack(_ client: ClientID) -> Bool { connections[client]?.isPaused ?? false }

    /// Closes every connection (laminad is stopping).
    func closeAll() {
        for c in connections.values { c.fd.close() }
        connections.removeAll()
    }

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
            let conn = Connection(fd: fd, id: id, acceptedAt: monotonicSeconds(), budgets: budgets)
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
            if handshakeTimer?.isArmed == false { try? handshakeTimer?.arm(after: budgets.handshakeTimeout) }
        }
    }

    /// Who connected, by SO_PEERCRED: root, the socket's owner (laminad's user unless
    /// configured) and members of the privileged group may make privileged requests.
    private func identify(_ fd: FileDescriptor) -> PeerIdentity {
        guard let cred = UnixSocket.peerCredentials(fd) else { return PeerIdentity(uid: UInt32.max, pid: 0, isPrivileged: false) }
        let owner = peers.socketOwner ?? geteuid()
        var privileged = cred.uid == 0 || cred.uid == owner
        if !privileged, let group = peers.privilegedGroup {
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
            let due = conn.acceptedAt + budgets.handshakeTimeout
            if due <= now {
                logger.warning("\(conn.id) did not say hello within \(budgets.handshakeTimeout) s: dropping it")
                droppedForHandshake += 1
                compositor.refuse(conn.id, ErrorMessage(code: .notHello, message: "no hello within the handshake timeout of \(budgets.handshakeTimeout) s"))
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
        if conn.isPaused || conn.ready || compositor.isWaitingForFrame(conn.id) {
            updateInterest(conn)
            return
        }
        var buffer = [UInt8](repeating: 0, count: 65536)
        var bytesRead = 0
        while !conn.dead, !conn.closing, bytesRead < budgets.bytesPerTurn {
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
                                   frameBudget: budgets.framesPerTurn)
            }
            if compositor.hasPendingFrame(conn.id) || conn.isPaused || compositor.isWaitingForFrame(conn.id) { break }
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
            if conn.isPaused {
                // Listed again by `flush` once the client has read enough.
                continue
            }
            compositor.handlePending(id, frameBudget: budgets.framesPerTurn)
            if !conn.dead, compositor.hasPendingFrame(id) { markReady(conn) }
            updateInterest(conn)
        }
    }

    /// Watches a connection for what it can do now: reading while nothing is held back,
    /// writing while output is queued.
    private func updateInterest(_ conn: Connection) {
        guard !conn.dead else { return }
        // Not read while a request waits for the next frame: its later frames wait with it.
        let read = !conn.closing && !conn.ready && !conn.isPaused && !compositor.isWaitingForFrame(conn.id)
        let write = conn.sendable > 0
        guard read != conn.interest.read || write != conn.interest.write else { return }
        conn.interest = (read, write)
        var interest: EventLoop.Interest = []
        if read { interest.insert(.readable) }
        if write { interest.insert(.writable) }
        try? loop.modify(conn.fd.rawValue, interest: interest, hangup: read)
    }

    func send(_ bytes: [UInt8], to id: ClientID) {
        guard let conn = connections[id], !conn.dead else { return }
        guard conn.queued + bytes.count <= budgets.maxQueuedBytes else {
            logger.warning("\(id) is not reading: \(conn.queued + bytes.count) bytes would be queued for it, over max_queued_bytes (\(budgets.maxQueuedBytes)): dropping it")
            droppedForQueue += 1
            drop(conn, "output budget")
            return
        }
        conn.enqueue(bytes)
        totalQueued += bytes.count
        flush(conn)
        if totalQueued > budgets.maxTotalQueuedBytes { shedOutput() }
    }

    /// Over the global output budget: the connections holding the most unread bytes go first.
    private func shedOutput() {
        while totalQueued > budgets.maxTotalQueuedBytes,
              let worst = connections.values.filter({ !$0.dead && $0.queued > 0 }).max(by: { $0.queued < $1.queued }) {
            logger.warning("\(worst.id) holds \(worst.queued) unread bytes while all clients hold \(totalQueued), over max_total_queued_bytes (\(budgets.maxTotalQueuedBytes)): dropping it")
            droppedForQueue += 1
            drop(worst, "global output budget")
        }
    }

    private func flush(_ conn: Connection) {
        guard !conn.dead else { return }
        while let first = conn.outgoing.first, conn.sendable > 0 {
            let n: Int
            do {
                let end = min(first.count, conn.sentOfFirst + conn.sendable)
                n = try first.withUnsafeBytes { p in
                    Result { () throws(SystemError) -> Int in
                        try conn.fd.write(UnsafeRawBufferPointer(rebasing: p[conn.sentOfFirst..<end]))
                    }
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
        if !conn.isPaused, compositor.hasPendingFrame(conn.id), !conn.ready {
            markReady(conn)
        }
        updateInterest(conn)
    }

    /// Where `client`'s output stream stands after everything queued for it (nil: not connected).
    func outputOffset(_ id: ClientID) -> Int? {
        guard let conn = connections[id], !conn.dead else { return nil }
        return conn.offset
    }

    /// Sends `client`'s output only up to byte `limit` of its stream (nil: all of it), and
    /// what may go now at once.
    func limitOutput(_ id: ClientID, to limit: Int?) {
        guard let conn = connections[id], !conn.dead, conn.limit != limit else { return }
        conn.limit = limit
        flush(conn)
    }

    func close(_ id: ClientID) {
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
        heapTrimmer?.clientLeft()
    }

    /// Connection counters for `stats`.
    var statistics: [Statistic] {
        var list = [
            Statistic(name: "queuedBytes", value: Double(totalQueued)),
            Statistic(name: "budget.maxTotalQueuedBytes", value: Double(budgets.maxTotalQueuedBytes)),
            Statistic(name: "budget.maxQueuedBytes", value: Double(budgets.maxQueuedBytes)),
            Statistic(name: "budget.pauseQueuedBytes", value: Double(budgets.pauseQueuedBytes)),
            Statistic(name: "budget.resumeQueuedBytes", value: Double(budgets.resumeQueuedBytes)),
            Statistic(name: "clientsDroppedForOutput", value: Double(droppedForQueue)),
            Statistic(name: "clientsDroppedForHandshake", value: Double(droppedForHandshake)),
            Statistic(name: "acceptPaused", value: acceptPausedSince == nil ? 0 : 1),
        ]
        for conn in connections.values.sorted(by: { $0.id < $1.id }) where conn.queued > 0 {
            list.append(Statistic(name: "queuedBytes.client.\(conn.id.rawValue)", value: Double(conn.queued)))
        }
        return list
    }
}
