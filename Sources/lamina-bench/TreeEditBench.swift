import LaminaCore
import LaminaPlatform
import LaminaProtocol
import LaminaServer
import LaminaHeadless

/// `lamina-bench tree [N]`: how long one commit of N (10⁵) tree edits holds laminad's loop,
/// applied to a display tree as laminad applies it: N creates and inserts under the root, a
/// chain of N/100 top-down (each insert checks for cycles), N same-parent reorders to the front
/// and N to the middle, then N destroys.
func runTreeEditBenchmark(count n: Int) -> String {
    var limits = ClientLimits()
    limits.maxLayers = n + 10
    limits.maxOperationsPerCommit = 2 * n + 10
    var tree = DisplayTree(width: 1280, height: 720)
    let client = ClientID(rawValue: 1)
    _ = try? tree.attach(client, hello: Hello(clientName: "bench"))
    func time(_ ops: [Operation]) -> String {
        let start = monotonicSeconds()
        do { _ = try tree.apply(ops, from: client, limits: limits) } catch { return "refused: \(error)" }
        return "\(Int((monotonicSeconds() - start) * 1000)) ms"
    }
    let ids = (1...n).map { LayerID(UInt32($0)) }
    let build = time(ids.flatMap { [Operation.create($0), .insert(parent: .root, child: $0, index: .max)] })
    let reorder = time(ids.map { .insert(parent: .root, child: $0, index: 0) })
    let middle = time(ids.map { .insert(parent: .root, child: $0, index: UInt32(n / 2)) })
    let destroy = time(ids.map { .destroy($0) })
    let chainIDs = (1...max(2, n / 100)).map { LayerID(UInt32($0)) }
    var chain: [Operation] = chainIDs.map { .create($0) }
    chain.append(.insert(parent: .root, child: chainIDs[0], index: 0))
    for (parent, child) in zip(chainIDs, chainIDs.dropFirst()) where chain.count < 4 * n {
        chain.append(.insert(parent: parent, child: child, index: 0))
    }
    limits.maxDepth = 256
    let chained = time(Array(chain.prefix(3 + 2 * 255)))
    return "tree edits, one commit each: \(n) creates+inserts \(build), \(n) reorders to the front \(reorder), \(n) to the middle \(middle), \(n) destroys \(destroy), a 256-deep chain top-down \(chained)"
}

/// `lamina-bench staged [N]`: a commit of N (10⁵) operations through a `Compositor` as laminad
/// serves it: applied a step at a time, each step one turn of the loop. Reports the steps, the
/// longest (what another client waits at most), and the whole commit against one apply.
func runStagedCommitBenchmark(count n: Int) -> String {
    func run(step: Int) -> (steps: Int, longest: Double, total: Double)? {
        var configuration = Compositor.Configuration()
        configuration.limits.maxLayers = n + 10
        configuration.commitStepOperations = step
        guard let backend = try? HeadlessBackend(width: 32, height: 32) else { return nil }
        let compositor = Compositor(backend: backend, clock: FrameClock(.virtual), configuration: configuration, realTime: monotonicSeconds)
        let client = compositor.connect()
        ClientMessage.hello(Hello(clientName: "bench")).encoded().withUnsafeBytes { compositor.receive($0, from: client) }
        var ops: [Operation] = []
        ops.reserveCapacity(n)
        var id: UInt32 = 1
        while ops.count + 3 <= n {
            let l = LayerID(id)
            ops += [.create(l), .set(l, .opacity, .number(0.5)), .insert(parent: .root, child: l, index: .max)]
            id += 1
        }
        let frame = ClientMessage.commit(Commit(serial: 1, operations: ops)).encoded()
        var steps = 0, longest = 0.0
        let start = monotonicSeconds()
        var t = monotonicSeconds()
        frame.withUnsafeBytes { compositor.receive($0, from: client, frameBudget: 1) }
        while true {
            let now = monotonicSeconds()
            if now - t > 0.02 { print("step \(steps): \(Int((now - t) * 1000)) ms") }
            longest = max(longest, now - t)
            steps += 1
            guard compositor.hasPendingFrame(client) else { break }
            t = monotonicSeconds()
            compositor.handlePending(client, frameBudget: 1)
        }
        return (steps, longest, monotonicSeconds() - start)
    }
    guard let staged = run(step: Compositor.Configuration().commitStepOperations), let whole = run(step: .max) else {
        return "staged commit: no headless backend"
    }
    func ms(_ v: Double) -> String { "\(Int((v * 1000).rounded())) ms" }
    return "a commit of \(n) operations: in \(staged.steps) steps, the longest \(ms(staged.longest)) (what other clients wait at most), \(ms(staged.total)) in all; applied in one go \(ms(whole.total))"
}
