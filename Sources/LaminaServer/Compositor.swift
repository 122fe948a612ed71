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
        /// Videos decoded at once, over all clients (each is a GStreamer pipeline with its
        /// threads); a create-video past it is an error event to that client.
        public var maxVideos = 4
        /// With a virtual clock, how long a frame waits for a video's picture to be decoded
        /// (real seconds): long enough for any small clip, bounded for a stream that never answers.
        public var videoFrameWait = 5.0
        /// How long before a refresh a page-flipping output starts drawing (weston's repaint window).
        public var repaintWindow = 0.007
        /// When the process started (CLOCK_MONOTONIC seconds), for the time-to-first-frame log line.
        public var startTime: Double?
        public init() {}
    }

    public let configuration: Configuration
    public internal(set) var display: DisplayTree
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
    /// Nonzero while the compositor handles a frame or draws: a disconnect reported meanwhile
    /// (a callback's send failed) waits in `deferredDisconnects`, so no loop over the entries
    /// ever sees them change under it.
    private var busy = 0
    private var deferredDisconnects: [ClientID] = []

    /// Runs `body` with disconnects deferred, then carries them out.
    func whileBusy<T>(_ body: () throws -> T) rethrows -> T {
        busy += 1
        defer {
            busy -= 1
            if busy == 0, !deferredDisconnects.isEmpty {
                let gone = deferredDisconnects
                deferredDisconnects.removeAll()
                for c in gone { disconnected(c) }
            }
        }
        return try body()
    }

    // Render-tree animations (CompositorAnimations.swift).
    var nextAnimationID: UInt64 = 1
    var animationRecords: [UInt64: AnimationRecord] = [:]
    var groupCounts: [GroupKey: Int] = [:]
    /// Reused each frame for the events of one layer's animations.
    var frameEvents: [AnimationEvent] = []
    /// Each client's animations and layers on their way out, by entry serial: the presentation
    /// side of the display, kept apart from its model (`display`). An entry's state is made
    /// with its first animation and goes with the entry.
    public internal(set) var animationStates: [UInt32: AnimationState] = [:]
    /// The old renderings of transitions in progress (the render side's, RenderTransitions.swift).
    var transitionSnapshots = TransitionSnapshots()
    /// Connections that asked to `watch` events.
    var watchers: Set<ClientID> = []
    /// Input routing (CompositorInput.swift).
    var input = CompositorInput()
    /// Big commits being applied a step at a time (CompositorStaging.swift).
    var staged: [ClientID: StagedCommit] = [:]
    /// Translates a key name to a key event through the keymap (laminad installs its xkbcommon
    /// keyboard); nil when the name is unknown. Without it, key injection is refused.
    public var keyAction: ((_ name: String, _ pressed: Bool) -> InputAction?)?
    /// Where an injected event goes: laminad routes it as its devices' events (waking a blanked
    /// display first); by default straight to `handleInput`.
    public var routeInjected: ((InputAction, InputOrigin) -> Void)?
    /// Moves whenever a named session changes (a commit, a client arriving or leaving): the
    /// platform rewrites the session journal when it has moved (CompositorJournal.swift).
    public internal(set) var journalGeneration: UInt64 = 0
    /// Called when `journalGeneration` moves (laminad schedules a journal write).
    public var onSessionsChanged: () -> Void = {}
    func sessionsChanged() {
        journalGeneration &+= 1
        onSessionsChanged()
    }

    /// When frames go out: the pending reasons and each output's repaint state
    /// (CompositorFrames.swift).
    public internal(set) var repaint: RepaintLoop
    /// The platform's timer for the repaint loop; when it fires, the platform calls `frameDue()`.
    let frameTimer: any FrameTimer
    /// Requests waiting for the next frame (a screenshot while an output awaits its flip).
    var frameWaiters: [FrameWaiter] = []
    /// The first frame reached the screen (logged once).
    var firstFrameShown = false
    /// Receives every presented frame (`laminad --frames-dir`); nil records nothing.
    public var frameRecorder: (any FrameRecording)?
    /// The renderer's refusal to import dma-buf pictures was logged.
    var videoImportRefusalLogged = false
    /// Sends bytes to a client (the platform queues them).
    public var send: (ClientID, [UInt8]) -> Void = { _, _ in }
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
    /// Closes a client's connection after its queued bytes are sent.
    public var close: (ClientID) -> Void = { _ in }
    /// Turns the named output (nil: every output) off or on and returns every output's state
    /// afterwards; throws `UnknownOutput` for a name the backend does not have. The platform
    /// installs it for a backend with physical outputs (laminad on KMS); without it a
    /// `displayPower` request is answered with no outputs.
    public var displayPower: ((_ on: Bool, _ output: String?) throws -> [OutputPower])?

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
    }
    /// Trees whose truncation was logged (once each).
    var truncationReported: Set<UInt32> = []

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
        display = DisplayTree(width: backend.width, height: backend.height, background: configuration.background)
    }

    /// The time the next frame shows.
    public var now: Double { clock.now(realTime: realTime()) }

    public var clientCount: Int { sessions.count }

    /// `ops` without the property sets a client of protocol minor version `minor` could not
    /// decode (a 1.3 client adopting a session a 1.4 client made).
    static func operations(_ ops: [Operation], forMinor minor: UInt16) -> [Operation] {
        guard minor < ProtocolVersion.minor else { return ops }
        return ops.filter { if case let .set(_, key, _) = $0 { key.minorVersion <= minor } else { true } }
    }

    /// The minor protocol version `client` said hello with.
    func sessionMinor(_ client: ClientID) -> UInt16? { sessions[client]?.minor }

    // MARK: Connections

    /// A new connection; it must say hello first. `peer` says who it is (the platform reads
    /// SO_PEERCRED); in-process callers are trusted.
    public func connect(peer: PeerIdentity = .trusted) -> ClientID {
        let id = ClientID(rawValue: nextClient)
        nextClient &+= 1
        sessions[id] = Session(id: id, frameLimit: min(configuration.helloFrameLimit, configuration.frameLimit), peer: peer)
        return id
    }

    /// The connection closed (or was closed). Its layers leave the screen unless its session keeps them.
    public func disconnected(_ client: ClientID) {
        // Called back from inside a frame or a request (a send that failed): the entry goes
        // once the compositor is no longer walking its lists.
        if busy > 0 {
            guard sessions[client] != nil else { return }
            sessions[client]?.state = .closed
            if !deferredDisconnects.contains(client) { deferredDisconnects.append(client) }
            return
        }
        guard sessions.removeValue(forKey: client) != nil else { return }
        watchers.remove(client)
        frameWaiters.removeAll { $0.client == client }
        inputDisconnected(client, serial: display.index(of: client).map { display.entries[$0].serial })
        staged[client] = nil
        if let i = display.index(of: client) {
            let serial = display.entries[i].serial
            if !display.entries[i].session.isEmpty { sessionsChanged() }
            if display.detach(client) { requestFrame(.sceneChanged) }
            if display.entries.first(where: { $0.serial == serial }) == nil {
                // The client's layers went with it: forget its animations and their bookkeeping.
                if forgetAnimations(ofEntry: serial) { requestFrame(.sceneChanged) }
                animationRecords = animationRecords.filter { $0.value.entry != serial }
                groupCounts = groupCounts.filter { $0.key.entry != serial }
            }
        }
        logger.info("\(client) disconnected")
    }

    /// The most descriptors a client may have sent ahead of the frames that take them.
    public static let maximumPendingDescriptors = 512

    /// Bytes read from a client's socket, with the descriptors that came with them (SCM_RIGHTS),
    /// already mapped by the platform. A descriptor belongs to the frame that starts in the
    /// bytes it came with (docs/protocol.md, "Images and file descriptors").
    /// Handles at most `frameBudget` frames; whole frames left over (`hasPendingFrame`) are
    /// handled by `handlePending` on a later turn, so one client's burst cannot hold the loop.
    public func receive(_ bytes: UnsafeRawBufferPointer, attachments: [MemoryAttachment] = [], from client: ClientID,
                        frameBudget: Int = .max) {
        guard sessions[client] != nil else { return }
        let start = sessions[client]!.received
        sessions[client]!.received += bytes.count
        for a in attachments { sessions[client]!.attachments.append((a, start, start + bytes.count)) }
        guard sessions[client]!.attachments.count <= Self.maximumPendingDescriptors else {
            sessions[client]!.attachments.removeAll()
            drop(client, ErrorMessage(code: .malformedFrame, message: "more than \(Self.maximumPendingDescriptors) file descriptors were sent ahead of the frames that take them"))
            return
        }
        sessions[client]!.decoder.append(bytes)
        handlePending(client, frameBudget: frameBudget)
    }

    /// Handles up to `frameBudget` whole frames already received from `client`.
    public func handlePending(_ client: ClientID, frameBudget: Int) {
        whileBusy {
            if staged[client] != nil { continueStaged(client) } else { handleFrames(client, frameBudget: frameBudget) }
        }
    }

    /// Whether a whole frame from `client` waits to be handled (or a bad header to be refused).
    public func hasPendingFrame(_ client: ClientID) -> Bool {
        guard let s = sessions[client], s.state != .closed, !s.waitsForFrame else { return false }
        return staged[client] != nil || s.decoder.hasWholeFrame
    }

    /// Whether a request of `client`'s waits for the next frame: nothing more of the client's
    /// is handled until it is answered, so the platform need not read from it meanwhile.
    public func isWaitingForFrame(_ client: ClientID) -> Bool { sessions[client]?.waitsForFrame ?? false }

    /// Whether `client` is connected and has not said hello yet.
    public func isAwaitingHello(_ client: ClientID) -> Bool { sessions[client]?.state == .awaitingHello }

    private func handleFrames(_ client: ClientID, frameBudget: Int) {
        var handled = 0
        while sessions[client]?.state != .closed, sessions[client] != nil {
            // A staged commit holds the client's later frames back until it is done.
            guard handled < frameBudget, !isHeldBack(client), staged[client] == nil, sessions[client]?.waitsForFrame == false else { return }
            handled += 1
            let frame: (type: UInt16, body: ArraySlice<UInt8>)?
            do {
                frame = try sessions[client]!.decoder.next()
            } catch {
                drop(client, ErrorMessage(code: error.isTooLarge ? .frameTooLarge : .malformedFrame,
                                          message: error.description + (sessions[client]?.state == .awaitingHello ? " (before hello)" : "")))
                return
            }
            guard let frame else { return }
            let frameStart = sessions[client]!.consumed
            let frameEnd = frameStart + Frame.headerSize + frame.body.count
            sessions[client]!.consumed = frameEnd
            handleFrame(type: frame.type, body: frame.body, frameStart: frameStart, from: client)
            // (type 2: a commit reports its own descriptor count mismatch.)
            // Descriptors whose read ended inside this frame belong to no later frame: the
            // frame should have taken them. Close them (dropping the mapping) and say so.
            guard var session = sessions[client], !session.attachments.isEmpty else { continue }
            let before = session.attachments.count
            session.attachments.removeAll { $0.end <= frameEnd }
            let orphans = before - session.attachments.count
            sessions[client] = session
            if orphans > 0 && frame.type != 2 {
                reply(client, .error(ErrorMessage(code: .invalidImage,
                                                  message: "\(orphans) file descriptor\(orphans == 1 ? "" : "s") came with a message of type \(frame.type), which takes none; closed")))
            }
        }
    }

    /// The descriptors that came with the frame starting at `frameStart` (and any earlier
    /// ones still queued), taken from the queue.
    func takeAttachments(frameStart: Int, for client: ClientID) -> [MemoryAttachment] {
        guard var session = sessions[client] else { return [] }
        let n = session.attachments.prefix { $0.start <= frameStart }.count
        let taken = session.attachments.prefix(n).map(\.attachment)
        session.attachments.removeFirst(n)
        sessions[client] = session
        return taken
    }

    /// Whether the platform holds a client's frames back for now (laminad: its unread output
    /// is over budget); they stay queued and are handled by `handlePending` later.
    public var isHeldBack: (ClientID) -> Bool = { _ in false }

    /// Counters the platform adds to `stats` (laminad: queued output, dropped connections).
    public var platformStatistics: () -> [Statistic] = { [] }

    /// Refuses a connection for a reason the platform found (a handshake that took too
    /// long): sends the error and closes it.
    public func refuse(_ client: ClientID, _ error: ErrorMessage) {
        guard sessions[client] != nil, sessions[client]?.state != .closed else { return }
        drop(client, error)
    }

    /// Sends an error and closes the connection. Other clients are not affected.
    private func drop(_ client: ClientID, _ error: ErrorMessage) {
        logger.warning("dropping \(client): \(error)")
        send(client, ServerMessage.error(error).encoded())
        sessions[client]?.state = .closed
        stats.clientsDropped += 1
        close(client)
    }

    func reply(_ client: ClientID, _ message: ServerMessage) { send(client, message.encoded()) }

    /// Tells every client of protocol 1.5 or later but `mover` the virtual clock's new time.
    /// (Over a copy of the client list: a send that overflows a queue drops that client.)
    func clockMoved(by mover: ClientID) {
        let frame = ServerMessage.clock(time: clock.virtualTime).encoded()
        for (c, s) in Array(sessions) where c != mover && s.state == .ready && s.minor >= 5 {
            guard sessions[c]?.state == .ready else { continue }
            send(c, frame)
        }
    }

    private func handleFrame(type: UInt16, body: ArraySlice<UInt8>, frameStart: Int, from client: ClientID) {
        // A big commit is decoded and applied a step at a time (CompositorStaging.swift).
        if type == 2, sessions[client]?.state == .ready, body.count / 5 > configuration.commitStepOperations,
           beginStaged(body, frameStart: frameStart, from: client) {
            return
        }
        let message: ClientMessage
        do {
            message = try ClientMessage.decode(type: type, body: body)
        } catch {
            if sessions[client]?.state == .awaitingHello {
                let code: ErrorCode = type == 1 ? .unsupportedVersion : .notHello
                drop(client, ErrorMessage(code: code, message: "expected a hello: \(error)"))
                return
            }
            switch error {
            case .unknownType:
                reply(client, .error(ErrorMessage(code: .unknownMessage, message: error.description)))
            case .decode(let e):
                reply(client, .error(ErrorMessage(code: .malformedMessage, message: e.description)))
            case let .commit(serial, index, e):
                stats.commitsRejected += 1
                reply(client, .error(ErrorMessage(code: .malformedMessage, subject: .commit, serial: serial,
                                                  operationIndex: Int32(index), message: e.description)))
            }
            return
        }
        switch (sessions[client]?.state, message) {
        case (.awaitingHello, .hello(let hello)):
            welcome(client, hello)
        case (.awaitingHello, _):
            drop(client, ErrorMessage(code: .notHello, message: "the first message must be a hello"))
        case (.ready, .hello):
            drop(client, ErrorMessage(code: .notHello, message: "hello was already received"))
        case (.ready, .commit(let commit)):
            let attachments = commit.descriptorCount > 0 ? takeAttachments(frameStart: frameStart, for: client) : []
            apply(commit, attachments: attachments, from: client)
        case let (.ready, .request(id, request)):
            let attachments = request.descriptorCount > 0 ? takeAttachments(frameStart: frameStart, for: client) : []
            serve(request, id: id, for: client, attachments: attachments)
        default:
            break
        }
    }

    private func welcome(_ client: ClientID, _ hello: Hello) {
        guard hello.major == ProtocolVersion.major else {
            drop(client, ErrorMessage(code: .unsupportedVersion,
                                      message: "protocol \(hello.major).\(hello.minor) is not supported; this server speaks \(ProtocolVersion.major).x"))
            return
        }
        let peer = sessions[client]!.peer
        if !peer.isPrivileged {
            let limits = configuration.limits
            let attached = display.entries.compactMap(\.client)
            guard attached.count < limits.maxClients else {
                drop(client, ErrorMessage(code: .limitExceeded, message: "\(attached.count) clients are connected, the most laminad serves (max_clients)"))
                return
            }
            let mine = attached.filter { sessions[$0]?.peer.uid == peer.uid }.count
            guard mine < limits.maxClientsPerUser else {
                drop(client, ErrorMessage(code: .limitExceeded, message: "uid \(peer.uid) has \(mine) clients connected, the most one user may have (max_clients_per_user)"))
                return
            }
        }
        let snapshot: [Operation]
        do {
            snapshot = try display.attach(client, hello: hello, peer: peer, limits: configuration.limits)
        } catch {
            drop(client, error)
            return
        }
        sessions[client]!.state = .ready
        sessions[client]!.decoder.limit = configuration.frameLimit
        if !hello.session.isEmpty { sessionsChanged() }
        sessions[client]!.name = hello.clientName
        sessions[client]!.minor = hello.minor
        logger.info("\(client) '\(hello.clientName)' connected\(hello.session.isEmpty ? "" : " to session '\(hello.session)'")")
        reply(client, .welcome(Welcome(clientID: client.rawValue, displayWidth: UInt32(display.width),
                                       displayHeight: UInt32(display.height), clock: clock.isVirtual ? .virtual : .real,
                                       time: now, snapshot: Self.operations(snapshot, forMinor: hello.minor))))
    }

    // MARK: Commits

    private func apply(_ commit: Commit, attachments: [MemoryAttachment] = [], from client: ClientID) {
        do {
            // A layer given a transition keeps its rendering from before the commit.
            var snapshots: [LayerID: [DrawCommand]] = [:]
            if let i = display.index(of: client) {
                let targets = transitionTargets(commit.operations, entry: i)
                if !targets.isEmpty { snapshots = self.snapshots(of: targets, entry: i) }
            }
            let result = try display.apply(commit.operations, attachments: attachments, from: client, limits: configuration.limits)
            committed(serial: commit.serial, operations: commit.operations.count, result, snapshots: snapshots, from: client)
        } catch {
            rejected(serial: commit.serial, error, from: client)
        }
    }

    /// A commit stands: answer it, animate its changes, and schedule its frame.
    func committed(serial: UInt32, operations: Int, _ result: CommitResult, snapshots: [LayerID: [DrawCommand]], from client: ClientID) {
        if result.visibleChange { requestFrame(.sceneChanged) }
        stats.commitsApplied += 1
        if let i = display.index(of: client), !display.entries[i].session.isEmpty { sessionsChanged() }
        reply(client, .applied(serial: serial))
        if let i = display.index(of: client) {
            if !result.videoChanges.isEmpty { applyVideoChanges(result.videoChanges, entry: i) }
            animate(result, entry: i)
            attachTransitions(snapshots, result.changes, entry: i)
        }
        if !watchers.isEmpty {
            watch(#"{"event":"commit","client":\#(client.rawValue),"serial":\#(serial),"operations":\#(operations),"time":\#(JSONWriter.format(now))}"#)
        }
    }

    /// A commit was refused whole: say which operation and why.
    func rejected(serial: UInt32, _ error: CommitRejection, from client: ClientID) {
        stats.commitsRejected += 1
        logger.debug("\(client) commit \(serial) rejected: \(error)")
        reply(client, .error(ErrorMessage(code: error.code, subject: .commit, serial: serial,
                                          operationIndex: Int32(error.operationIndex), message: error.message)))
    }

    // MARK: Frames

    /// The backend's desktop changed size (hotplug, unplug, a new mode): the display, every
    /// client's root layer and the next frame follow. Clients see the new size in `stats`
    /// and `tree`. Returns whether the size changed.
    @discardableResult
    public func resize(width: Int, height: Int) -> Bool {
        guard width > 0, height > 0, width != display.width || height != display.height else { return false }
        logger.notice("display resized from \(display.width)x\(display.height) to \(width)x\(height)")
        display.resize(width: width, height: height)
        for serial in Array(animationStates.keys) where animationStates[serial]!.renderTree != nil {
            animationStates[serial]!.fitRoot(width: Double(width), height: Double(height))
        }
        requestFrame(.sceneChanged)
        return true
    }

    /// Sets the "separate" layout's output rectangles (`DisplayTree.outputRoots`); empty for
    /// one virtual desktop.
    public func setOutputRoots(_ roots: [String: Rect]) {
        guard roots != display.outputRoots else { return }
        logger.notice("output roots: \(roots.isEmpty ? "none (one desktop)" : roots.keys.sorted().joined(separator: ", "))")
        display.outputRoots = roots
        requestFrame(.sceneChanged)
    }

    // MARK: Requests

    func serve(_ request: Request, id: UInt32, for client: ClientID, attachments: [MemoryAttachment] = []) {
        func fail(_ code: ErrorCode, _ text: String) {
            reply(client, .error(ErrorMessage(code: code, subject: .request, serial: id, message: text)))
        }
        let peer = sessions[client]?.peer ?? .trusted
        if !peer.isPrivileged, let what = request.privilegedPurpose {
            return fail(.permissionDenied, "\(what) is a privileged request: uid \(peer.uid) is not laminad's user, root or a member of its privileged group (docs/protocol.md, \"Authorisation\")")
        }
        do {
            switch request {
            case .screenshot:
                guard try drawn(for: request, id: id, client: client, always: stats.framesRendered == 0) else { return }
                try answerAfterFrame(request, id: id, client: client)
            case .tree:
                // Without privilege, a client sees only its own layers.
                let owner = peer.isPrivileged ? nil : peer.uid
                reply(client, .reply(id: id, .tree(display.json(clock: clock.isVirtual ? .virtual : .real, time: now, owner: owner))))
            case .advanceClock(let seconds):
                guard clock.isVirtual else {
                    return fail(.invalidRequest, "advance-clock needs a virtual clock; this server runs a real one (start laminad with --clock virtual)")
                }
                guard seconds.isFinite, seconds >= 0 else {
                    return fail(.invalidRequest, "advance-clock takes a finite number of seconds ≥ 0, got \(seconds)")
                }
                guard clock.advance(by: seconds) else {
                    return fail(.invalidRequest, "advance-clock by \(seconds) s would take the virtual clock from \(clock.virtualTime) past its maximum of \(FrameClock.maximumVirtualTime) s")
                }
                if isAnimating || videosPlaying { repaint.request(.sceneChanged) }
                if seconds > 0 { clockMoved(by: client) }
                // Kept sessions' animations and playing videos are journalled against the clock:
                // a restart puts them where the clock had taken them.
                if seconds > 0, display.entries.contains(where: {
                    $0.isKept && (animationStates[$0.serial]?.animated.isEmpty == false || $0.tree.videos.values.contains { $0.isPlaying })
                }) {
                    sessionsChanged()
                }
                guard try drawn(for: request, id: id, client: client, always: false) else { return }
                try answerAfterFrame(request, id: id, client: client)
            case .snapshot:
                // The client's own tree only: no privilege needed.
                guard let i = display.index(of: client) else { return fail(.notHello, "\(client) is not attached") }
                let ops = display.entries[i].tree.snapshot() + Self.animationOperations(display.entries[i], animationState(entry: i))
                reply(client, .reply(id: id, .snapshot(Self.operations(ops, forMinor: sessions[client]?.minor ?? ProtocolVersion.minor))))
            case .stats:
                // Textures are uploaded and freed as frames are drawn: with the virtual clock, draw
                // what is pending first (a real clock draws it within a refresh anyway, paced).
                if clock.isVirtual, !(try drawn(for: request, id: id, client: client, always: false)) { return }
                try answerAfterFrame(request, id: id, client: client)
            case .presentation(let layer):
                guard let i = display.index(of: client), let p = presentation(of: layer, entry: i, at: now) else {
                    return fail(.unknownLayer, "layer \(layer) does not exist")
                }
                reply(client, .reply(id: id, .presentation(p, minor: sessions[client]?.minor ?? ProtocolVersion.minor)))
            case .presentationTree:
                let t = now
                let owner = peer.isPrivileged ? nil : peer.uid
                let json = display.json(clock: clock.isVirtual ? .virtual : .real, time: t, owner: owner) { i, layer in
                    self.animationState(entry: i)?.animated[layer] == nil ? nil : self.presentation(of: layer, entry: i, at: t)
                }
                reply(client, .reply(id: id, .tree(json)))
            case .watch:
                watchers.insert(client)
                reply(client, .reply(id: id, .watching))
            case .registerFont(let byteCount):
                guard let fontRegistry else { return fail(.invalidRequest, "this laminad draws no text, so it takes no fonts") }
                guard let attachment = attachments.first else {
                    return fail(.invalidRequest, "register-font needs the font's memory file with the frame (one descriptor, SCM_RIGHTS)")
                }
                guard case .memory(let memory) = attachment else {
                    if case .unusable(let why) = attachment { return fail(.invalidRequest, "the font's memory file cannot be used: \(why)") }
                    return
                }
                guard byteCount <= UInt64(memory.byteCount) else {
                    return fail(.invalidRequest, "register-font says \(byteCount) bytes but its memory file holds \(memory.byteCount)")
                }
                do {
                    let families = try fontRegistry.register(UnsafeRawBufferPointer(start: memory.base, count: Int(byteCount)))
                    // Text already drawn may now find its font: rasters kept in the render-list
                    // cache are asked for again.
                    renderCache.removeAll()
                    logger.info("\(client): registered font \(families.joined(separator: ", ")) (\(byteCount) bytes)")
                    reply(client, .reply(id: id, .fontRegistered(families: families)))
                } catch {
                    return fail(error.code, error.message)
                }
            case .injectInput(let injection):
                let action: InputAction
                switch self.action(for: injection) {
                case .success(let a): action = a
                case .failure(let refused): return fail(.invalidRequest, refused.message)
                }
                if let routeInjected { routeInjected(action, .injected) } else { handleInput(action, origin: .injected) }
                reply(client, .reply(id: id, .done))
            case .takeKeyboardFocus:
                takeFocus(client)
                reply(client, .reply(id: id, .done))
            case .listen(let session):
                do { try listen(client, session: session, peer: peer) } catch { return reply(client, .error(ErrorMessage(code: error.code, subject: .request, serial: id, message: error.message))) }
                reply(client, .reply(id: id, .watching))
            case let .displayPower(on, output):
                let name = output.isEmpty ? nil : output
                guard let displayPower else {
                    // Headless: there is nothing to blank, and no output of any name.
                    if let name { throw UnknownOutput(name: name, known: [], backend: backend.name) }
                    reply(client, .reply(id: id, .displayPower(backend: backend.name, outputs: [])))
                    return
                }
                let outputs = try displayPower(on, name)
                reply(client, .reply(id: id, .displayPower(backend: backend.name, outputs: outputs)))
            }
        } catch let error as UnknownOutput {
            fail(.invalidRequest, error.description)
        } catch {
            logger.error("request \(id) from \(client) failed: \(error)")
            fail(.internalError, "\(error)")
        }
    }

    /// The counters a `stats` request reports.
    public func statistics() -> [Statistic] {
        [
            Statistic(name: "framesRendered", value: Double(stats.framesRendered)),
            Statistic(name: "commitsApplied", value: Double(stats.commitsApplied)),
            Statistic(name: "commitsRejected", value: Double(stats.commitsRejected)),
            Statistic(name: "clientsDropped", value: Double(stats.clientsDropped)),
            Statistic(name: "clients", value: Double(sessions.count)),
            Statistic(name: "sessions", value: Double(display.entries.count)),
            Statistic(name: "layers", value: Double(display.layerCount)),
            Statistic(name: "keptSessions", value: Double(display.entries.filter(\.isKept).count)),
            Statistic(name: "keptLayers", value: Double(display.keptLayerCount)),
            Statistic(name: "budget.maxKeptLayers", value: Double(configuration.limits.maxKeptLayers)),
            Statistic(name: "budget.maxTotalLayers", value: Double(configuration.limits.maxTotalLayers)),
            Statistic(name: "budget.maxClients", value: Double(configuration.limits.maxClients)),
            Statistic(name: "budget.maxClientsPerUser", value: Double(configuration.limits.maxClientsPerUser)),
            Statistic(name: "budget.maxKeptSessions", value: Double(configuration.limits.maxKeptSessions)),
            Statistic(name: "budget.maxTreeDepth", value: Double(configuration.limits.maxDepth)),
            Statistic(name: "budget.maxLayerDrawsPerFrame", value: Double(RenderWalkBudget.maximumVisits)),
            Statistic(name: "truncatedFrames", value: Double(stats.truncatedFrames)),
            Statistic(name: "animations", value: Double(animationStates.values.reduce(0) { $0 + $1.animated.values.reduce(0) { $0 + $1.animations.entries.count } })),
            Statistic(name: "lastFrameMilliseconds", value: stats.lastFrameSeconds * 1000),
            Statistic(name: "time", value: now),
            Statistic(name: "width", value: Double(display.width)),
            Statistic(name: "height", value: Double(display.height)),
            Statistic(name: "images", value: Double(display.entries.reduce(0) { $0 + $1.tree.images.count })),
            Statistic(name: "imageBytes", value: Double(display.entries.reduce(0) { $0 + $1.tree.images.values.reduce(0) { $0 + $1.byteCount } })),
            Statistic(name: "budget.maxImageBytes", value: Double(configuration.limits.maxImageBytes)),
            Statistic(name: "budget.maxTotalImageBytes", value: Double(configuration.limits.maxTotalImageBytes)),
            Statistic(name: "videos", value: Double(videoCount)),
            Statistic(name: "videoFrameBytes", value: Double(videoFrameBytes)),
            Statistic(name: "videosPlaying", value: Double(liveVideos.filter { $0.isPlaying && !$0.isDestroyed && $0.decoder != nil }.count)),
            Statistic(name: "video.overlayPlanes", value: Double(backend.outputs.reduce(0) { $0 + $1.overlayPlanes.count })),
            Statistic(name: "video.overlayEligibleFrames", value: Double(presenter.overlayEligibleFrames)),
            Statistic(name: "video.overlayScanoutFrames", value: Double(presenter.overlayScanoutFrames)),
            Statistic(name: "video.overlayCompositedFrames", value: Double(presenter.overlayCompositedFrames)),
            Statistic(name: "budget.maxVideos", value: Double(configuration.maxVideos)),
            Statistic(name: "commitsStaged", value: Double(stats.commitsStaged)),
            Statistic(name: "stagedSteps", value: Double(stats.stagedSteps)),
            Statistic(name: "budget.commitStepOperations", value: Double(configuration.commitStepOperations)),
            Statistic(name: "input.events", value: Double(input.routed)),
            Statistic(name: "input.delivered", value: Double(input.delivered)),
            Statistic(name: "input.unclaimed", value: Double(input.unclaimed)),
            Statistic(name: "input.touches", value: Double(input.state.touches.count)),
        ] + damageStatistics() + presenter.renderer.cacheStatistics.map { Statistic(name: $0.name, value: $0.value) }
            + renderCache.statistics.map { Statistic(name: $0.name, value: $0.value) } + textureStatistics() + (layerRasters?.statistics ?? [])
            + (videoDecoding?.statistics.map { Statistic(name: $0.name, value: $0.value) } ?? []) + platformStatistics()
    }

    /// `damage.*`: whether frames redraw only what changed, and how much of the output they drew.
    private func damageStatistics() -> [Statistic] {
        let d = backend.damageStatistics
        return [Statistic(name: "damage.tracking", value: backend.damageTracking ? 1 : 0),
                Statistic(name: "damage.frames", value: Double(d.frames)),
                Statistic(name: "damage.fullFrames", value: Double(d.fullFrames)),
                Statistic(name: "damage.emptyFrames", value: Double(d.emptyFrames)),
                Statistic(name: "damage.lastFraction", value: d.lastFraction),
                Statistic(name: "damage.meanFraction", value: d.meanFraction),
                Statistic(name: "damage.lastBoxes", value: Double(d.lastBoxes))]
    }

    /// `textureBytes` and `textures` in all, then `textureBytes.client.N` for each connected
    /// client (by its client id), `textureBytes.session.NAME` for a kept session whose client
    /// has gone, and `textureBytes.server` for server rasters.
    private func textureStatistics() -> [Statistic] {
        let usage = presenter.renderer.textureUsage
        var list = [Statistic(name: "textureBytes", value: Double(usage.totalBytes)),
                    Statistic(name: "textures", value: Double(usage.totalTextures))]
        for (owner, bytes) in usage.bytes.sorted(by: { $0.key.description < $1.key.description }) {
            let name: String
            switch owner {
            case .server: name = "server"
            case .session(let serial):
                if let e = display.entries.first(where: { $0.serial == serial }) {
                    name = e.client.map { "client.\($0.rawValue)" } ?? "session.\(e.session)"
                } else {
                    name = "gone.\(serial)"
                }
            }
            list.append(Statistic(name: "textureBytes." + name, value: Double(bytes)))
        }
        return list
    }
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
