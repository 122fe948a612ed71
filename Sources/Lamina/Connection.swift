#if canImport(Glibc)
import Glibc
#endif
import LaminaCore
import LaminaPlatform
import LaminaProtocol

/// A connection to laminad: the client's root layer, its transactions, and control requests.
///
/// ```swift
/// let connection = try Connection.connect()
/// let box = Layer()
/// box.bounds = Rect(x: 0, y: 0, width: 100, height: 50)
/// box.position = Point(x: 200, y: 300)
/// box.backgroundColor = .red
/// connection.rootLayer.addSublayer(box)   // committed with the implicit transaction
/// try await connection.sync()             // laminad has applied it (or this throws its error)
/// ```
@MainActor
public final class Connection {
    /// This client's root layer: laminad sizes it to the display and stacks the roots of all
    /// clients in connection order. Add layers to it to show them.
    public private(set) var rootLayer: Layer!
    /// The display's size in points (as of the last welcome).
    public private(set) var displaySize: Size
    /// The clock laminad's frames follow.
    public private(set) var clock: ClockKind
    /// laminad's protocol minor version (its welcome's): what it can be sent.
    public private(set) var serverMinorVersion: UInt16 = 0
    /// The server's number for this connection (a reconnection gets a new one).
    public private(set) var clientID: UInt32
    /// Whether the hello took over a kept session that has layers or values (its tree is in
    /// `rootLayer` now); false for a new session, whose layers appear for the first time.
    public private(set) var isResumedSession = false
    /// The virtual clock's time as of the last reply that carried it (welcome, advanceClock).
    private var virtualTime: Double

    /// `CACurrentMediaTime()` for this display: seconds of CLOCK_MONOTONIC, or with a virtual
    /// clock the time laminad last reported: at hello, after each `advanceClock`, and whenever
    /// another client moves it (laminad announces each move to every client; the time is
    /// current as of the last message read, so after a `sync()` it includes every earlier move).
    public var currentMediaTime: Double {
        guard clock == .virtual else { return monotonicSeconds() }
        // The clock only moves forward, so the later of the two is the newer.
        return Swift.max(virtualTime, channel.announcedClock ?? virtualTime)
    }

    /// Called on the main actor for every error laminad reports about a commit or the
    /// connection. The default prints it to standard error, so no error is ever silent;
    /// `sync()` also throws the first commit error since the last `sync()`.
    public var onError: (LaminaError) -> Void = { error in
        var stderr = StandardError()
        print("lamina: \(error)", to: &stderr)
    }

    private(set) var channel: Channel
    /// Carries the current channel's errors, events and end to this connection; replaced (and
    /// the old one cut off) at each reconnection.
    private var relay: EventRelay
    private let path: String
    private let hello: Hello
    private let reconnectPolicy: ReconnectPolicy?
    /// False from the moment laminad went away until the replay on a new connection was sent.
    public private(set) var isConnected = true
    /// Calls waiting for the reconnection (requests made while disconnected).
    private var reconnectWaiters: [CheckedContinuation<Void, any Error>] = []
    private var reconnectTask: Task<Void, Never>?
    /// Images alive on this connection, by number: a reconnection sends them again.
    private var liveImages: [UInt32: WeakImage] = [:]
    /// This connection's videos, by number, for their events.
    var liveVideos: [UInt32: WeakVideo] = [:]
    /// Called on the main actor when laminad goes away and when the connection is back
    /// (`connect(reconnect:)`).
    public var onConnectionEvent: (ConnectionEvent) -> Void = { _ in }
    private var nextID: UInt32 = 1
    /// Layers with changes to send, in the order they were first changed.
    /// Layers to create, in the order they were attached.
    private var dirty: [Layer] = []
    private var isDirty: Set<ObjectIdentifier> = []
    /// Changes since the last commit, in order.
    private var log: [PendingChange] = []
    private var released: [LayerID] = []
    private var liveIDs: Set<LayerID> = [.root]
    /// Every layer laminad knows, by number, for events.
    private var layers: [LayerID: WeakLayer] = [:]
    /// The layer laminad knows by `id`, if this client still has it.
    func layer(withID id: LayerID) -> Layer? { layers[id]?.layer }
    /// The live layers with gesture recognisers (for cancels, which reach them all).
    func layersWithRecognizers() -> [Layer] {
        layers.values.compactMap { $0.layer }.filter { !$0.gestureRecognizers.isEmpty }
    }
    /// Called after `advanceClock` moved the virtual clock (long-press recognisers); each
    /// returns false once its owner is gone, and is then dropped.
    var clockObservers: [() -> Bool] = []
    /// `inputEvents()` streams, by number.
    var inputStreams: [Int: AsyncStream<LayerInputEvent>.Continuation] = [:]
    var nextInputStream = 0
    /// Tags of explicit animations waiting for their events.
    var animationTags: [UInt32: (layer: WeakLayer, delegate: (any AnimationDelegate)?)] = [:]
    private var nextTag: UInt32 = 1
    /// Image operations since the last commit: creates and updates go before the layer
    /// changes (so `contents` can name a new image), destroys after them.
    private var imageOperations: [Operation] = []
    private var imageDestroys: [Operation] = []
    /// The memory files of the creates in `imageOperations`, in order, sent with the commit.
    private var imageDescriptors: [Int32] = []
    private var imageMemories: [SharedMemoryFile] = []
    private var nextImage: UInt32 = 1

