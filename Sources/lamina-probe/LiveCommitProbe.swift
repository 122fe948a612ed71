import LaminaCore
import LaminaPlatform
import LaminaProtocol

/// Commits per second one client gets through a running laminad ($LAMINA_SOCKET) while an
/// animation plays on its display: each commit changes a layer's colour (actions disabled) and
/// waits for its `applied`, so this is the round-trip rate, not a pipelined one. Also reports
/// the frames laminad drew meanwhile. Speaks the wire protocol directly (no client library).
func runLiveCommitProbe(seconds: Double) throws -> String {
    let socket = try UnixSocket.connect(path: SocketPath.resolve())
    var decoder = FrameDecoder(limit: 1 << 30)
    var buffer = [UInt8](repeating: 0, count: 1 << 16)
    func send(_ message: ClientMessage) throws { try socket.writeAll(message.encoded()) }
    func receive() throws -> ServerMessage {
        while true {
            if let f = try decoder.next() { return try ServerMessage.decode(type: f.type, body: f.body) }
            let n = try buffer.withUnsafeMutableBytes { p in try socket.read(into: p) } ?? 0
            guard n > 0 else { throw SystemError("laminad closed the connection", errno: 0) }
            decoder.append(Array(buffer[0..<n]))
        }
    }
    /// The reply to commit `serial` (animation events and watch lines may come first).
    func commit(_ serial: UInt32, _ operations: [Operation]) throws {
        try send(.commit(Commit(serial: serial, operations: [.settings(TransactionSettings(disableActions: true))] + operations)))
        while true {
            switch try receive() {
            case .applied(serial): return
            case .error(let e): throw e
            default: continue
            }
        }
    }
    func framesRendered(_ id: UInt32) throws -> Double {
        try send(.request(id: id, .stats))
        while true {
            if case .reply(id, .stats(let stats)) = try receive() {
                return stats.first { $0.name == "framesRendered" }?.value ?? 0
            }
        }
    }

    try send(.hello(Hello(clientName: "lamina-probe")))
    guard case .welcome = try receive() else { throw SystemError("laminad did not welcome lamina-probe", errno: 0) }
    let mover = LayerID(1), box = LayerID(2)
    var setup: [Operation] = []
    for (layer, frame) in [(mover, Rect(x: 0, y: 700, width: 100, height: 100)), (box, Rect(x: 900, y: 50, width: 100, height: 100))] {
        setup += [.create(layer), .set(layer, .bounds, .rect(Rect(x: 0, y: 0, width: frame.size.width, height: frame.size.height))),
                  .set(layer, .position, .point(Point(x: frame.midX, y: frame.midY))), .set(layer, .backgroundColor, .color(.white)),
                  .insert(parent: .root, child: layer, index: .max)]
    }
    try commit(1, setup)
    let move = BasicAnimation(keyPath: "position.x", from: .number(50), to: .number(1000), duration: seconds + 2)
    try commit(2, [.addAnimation(mover, key: "move", tag: 0, .basic(move))])
    let framesBefore = try framesRendered(1)
    let start = monotonicSeconds()
    var serial: UInt32 = 3
    while monotonicSeconds() - start < seconds {
        let color = Color(red: Double(serial % 256) / 255, green: 0.5, blue: 0.25, alpha: 1)
        try commit(serial, [.set(box, .backgroundColor, .color(color))])
        serial += 1
    }
    let elapsed = monotonicSeconds() - start
    let drawn = try framesRendered(2) - framesBefore
    socket.close()
    let commits = Double(serial - 3)
    func f(_ v: Double) -> String { String((v * 10).rounded() / 10) }
    return "live commits while animating: \(f(commits / elapsed)) commits/s (\(Int(commits)) in \(f(elapsed)) s, each waited for), \(f(drawn / elapsed)) frames/s drawn meanwhile"
}
