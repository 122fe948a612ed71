import Benchmark
import LaminaCore
import LaminaPlatform
import LaminaProtocol
import LaminaCompositor
import LaminaTestSupport

// What a frame costs in process, headless 1280×720 on the virtual clock, with 1,000 layers:
// - the render list alone (the display tree walked into draw commands, no GL);
// - a whole frame while every layer animates position and opacity (evaluation, render list,
//   draw, present: llvmpipe's work included);
// - a small commit to the frame that shows it.

/// Layers in the scene.
private let count = 1_000

/// The scene: `count` coloured 24×24 layers in a grid.
private let scene: [Operation] = (1...count).flatMap { i -> [Operation] in
    let id = LayerID(UInt32(i))
    return [.create(id), .set(id, .bounds, .rect(Rect(x: 0, y: 0, width: 24, height: 24))),
            .set(id, .position, .point(Point(x: Double(i % 50) * 25 + 12, y: Double(i / 50) * 30 + 12))),
            .set(id, .backgroundColor, .color(Color(red: Double(i % 7) / 7, green: 0.5, blue: 0.8))),
            .set(id, .cornerRadius, .number(4)),
            .insert(parent: .root, child: id, index: .max)]
}

/// Every layer moving and fading over one second (implicit animations); `down` picks the way.
private func animateAll(down: Bool) -> [Operation] {
    var operations: [Operation] = [.settings(TransactionSettings(duration: 1))]
    for i in 1...count {
        let id = LayerID(UInt32(i))
        let y = down ? 700 - Double(i / 50) * 30 : Double(i / 50) * 30 + 12
        operations += [.set(id, .position, .point(Point(x: Double(i % 50) * 25 + 12, y: y))),
                       .set(id, .opacity, .number(down ? 0.3 : 1))]
    }
    return operations
}

/// A compositor on the headless backend with one client that has committed `scene`.
private struct Session {
    let compositor: Compositor
    let client: ClientID
    private var serial: UInt32 = 1

    init?() {
        guard let backend = try? HeadlessDisplay(width: 1280, height: 720) else { return nil }
        compositor = Compositor(presenter: backend.presenter, clock: FrameClock(.virtual), realTime: monotonicSeconds)
        client = compositor.connect()
        receive(.hello(Hello(clientName: "bench")))
        commit([.settings(TransactionSettings(disableActions: true))] + scene)
        _ = try? compositor.flushFrame(always: true)
    }

    func receive(_ message: ClientMessage) {
        message.encoded().withUnsafeBytes { compositor.receive($0, from: client) }
    }

    mutating func commit(_ operations: [Operation]) {
        serial += 1
        receive(.commit(Commit(serial: serial, operations: operations)))
    }
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .cpuTotal, .mallocCountTotal, .peakMemoryResident],
        maxDuration: .seconds(2), maxIterations: 1_000)

    var display = ModelTree(width: 1280, height: 720, background: .black)
    var limits = ClientLimits()
    limits.maxLayers = count + 10
    _ = try? display.attach(ClientID(rawValue: 1), hello: Hello(clientName: "bench"))
    _ = try? display.apply(scene, from: ClientID(rawValue: 1), limits: limits)
    Benchmark("render list: \(count) layers (no GL)") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(display.drawList().commands.count) }
    }

    guard var session = Session() else {
        print("frames: no headless backend (EGL); the frame benchmarks are left out")
        return
    }
    // Each animation runs 60 frames; a new one, the other way, starts before it ends.
    var frame = 0
    Benchmark("frame: \(count) layers animating position + opacity") { benchmark in
        if frame % 50 == 0 { session.commit(animateAll(down: frame % 100 == 0)) }
        frame += 1
        let tick = ClientMessage.request(id: UInt32(truncatingIfNeeded: frame), .advanceClock(seconds: 1.0 / 60)).encoded()
        benchmark.startMeasurement()
        tick.withUnsafeBytes { session.compositor.receive($0, from: session.client) }
        benchmark.stopMeasurement()
    }
    var opacity = 0.0, serial: UInt32 = 1_000
    Benchmark("commit → frame presented: one property, \(count) layers") { benchmark in
        opacity = 1 - opacity
        serial += 1
        let commit = ClientMessage.commit(Commit(serial: serial, operations: [
            .settings(TransactionSettings(disableActions: true)), .set(LayerID(1), .opacity, .number(opacity))])).encoded()
        benchmark.startMeasurement()
        commit.withUnsafeBytes { session.compositor.receive($0, from: session.client) }
        _ = try? session.compositor.flushFrame()
        benchmark.stopMeasurement()
    }
}
