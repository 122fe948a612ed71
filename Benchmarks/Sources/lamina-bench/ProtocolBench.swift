#if canImport(Glibc)
import Glibc
#endif
import LaminaCore
import LaminaProtocol
import LaminaCompositor
import LaminaTestSupport

/// Commits per second for a commit that sets 100 properties: encode on the client side, then
/// frame, decode, validate and apply in the server (the whole path but the socket and the frame).
func runProtocolBenchmark() -> String {
    func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
    }
    guard let backend = try? HeadlessDisplay(width: 64, height: 64) else { return "protocol: no EGL" }
    let compositor = Compositor(presenter: backend.presenter, clock: FrameClock(.virtual), realTime: now)
    var replies = 0
    let host = TestHost()
    compositor.host = host
    host.onSend = { _, _ in replies += 1 }
    let client = compositor.connect()
    ClientMessage.hello(Hello(clientName: "bench")).encoded().withUnsafeBytes { compositor.receive($0, from: client) }
    // 10 layers, 10 properties each.
    var setup: [Operation] = []
    for i in 1...10 {
        setup.append(.create(LayerID(UInt32(i))))
        setup.append(.insert(parent: .root, child: LayerID(UInt32(i)), index: .max))
    }
    Commit(serial: 0, operations: setup).encodedFrame.withUnsafeBytes { compositor.receive($0, from: client) }
    func commit(_ serial: UInt32, actions: Bool) -> [UInt8] {
        var ops: [Operation] = actions ? [] : [.settings(TransactionSettings(disableActions: true))]
        ops.reserveCapacity(101)
        let v = Double(serial)
        for i in 1...10 {
            let id = LayerID(UInt32(i))
            ops += [
                .set(id, .position, .point(Point(x: v, y: 2))), .set(id, .bounds, .rect(Rect(x: 0, y: 0, width: 10, height: 10))),
                .set(id, .opacity, .number(0.5)), .set(id, .zPosition, .number(v)), .set(id, .anchorPoint, .point(Point(x: 0.5, y: 0.5))),
                .set(id, .backgroundColor, .color(.red)), .set(id, .transform, .transform(.rotation(angle: v))),
                .set(id, .isHidden, .bool(false)), .set(id, .cornerRadius, .number(4)), .set(id, .borderWidth, .number(1)),
            ]
        }
        return Commit(serial: serial, operations: ops).encodedFrame
    }
    var lines: [String] = []
    for actions in [false, true] {
        let n = actions ? 2_000 : 20_000
        let start = now()
        for s in 1...UInt32(n) {
            commit(s, actions: actions).withUnsafeBytes { compositor.receive($0, from: client) }
        }
        let elapsed = now() - start
        lines.append("""
        protocol: \(n) commits of 100 property sets (\(commit(1, actions: actions).count) bytes), encode + decode + apply\
        \(actions ? " + 100 implicit animations each" : " (actions disabled)"): \
        \(Int(Double(n) / elapsed)) commits/s, \(format2(elapsed / Double(n) * 1e6)) µs/commit
        """)
    }
    _ = replies
    return lines.joined(separator: "\n")
}

private func format2(_ v: Double) -> String {
    let r = (v * 100).rounded() / 100
    return "\(r)"
}

extension Commit {
    var encodedFrame: [UInt8] { ClientMessage.commit(self).encoded() }
}
