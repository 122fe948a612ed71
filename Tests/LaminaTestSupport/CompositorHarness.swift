import LaminaCore
import LaminaProtocol
import LaminaCompositor

/// A compositor driven as laminad drives it, without sockets: clients' bytes fed in, replies
/// decoded into an outbox per client, closes recorded, and the repaint loop's timer kept by
/// hand (`ManualFrameTimer`): the test fires it with `fireFrameTimer()`. The one harness the
/// compositor suites share (sessions, hostile clients, budgets, animations, videos, pixels).
public final class CompositorHarness: CompositorHost {
    public let compositor: Compositor
    public let timer: ManualFrameTimer
    /// What was sent to each client and not taken yet, decoded. A test may clear it (`[:]`)
    /// to read only what follows; `take` empties one client's.
    public var outbox: [ClientID: [ServerMessage]] = [:]
    public private(set) var closed: Set<ClientID> = []
    /// Runs before each send is recorded: a test can make a send fail like a full socket
    /// (`compositor.disconnected`, as laminad reports it).
    public var beforeSend: (ClientID) -> Void = { _ in }
    /// A keymap for key injection; nil leaves it refused (the host has no keyboard).
    public var keyAction: ((_ name: String, _ pressed: Bool) -> InputAction?)?
    private var decoders: [ClientID: FrameDecoder] = [:]
    /// Each `acknowledgementAwaitsJournal`: the client, the journal generation it waits for,
    /// and how many messages it had been sent before it (what laminad would still send).
    public private(set) var journalAwaits: [(client: ClientID, generation: UInt64, sentBefore: Int)] = []
    private var sentCount: [ClientID: Int] = [:]

    public init(presenter: FramePresenter, clock: FrameClock = FrameClock(.virtual),
                configuration: Compositor.Configuration = Compositor.Configuration(), realTime: @escaping () -> Double = { 0 }) {
        timer = ManualFrameTimer()
        compositor = Compositor(presenter: presenter, clock: clock, configuration: configuration, frameTimer: timer, realTime: realTime)
        compositor.host = self
    }

    /// A compositor on a headless `width` × `height` output drawn with real GLES
    /// (`HeadlessDisplay`), on the virtual clock, its configuration the default one as
    /// `configure` changes it (budgets, `maxVideos`).
    public convenience init(headlessWidth width: Int, height: Int,
                            configure: (inout Compositor.Configuration) -> Void = { _ in }) throws {
        var configuration = Compositor.Configuration()
        configure(&configuration)
        self.init(presenter: try HeadlessDisplay(width: width, height: height).presenter, configuration: configuration)
    }

    /// Bytes the compositor sends are whole frames of server messages: one that does not
    /// decode is the compositor's bug, and stops the test run where it happens.
    public func send(_ bytes: [UInt8], to id: ClientID) {
        beforeSend(id)
        var d = decoders[id] ?? FrameDecoder(limit: 1 << 30)
        d.append(bytes)
        do {
            while let f = try d.next() {
                outbox[id, default: []].append(try ServerMessage.decode(type: f.type, body: f.body))
                sentCount[id, default: 0] += 1
            }
        } catch {
            fatalError("the compositor sent client \(id.rawValue) bytes that do not decode: \(error)")
        }
        decoders[id] = d
    }

    public func close(_ id: ClientID) { closed.insert(id) }

    public func acknowledgementAwaitsJournal(_ client: ClientID) {
        journalAwaits.append((client, compositor.journalGeneration, sentCount[client] ?? 0))
    }

    /// The times of the frames the compositor said were presented (`framePresented(at:)`).
    public private(set) var presentedTimes: [Double] = []
    public func framePresented(at time: Double) { presentedTimes.append(time) }

    /// Messages sent to `id` since it connected (the outbox's, taken or not).
    public func sentMessages(_ id: ClientID) -> Int { sentCount[id] ?? 0 }

    /// What the compositor asked of the app host: managed mode switches, window sizes, input
    /// for app windows, closes (CompositorApps.swift).
    public private(set) var appsManagedCalls: [Bool] = []
    public private(set) var appSizes: [[UInt32: Size]] = []
    public var appInputs: [AppInput] = []
    public private(set) var appsClosed: [UInt32] = []
    public func appsManaged(_ managed: Bool) { appsManagedCalls.append(managed) }
    public func sizeApps(_ sizes: [UInt32: Size]) { appSizes.append(sizes) }
    public func appInput(_ input: AppInput) { appInputs.append(input) }
    public func closeApp(_ app: UInt32) { appsClosed.append(app) }

    public var hasKeymap: Bool { keyAction != nil }
    public func keyAction(named name: String, pressed: Bool) -> InputAction? { keyAction?(name, pressed) }

    /// `id` sends `message`, with the descriptors its frame carries.
    public func feed(_ id: ClientID, _ message: ClientMessage, attachments: [MemoryAttachment] = []) {
        feed(id, bytes: message.encoded(), attachments: attachments)
    }