    /// A new tag for an explicit animation's events.
    func makeTag() -> UInt32 {
        defer { nextTag = nextTag == .max ? 1 : nextTag + 1 }
        return nextTag
    }

    /// Connects to laminad.
    ///
    /// - Parameters:
    ///   - path: the socket. By default `$LAMINA_SOCKET` if set; otherwise
    ///     `$XDG_RUNTIME_DIR/lamina-0` and then `/run/lamina/lamina.sock`, the first that
    ///     answers (`SocketPath.candidates`). When none does, the error names each one tried.
    ///   - name: the client's name in laminad's logs and tree.
    ///   - session: a session name; with `keepLayers`, the layers stay on screen after this
    ///     connection closes and a later connection with the same session name takes them over
    ///     (its `rootLayer` then holds them again).
    ///   - reconnect: what to do when laminad goes away. nil (the default): the connection
    ///     ends, and `onError` hears `connectionClosed`. With a policy, the connection keeps the
    ///     model tree, reconnects with backoff and replays it (see `ReconnectPolicy`).
    public static func connect(to path: String? = nil, name: String = "lamina-client",
                               session: String = "", keepLayers: Bool = false,
                               reconnect: ReconnectPolicy? = nil) throws -> Connection {
        try Connection(candidates: SocketPath.candidates(path),
                       hello: Hello(clientName: name, session: session, flags: keepLayers ? .keepLayers : []),
                       reconnect: reconnect)
    }

    private init(candidates: [SocketPath.Candidate], hello: Hello, reconnect: ReconnectPolicy?) throws {
        let relay = EventRelay()
        let (channel, welcome, path) = try Self.open(candidates: candidates, hello: hello, relay: relay)
        self.channel = channel
        self.relay = relay
        self.path = path
        self.hello = hello
        reconnectPolicy = reconnect
        displaySize = Size(width: Double(welcome.displayWidth), height: Double(welcome.displayHeight))
        clock = welcome.clock
        serverMinorVersion = welcome.minor
        clientID = welcome.clientID
        virtualTime = welcome.time
        var rootProps = LayerProperties()
        rootProps.fitRoot(displayWidth: displaySize.width, displayHeight: displaySize.height)
        isResumedSession = !welcome.snapshot.isEmpty
        rootLayer = Layer(root: .root, connection: self, properties: rootProps)
        relay.connection = self
        restore(welcome.snapshot)
    }

    /// The path that answered is the one a reconnection uses.
    nonisolated private static func open(candidates: [SocketPath.Candidate], hello: Hello, relay: EventRelay) throws(LaminaError) -> (Channel, Welcome, String) {
        try Channel.open(candidates: candidates, hello: hello,
                         onServerError: { error in relay.deliver(error) },
                         onEvent: { message in relay.deliver(message) },
                         onClosed: { error in relay.closed(error) })
    }

    // MARK: Requests

    /// Waits until laminad has applied every transaction committed so far (committing the open
    /// implicit one first). Throws the first commit error laminad reported since the last sync.
    ///
    /// After a refused commit the model is first made what laminad holds (see `resynchronise`),
    /// so the values, sublayers and animations of the refused transaction are gone from the
    /// model too when this throws.
    public func sync() async throws {
        Transaction.flush()
        try await connected()
        do {
            try await channel.sync()
        } catch let e as LaminaError where e.serverError?.subject == .commit {
            await resynchronise()
            throw e
        }
    }

    /// The pixels on the display now.
    public func screenshot() async throws -> Bitmap {
        Transaction.flush()
        try await connected()
        guard case .screenshot(let b) = try await channel.request(.screenshot) else { throw unexpected("screenshot") }
        return b
    }

    /// laminad's model tree of every client, as JSON (docs/protocol.md).
    public func treeJSON() async throws -> String {
        Transaction.flush()
        try await connected()
        guard case .tree(let s) = try await channel.request(.tree) else { throw unexpected("tree") }
        return s
    }

    /// The virtual clock moved (this client's advance, or another's): timers on it run.
    private func clockMoved() {
        // On a copy: an observer's action may add recognisers (and observers) meanwhile.
        let observers = clockObservers
        clockObservers = []
        let kept = observers.filter { $0() }
        clockObservers = kept + clockObservers
    }

    /// Moves a virtual clock forward; laminad renders the frame at the new time.
    /// Returns the new time and the number of frames rendered so far.
    @discardableResult
    public func advanceClock(by seconds: Double) async throws -> (time: Double, framesRendered: UInt64) {
        Transaction.flush()
        try await connected()
        guard case let .advanced(t, f) = try await channel.request(.advanceClock(seconds: seconds)) else { throw unexpected("advance") }
        virtualTime = t
        clockMoved()
        return (t, f)
    }

    /// laminad's counters.
    public func stats() async throws -> [Statistic] {
        Transaction.flush()
        try await connected()
        guard case .stats(let s) = try await channel.request(.stats) else { throw unexpected("stats") }
        return s
    }

