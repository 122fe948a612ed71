#if canImport(Glibc)
import Glibc
#endif
import LaminaCore
import LaminaHeadless
import LaminaProtocol
import LaminaServer

/// Frame time with 1,000 layers each running an implicit position + opacity animation, headless
/// 1280×720, and the latency from a commit to the frame that shows it (virtual clock: the frame
/// right after the commit; measured here as commit-receive → present done, in process).
func runAnimatedFrameBenchmark() -> String {
    func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
    }
    guard let backend = try? HeadlessBackend(width: 1280, height: 720) else { return "animated frames: no EGL" }
    let compositor = Compositor(backend: backend, clock: FrameClock(.virtual), realTime: now)
    let client = compositor.connect()
    ClientMessage.hello(Hello(clientName: "bench")).encoded().withUnsafeBytes { compositor.receive($0, from: client) }
    var setup: [Operation] = [.settings(TransactionSettings(disableActions: true))]
    for i in 1...1000 {
        let id = LayerID(UInt32(i))
        setup += [.create(id), .set(id, .bounds, .rect(Rect(x: 0, y: 0, width: 24, height: 24))),
                  .set(id, .position, .point(Point(x: Double(i % 50) * 25 + 12, y: Double(i / 50) * 30 + 12))),
                  .set(id, .backgroundColor, .color(Color(red: Double(i % 7) / 7, green: 0.5, blue: 0.8))),
                  .insert(parent: .root, child: id, index: .max)]
    }
    ClientMessage.commit(Commit(serial: 1, operations: setup)).encoded().withUnsafeBytes { compositor.receive($0, from: client) }
    _ = try? compositor.render()
    // Commit-to-frame latency for a small commit (one property, actions disabled).
    var latencies: [Double] = []
    for s in 0..<50 {
        let frame = ClientMessage.commit(Commit(serial: UInt32(10 + s), operations: [
            .settings(TransactionSettings(disableActions: true)), .set(LayerID(1), .opacity, .number(Double(s % 2)))])).encoded()
        let t0 = now()
        frame.withUnsafeBytes { compositor.receive($0, from: client) }
        _ = try? compositor.renderIfNeeded()
        latencies.append(now() - t0)
    }
    // Every layer: an implicit position + opacity animation (1 s, default curve).
    var change: [Operation] = [.settings(TransactionSettings(duration: 1))]
    for i in 1...1000 {
        let id = LayerID(UInt32(i))
        change += [.set(id, .position, .point(Point(x: Double(i % 50) * 25 + 12, y: 700 - Double(i / 50) * 30))),
                   .set(id, .opacity, .number(0.3))]
    }
    ClientMessage.commit(Commit(serial: 100, operations: change)).encoded().withUnsafeBytes { compositor.receive($0, from: client) }
    var times: [Double] = []
    for f in 0..<40 {
        ClientMessage.request(id: UInt32(f), .advanceClock(seconds: 1.0 / 60)).encoded().withUnsafeBytes { compositor.receive($0, from: client) }
        times.append(compositor.stats.lastFrameSeconds)
    }
    latencies.sort()
    times.sort()
    func ms(_ v: Double) -> String { "\((v * 100_000).rounded() / 100) ms" }
    return """
    latency commit → frame presented (virtual clock, in process, 1,000 layers): median \(ms(latencies[latencies.count / 2])), p90 \(ms(latencies[latencies.count * 9 / 10]))
    frame with 1,000 layers each animating position + opacity (1280×720, llvmpipe): median \(ms(times[times.count / 2])), max \(ms(times.last!)) \
    (\(compositor.statistics().first { $0.name == "animations" }?.value ?? 0) animations running)
    """
}
