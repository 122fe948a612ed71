import LaminaCore
import LaminaProtocol
import LaminaCompositor

/// A compositor driven as laminad drives it, without sockets: clients' bytes fed in, replies
/// decoded into an outbox per client, closes recorded, and the repaint loop's timer kept by
/// hand (`ManualFrameTimer`): the test fires it with `fireFrameTimer()`.
public final class CompositorHarness: CompositorHost {
    public let compositor: Compositor
    public let timer: ManualFrameTimer
    public private(set) var outbox: [ClientID: [ServerMessage]] = [:]
    public private(set) var closed: Set<ClientID> = []
    private var decoders: [ClientID: FrameDecoder] = [:]

    public init(presenter: FramePresenter, clock: FrameClock = FrameClock(.virtual),
                configuration: Compositor.Configuration = Compositor.Configuration(), realTime: @escaping () -> Double = { 0 }) {
        timer = ManualFrameTimer()
        compositor = Compositor(presenter: presenter, clock: clock, configuration: configuration, frameTimer: timer, realTime: realTime)
        compositor.host = self
    }

    public func send(_ bytes: [UInt8], to id: ClientID) {
        var d = decoders[id] ?? FrameDecoder(limit: 1 << 30)
        d.append(bytes)
        while let f = try? d.next() {
            if let message = try? ServerMessage.decode(type: f.type, body: f.body) { outbox[id, default: []].append(message) }
        }
        decoders[id] = d
    }

    public func close(_ id: ClientID) { closed.insert(id) }

    public func feed(_ id: ClientID, _ message: ClientMessage) {
        message.encoded().withUnsafeBytes { compositor.receive($0, from: id) }
    }

    /// A client that said hello (its welcome taken from the outbox).
    public func hello(_ name: String, session: String = "") -> ClientID {
        let id = compositor.connect()
        feed(id, .hello(Hello(clientName: name, session: session)))
        _ = take(id)
        return id
    }

    /// What was sent to `id` since the last `take`.
    public func take(_ id: ClientID) -> [ServerMessage] {
        defer { outbox[id] = [] }
        return outbox[id] ?? []
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

/// A compositor host whose calls go to closures (a test's outbox), with no budgets, journal,
/// routing or outputs of its own. The compositor holds its host weakly: keep it.
public final class TestHost: CompositorHost {
    public var onSend: (ClientID, [UInt8]) -> Void = { _, _ in }
    public var onClose: (ClientID) -> Void = { _ in }
    /// A keymap for key injection; nil leaves it refused.
    public var keyAction: ((_ name: String, _ pressed: Bool) -> InputAction?)?
    public init() {}
    public func send(_ bytes: [UInt8], to client: ClientID) { onSend(client, bytes) }
    public func close(_ client: ClientID) { onClose(client) }
    public var hasKeymap: Bool { keyAction != nil }
    public func keyAction(named name: String, pressed: Bool) -> InputAction? { keyAction?(name, pressed) }
}