    /// The presentation values of `layer` on screen now (`layer.presentation()` calls this).
    func presentation(of layer: Layer) async throws -> LayerProperties {
        Transaction.flush()
        try await connected()
        guard let id = layer.serverID else { return layer.model }
        guard case .presentation(let p, _) = try await channel.request(.presentation(id)) else { throw unexpected("presentation") }
        return p
    }

    /// laminad's model tree with every animated layer's presentation values beside its model values.
    public func presentationTreeJSON() async throws -> String {
        Transaction.flush()
        try await connected()
        guard case .tree(let s) = try await channel.request(.presentationTree) else { throw unexpected("presentation tree") }
        return s
    }

    /// Asks laminad to send every client's animation and transaction events to `onWatchEvent`.
    public func watch() async throws {
        try await connected()
        guard case .watching = try await channel.request(.watch) else { throw unexpected("watch") }
    }

    /// Turns laminad's displays off (blanked) or back on: the output named (a connector name
    /// such as "Virtual-1"), or every output when `output` is nil. Returns the backend's name
    /// and every output's state afterwards; a backend without physical outputs (headless)
    /// has none. Throws laminad's `invalid-request` error for an output it does not have.
    @discardableResult
    public func setDisplayPower(_ on: Bool, output: String? = nil) async throws -> (backend: String, outputs: [OutputPower]) {
        try await connected()
        guard case let .displayPower(backend, outputs) = try await channel.request(.displayPower(on: on, output: output ?? "")) else {
            throw unexpected("display power")
        }
        return (backend, outputs)
    }

    /// Called with each JSON line of events after `watch()`.
    public var onWatchEvent: (String) -> Void = { _ in }

    /// A message laminad sent on its own: animation events, completions, watch lines.
    func received(_ message: ServerMessage) {
        switch message {
        case .animationEvent(let n):
            guard let entry = animationTags[n.tag] else { return }
            if !n.started { animationTags[n.tag] = nil }
            entry.layer.layer?.animationEvent(tag: n.tag, started: n.started, finished: n.finished, delegate: entry.delegate)
        case .transactionCompleted(let group):
            Transaction.completionReported(group)
        case .watch(let line):
            onWatchEvent(line)
        case .input(let e):
            receivedInput(e)
        case .clock:
            clockMoved()
        case let .video(number, event):
            liveVideos[number]?.video?.received(event)
        default:
            break
        }
    }

    /// Closes the connection. Unless the session keeps them, laminad removes this client's layers.
    /// A reconnection in progress stops, and calls waiting for it fail.
    public func close() {
        Transaction.flush()
        isClosed = true
        reconnectTask?.cancel()
        reconnectTask = nil
        failReconnectWaiters(.connectionClosed("the connection was closed"))
        channel.close()
    }

    // MARK: Resynchronisation

    private var resyncTask: Task<Void, Never>?
    /// Another commit was refused while a resynchronisation was under way: run it again.
    private var resyncAgain = false
    /// While a resynchronisation waits for laminad's snapshot: what commits sent meanwhile
    /// changed (the snapshot may not show them; they are not put back).
    private var sentDuringResync: (sets: Set<SetKey>, layers: Set<ObjectIdentifier>)?

    /// An error from laminad about a commit or the connection (the relay's path to `onError`).
    func serverError(_ error: LaminaError) {
        onError(error)
        guard error.serverError?.subject == .commit else { return }
        if resyncTask != nil { resyncAgain = true } else { resyncTask = Task { await resynchronise() } }
    }

    /// Notes what a commit about to be sent changes, while a resynchronisation waits.
    private func noteSentDuringResync() {
        guard var sent = sentDuringResync else { return }
        for change in log {
            switch change.kind {
            case let .set(layer, key): sent.sets.insert(SetKey(layer: ObjectIdentifier(layer), key: key))
            case .structure(let layer), .operation(let layer, _): sent.layers.insert(ObjectIdentifier(layer))
            case .settings: break
            }
        }
        for layer in dirty { sent.layers.insert(ObjectIdentifier(layer)) }
        sentDuringResync = sent
    }

    /// Makes the model what laminad holds, after it refused a commit: laminad applies a commit
    /// whole or not at all, so the refused transaction's values, new layers, sublayer changes
    /// and animations are in the client's model but not in laminad's tree. This asks for this
    /// client's tree (request `snapshot`, answered after every commit sent before it) and puts
    /// the model back: property values, sublayer lists (layers laminad never created are
    /// removed from their superlayers), actions, and the keys of explicit animations. Changes
    /// made since, not yet committed, are left as they are and sent with the next commit.
    public func resynchronise() async {
        defer { resyncTask = nil }
        repeat {
            resyncAgain = false
            await resynchroniseOnce()
        } while resyncAgain
    }

