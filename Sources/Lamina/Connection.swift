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
    /// The display's size in points: the welcome's, then each `display-changed`'s.
    public internal(set) var displaySize: Size
    /// The outputs and where each shows the desktop, as of the last `display-changed`; nil
    /// until laminad sends one (protocol 1.7: after an output changed).
    public internal(set) var displayLayout: DisplayLayout?
    /// Called on the main actor after the display changed (an output's mode, a display plugged
    /// in or out), with `displaySize` and `rootLayer` already following it.
    public var onDisplayChange: (DisplayLayout) -> Void = { _ in }
    /// Called with each `app-surface` event while this client manages apps (`manageApps()`).
    public var onAppSurface: (AppSurfaceEvent) -> Void = { _ in }
    /// The app windows up now, by number, while this client manages apps.
    public internal(set) var appSurfaces: [UInt32: AppSurface] = [:]
    /// Whether this client asked to manage apps (made again after a reconnection).
    var managesApps = false
    /// The clock laminad's frames follow.
    public internal(set) var clock: ClockKind
    /// laminad's protocol minor version (its welcome's): what it can be sent.
    public internal(set) var serverMinorVersion: UInt16 = 0
    /// The server's number for this connection (a reconnection gets a new one).
    public internal(set) var clientID: UInt32
    /// Whether the hello took over a kept session that has layers or values (its tree is in
    /// `rootLayer` now); false for a new session, whose layers appear for the first time.
    public private(set) var isResumedSession = false
    /// The virtual clock's time as of the last reply that carried it (welcome, advanceClock).
    var virtualTime: Double

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

    var channel: Channel
    /// Carries the current channel's errors, events and end to this connection; replaced (and
    /// the old one cut off) at each reconnection.
    var relay: EventRelay
    let path: String
    let hello: Hello
    let reconnectPolicy: ReconnectPolicy?
    /// False from the moment laminad went away until the replay on a new connection was sent.
    public internal(set) var isConnected = true
    /// Calls waiting for the reconnection (requests made while disconnected).
    var reconnectWaiters: [CheckedContinuation<Void, any Error>] = []
    var reconnectTask: Task<Void, Never>?
    /// Images alive on this connection, by number: a reconnection sends them again.
    var liveImages: [UInt32: WeakImage] = [:]
    /// This connection's videos, by number, for their events.
    var liveVideos: [UInt32: WeakVideo] = [:]
    /// Called on the main actor when laminad goes away and when the connection is back
    /// (`connect(reconnect:)`).
    public var onConnectionEvent: (ConnectionEvent) -> Void = { _ in }
    var nextID: UInt32 = 1
    /// Layers with changes to send, in the order they were first changed.
    /// Layers to create, in the order they were attached.
    var dirty: [Layer] = []
    var isDirty: Set<ObjectIdentifier> = []
    /// Changes since the last commit, in order.
    var log: [PendingChange] = []
    /// Layers marked as needing layout since the last commit (`Layer.setNeedsLayout`).
    var needsLayout: [WeakLayer] = []
    /// Layers marked by `setNeedsDisplay()`, displayed before the next commit.
    var needsDisplay: [WeakLayer] = []
    var released: [LayerID] = []
    var liveIDs: Set<LayerID> = [.root]
    /// Every layer laminad knows, by number, for events.
    var layers: [LayerID: WeakLayer] = [:]
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
    var imageOperations: [Operation] = []
    var imageDestroys: [Operation] = []
    /// Supply-tile and drop-tiles operations (TiledLayer.swift), after the layers' and images'.
    var tileOperations: [Operation] = []
    /// The memory files of the creates in `imageOperations`, in order, sent with the commit.
    var imageDescriptors: [Int32] = []
    var imageMemories: [SharedMemoryFile] = []
    var nextImage: UInt32 = 1
    /// Display links until invalidated, by number (`DisplayLink`).
    var displayLinks: [UInt32: DisplayLink] = [:]
    var nextDisplayLink: UInt32 = 1

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
        if isResumedSession {
            // laminad reports the events of an earlier client's animations and transactions in
            // the session to this connection, under that client's numbers: start far from them.
            nextTag = 0x8000_0000 | UInt32.random(in: 0...0x3FFF_FFFF)
            Transaction.numberGroupsAwayFromEarlierClients()
        }
    }

    /// The path that answered is the one a reconnection uses.
    nonisolated static func open(candidates: [SocketPath.Candidate], hello: Hello, relay: EventRelay) throws(LaminaError) -> (Channel, Welcome, String) {
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
        case .scroll(let e):
            receivedScroll(e)
        case .displayChanged(let layout):
            displayChanged(layout)
        case .frame(let f):
            receivedFrame(f)
        case .tilesWanted(let m):
            receivedTilesWanted(m)
        case .appSurface(let e):
            receivedAppSurface(e)
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

    // MARK: State the extensions keep

    // Resynchronisation (Connection+Resynchronisation.swift).
    var resyncTask: Task<Void, Never>?
    /// Another commit was refused while a resynchronisation was under way: run it again.
    var resyncAgain = false
    /// While a resynchronisation waits for laminad's snapshot: what commits sent meanwhile
    /// changed (the snapshot may not show them; they are not put back).
    var sentDuringResync: (sets: Set<SetKey>, layers: Set<ObjectIdentifier>)?

    /// Set by `close()`: images released afterwards stay in laminad (with a kept session's layers).
    var isClosed = false

    /// Detached layers of a resumed session, held so they are not destroyed behind the client's back.
    public internal(set) var orphans: [Layer] = []

    func unexpected(_ what: String) -> LaminaError {
        .protocolViolation("laminad answered a \(what) request with another kind of reply")
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
