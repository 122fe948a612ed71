import LaminaCore
import LaminaPlatform
import LaminaProtocol
import LaminaServer

/// `lamina-bench tree [N]`: how long one commit of N (10⁵) tree edits holds laminad's loop,
/// applied to a display tree as laminad applies it: N creates and inserts under the root, a
/// chain of N/100 top-down (each insert checks for cycles), N same-parent reorders, then N
/// destroys.
func runTreeEditBenchmark(count n: Int) -> String {
    var limits = ClientLimits()
    limits.maxLayers = n + 10
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
    let destroy = time(ids.map { .destroy($0) })
    let chainIDs = (1...max(2, n / 100)).map { LayerID(UInt32($0)) }
    var chain: [Operation] = chainIDs.map { .create($0) }
    chain.append(.insert(parent: .root, child: chainIDs[0], index: 0))
    for (parent, child) in zip(chainIDs, chainIDs.dropFirst()) where chain.count < 4 * n {
        chain.append(.insert(parent: parent, child: child, index: 0))
    }
    limits.maxDepth = 256
    let chained = time(Array(chain.prefix(3 + 2 * 255)))
    return "tree edits, one commit each: \(n) creates+inserts \(build), \(n) reorders to the front \(reorder), \(n) destroys \(destroy), a 256-deep chain top-down \(chained)"
}
