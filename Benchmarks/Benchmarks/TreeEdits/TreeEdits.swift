import Benchmark
import LaminaCore
import LaminaProtocol
import LaminaCompositor

// How long one commit of tree edits holds laminad's loop, applied to a display tree as laminad
// applies it (sublayers are an order-statistic list: an insert at any index, a reorder and a
// removal are each O(log n)). Each iteration starts from a fresh tree, built outside the
// measurement; only the commit under test is measured.

/// Layers per commit.
private let count = 10_000

/// A display tree with one client attached, and limits that let `count` layers in.
private struct Fixture {
    var tree = ModelTree(width: 1280, height: 720)
    let client = ClientID(rawValue: 1)
    var limits = ClientLimits()

    init(layers: Int) {
        limits.maxLayers = count + 10
        limits.maxOperationsPerCommit = 2 * count + 10
        limits.maxDepth = 256
        _ = try? tree.attach(client, hello: Hello(clientName: "bench"))
        if layers > 0 { apply(createAndInsert) }
    }

    mutating func apply(_ operations: [Operation]) {
        do { _ = try tree.apply(operations, from: client, limits: limits) } catch { fatalError("the benchmark's commit was refused: \(error)") }
    }
}

private let ids = (1...count).map { LayerID(UInt32($0)) }
private let createAndInsert = ids.flatMap { [Operation.create($0), .insert(parent: .root, child: $0, index: .max)] }
private let toFront = ids.map { Operation.insert(parent: .root, child: $0, index: 0) }
private let toMiddle = ids.map { Operation.insert(parent: .root, child: $0, index: UInt32(count / 2)) }
private let destroyAll = ids.map { Operation.destroy($0) }
/// A chain 256 deep, inserted top-down (each insert checks for a cycle up to the root).
private let chain: [Operation] = {
    let chainIDs = (1...256).map { LayerID(UInt32($0)) }
    var operations: [Operation] = chainIDs.map { .create($0) }
    operations.append(.insert(parent: .root, child: chainIDs[0], index: 0))
    for (parent, child) in zip(chainIDs, chainIDs.dropFirst()) {
        operations.append(.insert(parent: parent, child: child, index: 0))
    }
    return operations
}()

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .cpuTotal, .mallocCountTotal, .peakMemoryResident],
        maxDuration: .seconds(2), maxIterations: 50)

    let cases: [(name: String, layers: Int, operations: [Operation])] = [
        ("tree: \(count) creates + inserts, one commit", 0, createAndInsert),
        ("tree: \(count) reorders to the front, one commit", count, toFront),
        ("tree: \(count) reorders to the middle, one commit", count, toMiddle),
        ("tree: \(count) destroys, one commit", count, destroyAll),
        ("tree: a 256-deep chain inserted top-down", 0, chain),
    ]
    for c in cases {
        Benchmark(c.name) { benchmark in
            var fixture = Fixture(layers: c.layers)
            benchmark.startMeasurement()
            fixture.apply(c.operations)
            benchmark.stopMeasurement()
            blackHole(fixture.tree.layerCount)
        }
    }
}