    private func resynchroniseOnce() async {
        // Changes waiting now go first, so the snapshot shows them.
        Transaction.flush()
        sentDuringResync = ([], [])
        let reply = try? await channel.request(.snapshot)
        let sent = sentDuringResync ?? ([], [])
        sentDuringResync = nil
        guard isConnected, case .snapshot(let ops)? = reply else { return }
        // laminad's tree.
        var props: [LayerID: LayerProperties] = [.root: LayerProperties()]
        var sublayers: [LayerID: [LayerID]] = [:]
        var actions: [LayerID: [String: Action]] = [:]
        var styleActions: [LayerID: [String: Action]] = [:]
        var animationKeys: [LayerID: Set<String>] = [:]
        for op in ops {
            switch op {
            case let .create(id, kind): props[id] = LayerProperties(kind: kind)
            case let .set(id, key, value): try? props[id]?.set(key, value)
            case let .insert(parent, child, _): sublayers[parent, default: []].append(child)
            case let .setAction(id, .actions, key, action): actions[id, default: [:]][key] = action
            case let .setAction(id, .style, key, action): styleActions[id, default: [:]][key] = action
            case let .addAnimation(id, key, _, _): animationKeys[id, default: []].insert(key)
            default: break
            }
        }
        // What the client changed since, still to be sent: left alone.
        var pendingSets = sent.sets
        var pendingStructure = sent.layers
        var pendingOperations = sent.layers
        for change in log {
            switch change.kind {
            case let .set(layer, key): pendingSets.insert(SetKey(layer: ObjectIdentifier(layer), key: key))
            case .structure(let layer): pendingStructure.insert(ObjectIdentifier(layer))
            case .operation(let layer, _): pendingOperations.insert(ObjectIdentifier(layer))
            case .settings: break
            }
        }
        let (savedLog, savedDirty, savedIsDirty) = (log, dirty, isDirty)
        let all = allLayers()
        for l in all {
            guard let id = l.serverID, !l.needsCreate else { continue }
            let me = ObjectIdentifier(l)
            guard let server = props[id] else {
                // Created in a refused commit: laminad never had it. It leaves the tree and
                // this connection (with its animations, which laminad never ran); added again,
                // it is created afresh.
                l.removeFromSuperlayer()
                l.animationState.attached.removeAll()
                l.connection = nil
                l.serverID = nil
                layers[id] = nil
                liveIDs.remove(id)
                continue
            }
            for key in l.model.changedKeys(from: server) where !pendingSets.contains(SetKey(layer: me, key: key)) {
                let value = server[key]
                switch (key, value) {
                case (.mask, .layer(let n)): l.restoreMask(n == 0 ? nil : layers[LayerID(n)]?.layer)
                case (.contents, .image(let n)): l.contentsImage = n == 0 ? nil : liveImages[n]?.image
                default: break
                }
                l.setValue(value, forKey: key)
            }
            if !pendingStructure.contains(me) {
                let now = l.sublayers.compactMap(\.serverID)
                let theirs = sublayers[id] ?? []
                if now != theirs {
                    for child in l.sublayers { child.removeFromSuperlayer() }
                    for child in theirs.compactMap({ layers[$0]?.layer }) { l.insertSublayer(child, at: l.sublayers.count) }
                }
                l.structureChanged = false
                l.serverSublayers = l.sublayers.compactMap(\.serverID)
            }
            if !pendingOperations.contains(me) {
                let keys = animationKeys[id] ?? []
                l.animationState.attached.removeAll { $0.sent && $0.key.map { !keys.contains($0) } ?? false }
                l.animationState.actions = actions[id] ?? [:]
                l.animationState.styleActions = styleActions[id] ?? [:]
            }
        }
        // Putting the model back is not a change to send.
        (log, dirty, isDirty) = (savedLog, savedDirty, savedIsDirty)
        if !hasChanges { Transaction.forget(self) }
    }

    // MARK: Reconnection

    /// How a connection comes back after laminad went away (a crash, a restart, or laminad
    /// dropping this client): it keeps its model tree, tries again after `initialDelay`,
    /// doubling the wait up to `maximumDelay`, and on success replays the whole tree, its
    /// images, its videos (`VideoSource`: loop, rate, play state and the media time reached,
    /// by the same re-timing as animations) and its explicit animations in one commit, with
    /// actions disabled.
    ///
    /// Animations are re-timed to the new connection: on the real clock (CLOCK_MONOTONIC,
    /// which kept running) each carries on where it would have been; on a virtual clock it
    /// keeps the progress it had at the clock's last time laminad reported (laminad announces
    /// every move of the virtual clock to every client). Implicit animations in flight are not
    /// replayed: their layers show the model values.
    ///
    /// Calls in flight when laminad went away (`sync()`, requests) fail with
    /// `connectionClosed`; calls made while reconnecting wait, and complete on the new
    /// connection after the replay (a `sync()` then confirms the replay was applied). Changes
    /// made while disconnected are kept in the model and go with the replay.
    public struct ReconnectPolicy: Sendable, Equatable {
        public var initialDelay: Double
        public var maximumDelay: Double
        /// Attempts before giving up (nil: until `close()`).
        public var maximumAttempts: Int?
        public init(initialDelay: Double = 0.05, maximumDelay: Double = 2, maximumAttempts: Int? = nil) {
            self.initialDelay = initialDelay
            self.maximumDelay = maximumDelay
            self.maximumAttempts = maximumAttempts
        }
        public static let standard = ReconnectPolicy()
    }

