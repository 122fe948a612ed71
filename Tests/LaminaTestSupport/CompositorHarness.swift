import LaminaCore
import LaminaProtocol
import LaminaServer

/// A compositor driven as laminad drives it, without sockets: clients' bytes fed in, replies
/// decoded into an outbox per client, closes recorded, and the repaint loop's timer kept by
/// hand (`ManualFrameTimer`): the test fires it with `fireFrameTimer()`.
public final class CompositorHarness {
    public let compositor: Compositor
    public let timer: ManualFrameTimer
    public private(set) var outbox: [ClientID: [ServerMessage]] = [:]
    public private(set) var closed: Set<ClientID> = []
    private var decoders: [ClientID: FrameDecoder] = [:]

    public init(presenter: FramePresenter, clock: FrameClock = FrameClock(.virtual),
                configuration: Compositor.Configuration = Compositor.Configuration(), realTime: @escaping () -> Double = { 0 }) {
        timer = ManualFrameTimer()
        compositor = Compositor(presenter: presenter, clock: clock, configuration: configuration, frameTimer: timer, realTime: realTime)
        compositor.send = { [unowned self] id, bytes in
            var d = decoders[id] ?? FrameDecoder(limit: 1 << 30)
            d.append(bytes)
            while let f = try? d.next() {
                if let message = try? ServerMessage.decode(type: f.type, body: f.body) { outbox[id, default: []].append(message) }
            }
            decoders[id] = d
        }
        compositor.close = { [unowned self] id in closed.insert(id) }
    }

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
