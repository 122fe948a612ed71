import Testing
import LaminaCore
import LaminaProtocol
@testable import LaminaCompositor

/// Depth budget, cycles through masks, and linear-time bulk edits (TreeShape.swift).
@Suite("Tree shape: depth, cycles, bulk edits")
struct TreeShapeTests {
    func tree() -> ClientTree { ClientTree(displayWidth: 640, displayHeight: 480) }
    let limits = ClientLimits()

    /// A chain of `n` layers below the root, numbered 1...n, built top-down.
    func chain(_ n: Int, from first: UInt32 = 1) -> [Operation] {
        var ops: [Operation] = (0..<n).map { .create(LayerID(first + UInt32($0))) }
        ops.append(.insert(parent: .root, child: LayerID(first), index: .max))
        for k in 1..<max(n, 1) { ops.append(.insert(parent: LayerID(first + UInt32(k - 1)), child: LayerID(first + UInt32(k)), index: .max)) }
        return ops
    }

    func rejection(_ body: () throws -> Void) -> CommitRejection? {
        do { try body() } catch let e as CommitRejection { return e } catch { Issue.record("unexpected \(error)") }
        return nil
    }

    @Test func aChainAtTheBudgetIsAllowedAndOneMoreIsRefused() throws {
        var t = tree()
        try t.apply(chain(limits.maxDepth))
        let before = t.layers
        let error = rejection { try t.apply([.create(LayerID(1000)), .insert(parent: LayerID(UInt32(limits.maxDepth)), child: LayerID(1000), index: 0)]) }
        #expect(error?.code == .limitExceeded)
        #expect(error?.operationIndex == 1)
        #expect(error?.message.contains("depth budget (maxDepth) is \(limits.maxDepth)") == true)
        #expect(t.layers == before, "a refused commit leaves the tree as it was")
    }

    /// The report's attack: 200 (and 10 000) nested layers in one commit; refused quickly,
    /// since every walk stops at the budget.
    @Test(arguments: [200, 10_000]) func deepChainsAreRefused(_ n: Int) {
        var t = tree()
        let error = rejection { try t.apply(chain(n)) }
        #expect(error?.code == .limitExceeded)
        #expect(t.layers.count == 1)
    }

    /// Built bottom-up while detached (each insert shallow), then attached: the subtree's
    /// depth is checked when it moves.
    @Test func aDeepDetachedSubtreeCannotBeAttached() throws {
        var t = tree()
        let n = limits.maxDepth + 5
        var ops: [Operation] = (1...n).map { .create(LayerID(UInt32($0))) }
        for k in stride(from: n, to: 1, by: -1) { ops.append(.insert(parent: LayerID(UInt32(k - 1)), child: LayerID(UInt32(k)), index: 0)) }
        let error = rejection { try t.apply(ops) }
        #expect(error?.code == .limitExceeded, "a detached chain deeper than the budget is refused too")
        // Two halves within the budget each, joined: refused at the join.
        var halves: [Operation] = (1...n).map { .create(LayerID(UInt32($0))) }
        for k in 2...n where k != 40 { halves.append(.insert(parent: LayerID(UInt32(k - 1)), child: LayerID(UInt32(k)), index: 0)) }
        halves.append(.insert(parent: .root, child: LayerID(1), index: 0))
        try t.apply(halves)
        let join = rejection { try t.apply([.insert(parent: LayerID(39), child: LayerID(40), index: 0)]) }
        #expect(join?.code == .limitExceeded)
        #expect(join?.operationIndex == 0)
    }

    /// A mask hangs below the layer it masks: a chain through masks counts, and a layer cannot
    /// be put inside its own mask's subtree (the render walk would never end).
    @Test func masksCountForDepthAndCycles() throws {
        var t = tree()
        try t.apply([.create(LayerID(1)), .create(LayerID(2)), .create(LayerID(3)),
                     .insert(parent: .root, child: LayerID(1), index: 0),
                     .insert(parent: LayerID(2), child: LayerID(3), index: 0),
                     .set(LayerID(1), .mask, .layer(2))])
        let error = rejection { try t.apply([.insert(parent: LayerID(3), child: LayerID(1), index: 0)]) }
        #expect(error?.code == .cycle, "1 inside its own mask's sublayer")
    }

    /// Removing every other one of many siblings keeps the rest in order, and each
    /// `.removed` change carries the index the layer had when it went (as if removed one at a time).
    @Test func bulkRemovalKeepsOrderAndIndices() throws {
        var t = tree()
        let n = 2000
        try t.apply((1...n).map { .create(LayerID(UInt32($0))) } + (1...n).map { .insert(parent: .root, child: LayerID(UInt32($0)), index: .max) })
        let removed = stride(from: 2, through: n, by: 2).map { LayerID(UInt32($0)) }
        let result = try t.apply(removed.map { .remove($0) })
        #expect(t[.root]?.sublayers.array == stride(from: 1, through: n, by: 2).map { LayerID(UInt32($0)) })
        let indices = result.changes.compactMap { change -> Int? in
            if case let .removed(_, _, at) = change { return at }
            return nil
        }
        // Layer 2k sat at 2k-1 originally, with k-1 earlier removals before it: index k.
        #expect(indices == (1...(n / 2)).map { $0 })
        // Destroying the rest, and a removal followed by a re-insert into the same superlayer.
        try t.apply([.remove(LayerID(1)), .insert(parent: .root, child: LayerID(1), index: .max)])
        #expect(t[.root]?.sublayers.last == LayerID(1))
        #expect(t[.root]?.sublayers.count == n / 2)
        try t.apply(stride(from: 1, through: n, by: 2).map { .destroy(LayerID(UInt32($0))) })
        #expect(t[.root]?.sublayers == [])
        #expect(t.layers.count == 1 + n / 2)
    }

    /// A rejected commit after bulk removals restores the arrays exactly.
    @Test func rollbackAfterRemovals() throws {
        var t = tree()
        try t.apply((1...10).map { .create(LayerID(UInt32($0))) } + (1...10).map { .insert(parent: .root, child: LayerID(UInt32($0)), index: .max) })
        let before = t.layers
        let error = rejection { try t.apply([.remove(LayerID(3)), .destroy(LayerID(5)), .insert(parent: LayerID(1), child: LayerID(4), index: 0), .set(LayerID(99), .opacity, .number(1))]) }
        #expect(error?.code == .unknownLayer)
        #expect(t.layers == before)
    }

    /// 100 000 sibling destroys in one commit finish (the old code was quadratic: 43 s and 7.7 s). No timing is asserted; the
    /// `TreeEdits` benchmark suite (Benchmarks/) reports the time.
    @Test func manySiblingsAreDestroyedInOneCommit() throws {
        var t = tree()
        let n = 99_999  // the root is the 100 000th
        try t.apply((1...n).map { .create(LayerID(UInt32($0))) })
        try t.apply((1...n).map { .insert(parent: .root, child: LayerID(UInt32($0)), index: .max) })
        try t.apply((1...n).map { .destroy(LayerID(UInt32($0))) })
        #expect(t.layers.count == 1)
        #expect(t[.root]?.sublayers.isEmpty == true)
    }
}