    /// What `onConnectionEvent` hears.
    public enum ConnectionEvent: Sendable, Equatable {
        /// laminad went away; the connection is trying to come back.
        case disconnected(LaminaError)
        /// Connected again after this many attempts, and the model tree was replayed.
        case reconnected(attempts: Int)
        /// `maximumAttempts` failed; the connection is closed.
        case gaveUp(LaminaError)
    }

    /// Returns once connected; while reconnecting, waits for the replay.
    func connected() async throws {
        if isConnected { return }
        guard reconnectTask != nil, !isClosed else { throw LaminaError.connectionClosed("the connection is closed") }
        try await withCheckedThrowingContinuation { reconnectWaiters.append($0) }
    }

    private func failReconnectWaiters(_ error: LaminaError) {
        let waiters = reconnectWaiters
        reconnectWaiters.removeAll()
        for w in waiters { w.resume(throwing: error) }
    }

    /// The current channel ended (the relay of an older one is cut off, so this is the current one).
    func channelClosed(_ error: LaminaError) {
        guard !isClosed else { return }
        guard let policy = reconnectPolicy else {
            onError(error)
            return
        }
        isConnected = false
        onConnectionEvent(.disconnected(error))
        let lastTime = currentMediaTime
        reconnectTask = Task { [weak self] in
            var delay = policy.initialDelay
            var attempts = 0
            var lastError = error
            while !Task.isCancelled {
                attempts += 1
                try? await Task.sleep(nanoseconds: UInt64(max(0, delay) * 1e9))
                guard let self, !Task.isCancelled, !self.isClosed else { return }
                let relay = EventRelay()
                let (path, hello) = (self.path, self.hello)
                let opened = await Task.detached { () -> Result<(Channel, Welcome), LaminaError> in
                    do throws(LaminaError) {
                        let (channel, welcome, _) = try Self.open(candidates: [SocketPath.Candidate(path: path, source: path)], hello: hello, relay: relay)
                        return .success((channel, welcome))
                    } catch { return .failure(error) }
                }.value
                guard !Task.isCancelled, !self.isClosed else {
                    if case .success(let (c, _)) = opened { c.close() }
                    return
                }
                switch opened {
                case .success(let (channel, welcome)):
                    self.resumed(on: channel, relay: relay, welcome: welcome, lastTime: lastTime)
                    self.onConnectionEvent(.reconnected(attempts: attempts))
                    return
                case .failure(let e):
                    lastError = e
                    if let max = policy.maximumAttempts, attempts >= max {
                        self.reconnectTask = nil
                        self.isClosed = true
                        self.failReconnectWaiters(e)
                        self.onConnectionEvent(.gaveUp(lastError))
                        return
                    }
                    delay = min(policy.maximumDelay, max(delay * 2, 0.001))
                }
            }
        }
    }

    /// Switches to a new channel and replays the model tree on it.
    private func resumed(on channel: Channel, relay newRelay: EventRelay, welcome: Welcome, lastTime: Double) {
        relay.connection = nil
        relay = newRelay
        newRelay.connection = self
        self.channel = channel
        reconnectTask = nil
        let oldClock = clock
        displaySize = Size(width: Double(welcome.displayWidth), height: Double(welcome.displayHeight))
        clock = welcome.clock
        serverMinorVersion = welcome.minor
        clientID = welcome.clientID
        virtualTime = welcome.time
        // The real clock kept running through the gap; any other change of clock moves the
        // animations' times by the difference between the old reading and the new one.
        let shift = oldClock == .real && welcome.clock == .real ? 0 : welcome.time - lastTime
        let (ops, descriptors, memories) = replayOperations(snapshot: welcome.snapshot, shift: shift, from: lastTime, now: welcome.time)
        isConnected = true
        do throws(LaminaError) {
            try withExtendedLifetime(memories) { () throws(LaminaError) in _ = try channel.commit(ops, descriptors: descriptors) }
        } catch {
            onError(error)
        }
        let waiters = reconnectWaiters
        reconnectWaiters.removeAll()
        for w in waiters { w.resume() }
    }