    /// `id`'s socket yields `bytes` (any part of a frame, or garbage), with `attachments`.
    public func feed(_ id: ClientID, bytes: [UInt8], attachments: [MemoryAttachment] = []) {
        bytes.withUnsafeBytes { compositor.receive($0, attachments: attachments, from: id) }
    }

    /// A client of `peer` connects and says hello; returns it and the first answer (its
    /// welcome, or the error that refused it), which stays in the outbox.
    public func sayHello(_ name: String = "c", session: String = "", flags: HelloFlags = [], minor: UInt16 = ProtocolVersion.minor,
                         peer: PeerIdentity = .trusted) -> (id: ClientID, answer: ServerMessage?) {
        let id = compositor.connect(peer: peer)
        feed(id, .hello(Hello(minor: minor, clientName: name, session: session, flags: flags)))
        return (id, outbox[id]?.first)
    }

    /// A client that said hello (its welcome taken from the outbox).
    public func hello(_ name: String, session: String = "", flags: HelloFlags = [], minor: UInt16 = ProtocolVersion.minor,
                      peer: PeerIdentity = .trusted) -> ClientID {
        let id = sayHello(name, session: session, flags: flags, minor: minor, peer: peer).id
        _ = take(id)
        return id
    }

    /// What was sent to `id` since the last `take`.
    public func take(_ id: ClientID) -> [ServerMessage] {
        defer { outbox[id] = [] }
        return outbox[id] ?? []
    }

    /// `id` commits `operations` (its outbox emptied first); returns the first answer, nil
    /// while a commit applied in steps has none yet.
    @discardableResult
    public func commit(_ id: ClientID, _ operations: [Operation], serial: UInt32 = 1) -> ServerMessage? {
        outbox[id] = []
        feed(id, .commit(Commit(serial: serial, operations: operations)))
        return outbox[id]?.first
    }

    /// `id` advances the virtual clock by `seconds`; the reply is taken from the outbox, what
    /// else was sent (animation events, errors) stays.
    public func advance(_ id: ClientID, _ seconds: Double, requestID: UInt32 = 98) {
        feed(id, .request(id: requestID, .advanceClock(seconds: seconds)))
        outbox[id] = (outbox[id] ?? []).filter { if case .reply(requestID, _) = $0 { false } else { true } }
    }

    /// The reply to a screenshot request was not among what the compositor sent.
    public struct NoScreenshot: Error, CustomStringConvertible {
        public var sent: [ServerMessage]
        public var description: String { "no screenshot among \(sent)" }
    }

    /// `id` asks for a screenshot; returns it, taken from the outbox (what else was sent
    /// stays). Throws `NoScreenshot` where the answer did not come (an error, or a frame that
    /// waits for a flip).
    public func screenshot(_ id: ClientID, requestID: UInt32 = 99) throws(NoScreenshot) -> Bitmap {
        let before = outbox[id]?.count ?? 0
        feed(id, .request(id: requestID, .screenshot))
        let all = outbox[id] ?? []
        guard let i = all.indices.first(where: { i in
            if i >= before, case .reply(requestID, .screenshot) = all[i] { true } else { false }
        }), case .reply(_, .screenshot(let shot)) = all[i] else { throw NoScreenshot(sent: Array(all[before...])) }
        outbox[id]?.remove(at: i)
        return shot
    }

    /// The timer the repaint loop armed fires, as laminad's would (nothing happens when it was
    /// not armed). Returns whether it was armed.
    @discardableResult
    public func fireFrameTimer() -> Bool {
        guard timer.armedAt != nil || timer.armedAfterCurrentEvent else { return false }
        timer.reset()
        compositor.frameDue()
        return true
    }

    /// A square layer `id`, 16 points wide, at `x`, inserted in the root.
    public static func square(_ id: UInt32, x: Double, color: Color) -> [Operation] {
        [.create(LayerID(id)), .set(LayerID(id), .bounds, .rect(Rect(x: 0, y: 0, width: 16, height: 16))),
         .set(LayerID(id), .position, .point(Point(x: x, y: 24))), .set(LayerID(id), .backgroundColor, .color(color)),
         .insert(parent: .root, child: LayerID(id), index: .max)]
    }
}

/// A compositor host whose calls go to closures, with no budgets, journal, routing or outputs
/// of its own: for the fuzzer and the benchmarks, which drive a compositor without decoding
/// what it sends (tests use `CompositorHarness`). The compositor holds its host weakly: keep it.
public final class TestHost: CompositorHost {
    public var onSend: (ClientID, [UInt8]) -> Void = { _, _ in }
    public var onClose: (ClientID) -> Void = { _ in }
    public init() {}
    public func send(_ bytes: [UInt8], to client: ClientID) { onSend(client, bytes) }
    public func close(_ client: ClientID) { onClose(client) }
}

extension PeerIdentity {
    /// A client of user `uid` (as laminad reads it from SO_PEERCRED), privileged or not.
    public static func user(_ uid: UInt32, privileged: Bool = false) -> PeerIdentity {
        PeerIdentity(uid: uid, isPrivileged: privileged)
    }
}
