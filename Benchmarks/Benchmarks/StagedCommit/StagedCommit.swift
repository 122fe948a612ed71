import Benchmark
import LaminaCore
import LaminaPlatform
import LaminaProtocol
import LaminaCompositor
import LaminaTestSupport

// A big commit served as laminad serves it: a step at a time, each step one turn of the loop,
// so other clients wait at most one step. Reports the whole commit's wall time, CPU,
// allocations and peak memory, and two custom metrics: the steps it took and the longest one
// (what another client waits at most). The same commit applied in one piece is the comparison.

/// Operations in the commit: create, set opacity and insert, for a third as many layers.
private let count = 100_000

private let longestStep = BenchmarkMetric.custom("longest step (µs)", polarity: .prefersSmaller, useScalingFactor: false)
private let steps = BenchmarkMetric.custom("steps", polarity: .prefersSmaller, useScalingFactor: false)

/// The commit, encoded as a client sends it.
private let frame: [UInt8] = {
    var operations: [Operation] = []
    operations.reserveCapacity(count)
    var id: UInt32 = 1
    while operations.count + 3 <= count {
        let layer = LayerID(id)
        operations += [.create(layer), .set(layer, .opacity, .number(0.5)), .insert(parent: .root, child: layer, index: .max)]
        id += 1
    }
    return ClientMessage.commit(Commit(serial: 1, operations: operations)).encoded()
}()

/// Serves `frame` to a fresh compositor, `operationsPerStep` operations a turn; false without EGL.
private func serve(operationsPerStep: Int, _ benchmark: Benchmark) -> Bool {
    var configuration = Compositor.Configuration()
    configuration.limits.maxLayers = count + 10
    configuration.commitStepOperations = operationsPerStep
    guard let backend = try? HeadlessDisplay(width: 32, height: 32) else { return false }
    let compositor = Compositor(presenter: backend.presenter, clock: FrameClock(.virtual), configuration: configuration, realTime: monotonicSeconds)
    let client = compositor.connect()
    ClientMessage.hello(Hello(clientName: "bench")).encoded().withUnsafeBytes { compositor.receive($0, from: client) }
    var stepCount = 0, longest = 0.0
    benchmark.startMeasurement()
    var start = monotonicSeconds()
    frame.withUnsafeBytes { compositor.receive($0, from: client, frameBudget: 1) }
    while true {
        longest = max(longest, monotonicSeconds() - start)
        stepCount += 1
        guard compositor.hasPendingFrame(client) else { break }
        start = monotonicSeconds()
        compositor.handlePending(client, frameBudget: 1)
    }
    benchmark.stopMeasurement()
    benchmark.measurement(longestStep, Int(longest * 1e6))
    benchmark.measurement(steps, stepCount)
    return true
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .cpuTotal, .mallocCountTotal, .peakMemoryResident, longestStep, steps],
        maxDuration: .seconds(3), maxIterations: 20)

    Benchmark("staged commit: \(count) operations, served in steps") { benchmark in
        if !serve(operationsPerStep: Compositor.Configuration().commitStepOperations, benchmark) {
            print("staged commit: no headless backend (EGL)")
        }
    }
    Benchmark("staged commit: \(count) operations, applied in one piece") { benchmark in
        if !serve(operationsPerStep: .max, benchmark) { print("staged commit: no headless backend (EGL)") }
    }
}