    /// One commit that makes laminad's tree this client's model: what the server still holds
    /// for the session (a kept session, or one restored from laminad's journal) destroyed, then
    /// every live image and video, every layer with its properties, sublayers, actions and
    /// animations. A video plays on from the media time it had reached: at the old clock's
    /// last reading (`lastTime`), or on the same real clock (`shift` 0), now.
    private func replayOperations(snapshot: [Operation], shift: Double, from lastTime: Double, now: Double)
        -> ([Operation], [Int32], [SharedMemoryFile]) {
        var ops: [Operation] = [.settings(TransactionSettings(disableActions: true))]
        liveVideos = liveVideos.filter { $0.value.video.map { !$0.isDestroyed } ?? false }
        // Videos an earlier client of the session made (`init(existing:)`) cannot be made
        // again here: laminad's copies stay.
        let kept = Set(liveVideos.filter { !($0.value.video?.isReplayed ?? false) }.keys)
        var oldImages = Set<UInt32>()
        for op in snapshot {
            switch op {
            case let .create(id, _): ops.append(.destroy(id))
            case let .set(_, .contents, .image(n)) where n != 0 && !kept.contains(n): oldImages.insert(n)
            default: break
            }
        }
        ops += oldImages.sorted().map { .destroyImage(image: $0) }
        var descriptors: [Int32] = []
        var memories: [SharedMemoryFile] = []
        liveImages = liveImages.filter { $0.value.image.map { !$0.isDestroyed } ?? false }
        for (number, weak) in liveImages.sorted(by: { $0.key < $1.key }) {
            guard let image = weak.image else { continue }
            ops.append(.createImage(image: number, image.format))
            descriptors.append(image.memory.fd.rawValue)
            memories.append(image.memory)
        }
        for (_, weak) in liveVideos.sorted(by: { $0.key < $1.key }) {
            guard let video = weak.video else { continue }
            ops += video.replayOperations(position: video.mediaTime(at: shift == 0 ? now : lastTime), now: now) ?? []
        }
        let all = allLayers()
        for l in all where l !== rootLayer { if let id = l.serverID { ops.append(.create(id, kind: l.kind)) } }
        for l in all {
            guard let id = l.serverID else { continue }
            for key in l.keysToCreate where !(l === rootLayer && (key == .bounds || key == .position)) {
                ops.append(.set(id, key, l.wireValue(key)))
            }
        }
        for l in all {
            guard let id = l.serverID else { continue }
            for (n, child) in l.sublayers.enumerated() {
                if let c = child.serverID { ops.append(.insert(parent: id, child: c, index: UInt32(n))) }
            }
            for (key, action) in l.animationState.actions.sorted(by: { $0.key < $1.key }) {
                ops.append(.setAction(id, dictionary: .actions, key: key, action))
            }
            for (key, action) in l.animationState.styleActions.sorted(by: { $0.key < $1.key }) {
                ops.append(.setAction(id, dictionary: .style, key: key, action))
            }
            let move = shift == 0 ? 0 : l.convertTime(lastTime + shift, from: nil) - l.convertTime(lastTime, from: nil)
            for e in l.animationState.attached where e.sent {
                var a = e.animation
                a.timing.beginTime = (e.resolvedBegin ?? a.timing.beginTime) + move
                ops.append(.addAnimation(id, key: e.key ?? "", tag: e.tag, a))
            }
            l.needsCreate = false
            l.structureChanged = false
            l.serverSublayers = l.sublayers.compactMap(\.serverID)
        }
        discardPending()
        return (ops, descriptors, memories)
    }

    /// Every layer this connection shows or holds: the root's tree in order, masks included,
    /// then the detached layers of a resumed session (`orphans`) and theirs.
    private func allLayers() -> [Layer] {
        var all: [Layer] = []
        var stack: [Layer] = [rootLayer] + orphans.reversed()
        while let l = stack.popLast() {
            all.append(l)
            if let m = l.maskLayer { stack.append(m) }
            stack += l.sublayers.reversed()
        }
        return all
    }

    /// Forgets the changes waiting to be sent: the model holds them, and the replay sends the model.
    private func discardPending() {
        dirty.removeAll()
        isDirty.removeAll()
        log.removeAll()
        released.removeAll()
        imageOperations.removeAll()
        imageDestroys.removeAll()
        imageDescriptors.removeAll()
        imageMemories.removeAll()
        Transaction.forget(self)
    }

    /// Set by `close()`: images released afterwards stay in laminad (with a kept session's layers).
    private var isClosed = false

    func unexpected(_ what: String) -> LaminaError {
        .protocolViolation("laminad answered a \(what) request with another kind of reply")
    }

    // MARK: Change tracking (called by Layer)

    /// One change waiting for the commit, with the transaction settings in force when it was made.
    struct PendingChange {
        enum Kind {
            /// A property was set: sent with its value at commit time, once, at its last change.
            case set(Layer, PropertyKey)
            /// A layer's sublayers changed: sent as removes and inserts at its last change.
            case structure(Layer)
            /// An operation on an existing layer (animations, actions), made once the layer has a number.
            case operation(Layer, (LayerID) -> Operation)
            /// Nothing to send but the settings (a completion group that must reach laminad).
            case settings
        }
        var kind: Kind
        var settings: TransactionSettings
    }

    func noteChanged(_ layer: Layer) {
        if layer.needsCreate, isDirty.insert(ObjectIdentifier(layer)).inserted { dirty.append(layer) }
        if layer.structureChanged { log.append(PendingChange(kind: .structure(layer), settings: Transaction.currentSettings)) }
        Transaction.noteChange(on: self)
    }

    /// A property of `layer` changed. With `disableActions`, laminad must not animate it
    /// (the layer's delegate answered the action itself).
    func noteSet(_ layer: Layer, _ key: PropertyKey, disableActions: Bool = false) {
        var settings = Transaction.currentSettings
        if disableActions { settings.disableActions = true }
        log.append(PendingChange(kind: .set(layer, key), settings: settings))
        Transaction.noteChange(on: self)
    }

    /// An animation or action operation for `layer`.
    func noteOperation(_ layer: Layer, _ make: @escaping (LayerID) -> Operation) {
        log.append(PendingChange(kind: .operation(layer, make), settings: Transaction.currentSettings))
        Transaction.noteChange(on: self)
    }

    /// A transaction with a completion block closed; returns false when this connection has
    /// nothing pending (so it will not report the group).
    func markCompletion(_ settings: TransactionSettings) -> Bool {
        guard hasChanges else { return false }
        log.append(PendingChange(kind: .settings, settings: settings))
        return true
    }

    /// Gives `layer` and every sublayer not yet known to laminad a number and marks it for creation.
    func attach(_ layer: Layer) {
        if layer.connection == nil {
            layer.connection = self
            var id = LayerID(nextID)
            while liveIDs.contains(id) { nextID &+= 1; id = LayerID(nextID) }
            nextID &+= 1
            liveIDs.insert(id)
            layer.serverID = id
            layers[id] = WeakLayer(layer)
            layer.needsCreate = true
            layer.structureChanged = !layer.sublayers.isEmpty
            noteChanged(layer)
            layer.sendPendingAnimations()
        }
        for s in layer.sublayers { attach(s) }
        if let m = layer.maskLayer {
            attach(m)
            layer.refreshMaskNumber()
        }
    }

    func layerWasReleased(_ id: LayerID) {
        released.append(id)
        liveIDs.remove(id)
        layers[id] = nil
        Transaction.noteChange(on: self)
    }

    var hasChanges: Bool {
        !dirty.isEmpty || !released.isEmpty || !log.isEmpty || !imageOperations.isEmpty || !imageDestroys.isEmpty
    }

    /// A number for a new image.
    func registerImage() -> UInt32 {
        defer { nextImage = nextImage == .max ? 1 : nextImage + 1 }
        return nextImage
    }

    /// A new image, remembered (weakly) so a reconnection can send it again.
    func imageCreated(_ image: Image) { liveImages[image.number] = WeakImage(image) }

    /// An image create (with its memory file's descriptor) or update, sent with the next commit.
    func noteImageOperation(_ op: Operation, descriptor: Int32? = nil, keeping memory: SharedMemoryFile? = nil) {
        imageOperations.append(op)
        if let descriptor { imageDescriptors.append(descriptor) }
        if let memory { imageMemories.append(memory) }
        Transaction.noteChange(on: self)
    }

    /// An image goes; a create still pending for it is dropped with its updates.
    func noteImageDestroyed(_ number: UInt32) {
        guard !isClosed else { return }
        if let i = imageOperations.firstIndex(where: { if case .createImage(number, _) = $0 { true } else { false } }) {
            let created = imageOperations.prefix(through: i).filter { $0.descriptorCount > 0 }.count - 1
            imageDescriptors.remove(at: created)
            imageMemories.remove(at: created)
            imageOperations.removeAll {
                switch $0 {
                case .createImage(number, _), .updateImage(number, _): true
                default: false
                }
            }
            return
        }
        imageDestroys.append(.destroyImage(image: number))
        Transaction.noteChange(on: self)
    }

    /// Whether changes wait for the current transaction to commit. Every request (`sync`,
    /// `screenshot`, `stats`, …) commits the implicit transaction first, so it sees them.
    public var hasUncommittedChanges: Bool { hasChanges }

    /// The operations that bring laminad's tree to this client's model, in an order laminad
    /// accepts: creates (with every non-default property), then the changes in the order they
    /// were made, each under the transaction settings it was made with, then destroys.
    func takeOperations() -> [Operation] {
        var ops: [Operation] = []
        var created: Set<ObjectIdentifier> = []
        // Every create before any set: a set may name another new layer (`mask`).
        let creating = dirty.filter { $0.needsCreate && $0.serverID != nil }
        for layer in creating { ops.append(.create(layer.serverID!, kind: layer.kind)) }
        for layer in creating {
            let id = layer.serverID!
            for key in layer.keysToCreate { ops.append(.set(id, key, layer.wireValue(key))) }
            layer.needsCreate = false
            created.insert(ObjectIdentifier(layer))
        }
        // A value is sent once, at its last change; a sublayer list once, at its last change.
        var lastSet: [SetKey: Int] = [:]
        var lastStructure: [ObjectIdentifier: Int] = [:]
        for (i, change) in log.enumerated() {
            switch change.kind {
            case let .set(layer, key): lastSet[SetKey(layer: ObjectIdentifier(layer), key: key)] = i
            case .structure(let layer): lastStructure[ObjectIdentifier(layer)] = i
            default: break
            }
        }
        var current = TransactionSettings.default
        func settings(_ s: TransactionSettings) {
            if s != current {
                ops.append(.settings(s))
                current = s
            }
        }
        for (i, change) in log.enumerated() {
            switch change.kind {
            case let .set(layer, key):
                guard lastSet[SetKey(layer: ObjectIdentifier(layer), key: key)] == i, let id = layer.serverID,
                      !created.contains(ObjectIdentifier(layer)) else { continue }
                settings(change.settings)
                ops.append(.set(id, key, layer.wireValue(key)))
            case .structure(let layer):
                guard lastStructure[ObjectIdentifier(layer)] == i, let id = layer.serverID else { continue }
                settings(change.settings)
                ops += structureOperations(layer, id)
            case let .operation(layer, make):
                guard let id = layer.serverID else { continue }
                settings(change.settings)
                ops.append(make(id))
            case .settings:
                settings(change.settings)
            }
        }
        log.removeAll()
        dirty.removeAll()
        isDirty.removeAll()
        ops += released.map { Operation.destroy($0) }
        released.removeAll()
        return ops
    }

    private struct SetKey: Hashable {
        var layer: ObjectIdentifier
        var key: PropertyKey
    }

    /// Removes and inserts that turn the server's sublayer list of `layer` into the current one.
    /// A sublayer that moved to another superlayer is not removed here: inserting it there
    /// moves it, whichever of the two changes is sent first.
    private func structureOperations(_ layer: Layer, _ id: LayerID) -> [Operation] {
        var ops: [Operation] = []
        let now = layer.sublayers.compactMap(\.serverID)
        for old in layer.serverSublayers where !now.contains(old) && !released.contains(old) {
            if layers[old]?.layer?.superlayer == nil { ops.append(.remove(old)) }
        }
        // Inserting a present child moves it, so inserting from the first difference onwards
        // leaves exactly `now`.
        let kept = layer.serverSublayers.filter { now.contains($0) }
        var first = 0
        while first < kept.count, first < now.count, kept[first] == now[first] { first += 1 }
        for i in first..<now.count { ops.append(.insert(parent: id, child: now[i], index: UInt32(i))) }
        layer.serverSublayers = now
        layer.structureChanged = false
        return ops
    }

    /// Rebuilds the layer objects of a resumed session from laminad's snapshot.
    private func restore(_ snapshot: [Operation]) {
        // The session's layers may show images made by an earlier client: new ones get numbers above them.
        for op in snapshot {
            if case .set(_, .contents, .image(let n)) = op, n >= nextImage { nextImage = n == .max ? 1 : n + 1 }
        }
        var byID: [LayerID: Layer] = [.root: rootLayer]
        for op in snapshot {
            switch op {
            case let .create(id, kind):
                let l = Layer.make(kind: kind)
                l.connection = self
                l.serverID = id
                byID[id] = l
                layers[id] = WeakLayer(l)
                liveIDs.insert(id)
                nextID = max(nextID, id.rawValue &+ 1)
            case let .set(id, key, value):
                byID[id]?.setValue(value, forKey: key)
                if key == .mask, case .layer(let n) = value { byID[id]?.restoreMask(byID[LayerID(rawValue: n)]) }
            case let .insert(parent, child, index):
                if let p = byID[parent], let c = byID[child] { p.insertSublayer(c, at: Int(index)) }
            case let .setAction(id, dictionary, key, action):
                byID[id]?.restoreAction(action, forKey: key, in: dictionary)
            default:
                break
            }
        }
        // What was restored is what the server has: nothing to send.
        for l in byID.values {
            l.structureChanged = false
            l.serverSublayers = l.sublayers.compactMap(\.serverID)
        }
        dirty.removeAll()
        isDirty.removeAll()
        log.removeAll()
        Transaction.forget(self)
        // Layers laminad has but that are in no tree: held in `orphans` so they are not destroyed behind the client's back.
        orphans = byID.values.filter { $0.superlayer == nil && $0 !== rootLayer }
    }

    /// Detached layers of a resumed session, held so they are not destroyed behind the client's back.
    public private(set) var orphans: [Layer] = []

    func commitPending() {
        guard hasChanges else { return }
        // Disconnected: the model keeps the changes, and the replay on reconnection sends them.
        guard isConnected else { return discardPending() }
        noteSentDuringResync()
        let ops = imageOperations + takeOperations() + imageDestroys
        let descriptors = imageDescriptors
        let memories = imageMemories
        imageOperations = []
        imageDestroys = []
        imageDescriptors = []
        imageMemories = []
        guard !ops.isEmpty else { return }
        do throws(LaminaError) {
            // The memory files stay open (held by their images) until the frame is sent.
            try withExtendedLifetime(memories) { () throws(LaminaError) in _ = try channel.commit(ops, descriptors: descriptors) }
        } catch {
            onError(error)
        }
    }
}

/// Carries server errors and events from the reader thread to the connection on the main actor.
final class EventRelay: @unchecked Sendable {
    // Written once on the main actor before the reader can report anything it matters for;
    // read only inside main-actor tasks.
    nonisolated(unsafe) weak var connection: Connection?

    func deliver(_ error: LaminaError) {
        Task { @MainActor [self] in
            connection?.serverError(error)
        }
    }

    func deliver(_ message: ServerMessage) {
        Task { @MainActor [self] in
            connection?.received(message)
        }
    }

    func closed(_ error: LaminaError) {
        Task { @MainActor [self] in
            connection?.channelClosed(error)
        }
    }
}

/// An image held weakly (a reconnection replays the images still alive).
struct WeakImage {
    weak var image: Image?
    init(_ image: Image) { self.image = image }
}

/// A layer held weakly (event routing must not keep layers alive).
struct WeakLayer {
    weak var layer: Layer?
    init(_ layer: Layer) { self.layer = layer }
}

struct StandardError: TextOutputStream {
    mutating func write(_ string: String) {
        var s = string
        s.withUTF8 { p in _ = Glibc.write(2, p.baseAddress, p.count) }
    }
}
