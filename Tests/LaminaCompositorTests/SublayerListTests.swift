import Testing
import LaminaTestSupport
import LaminaCore
import LaminaProtocol
@testable import LaminaCompositor

/// The sublayer list against a plain array doing the same, through the array → tree → array
/// conversions; and a long list's reorders through `ClientTree` (SublayerList.swift).
@Suite("Sublayer lists")
struct SublayerListTests {
    @Test("random inserts, moves and removals agree with an array, across both representations", arguments: [1, 2, 3])
    func agreesWithAnArray(seed: UInt64) {
        var rng = SplitMix(state: seed)
        var list = SublayerList()
        var model: [LayerID] = []
        var nextID: UInt32 = 1
        var sawTree = false, sawArrayAgain = false
        for step in 0..<6000 {
            // Grow past the tree limit, shrink below the array limit, grow again.
            let growing = step < 2000 || step >= 4000
            let roll = Int.random(in: 0..<10, using: &rng)
            if model.isEmpty || (growing && roll < 6) || (!growing && roll < 2) {
                let at = Int.random(in: 0...model.count, using: &rng)
                let id = LayerID(nextID)
                nextID += 1
                list.insert(id, at: at)
                model.insert(id, at: at)
            } else if roll < 8 || !growing {
                let k = Int.random(in: 0..<model.count, using: &rng)
                let removed = list.remove(model[k])
                #expect(removed == k)
                model.remove(at: k)
            } else {
                // A move within the list, as a same-parent insert does it.
                let k = Int.random(in: 0..<model.count, using: &rng)
                let id = model.remove(at: k)
                #expect(list.remove(id) == k)
                let at = Int.random(in: 0...model.count, using: &rng)
                list.insert(id, at: at)
                model.insert(id, at: at)
            }
            if list.tree != nil { sawTree = true } else if sawTree { sawArrayAgain = true }
            if step % 97 == 0 || step == 5999 {
                #expect(list.array == model)
                #expect(Array(list) == model)
                #expect(list.count == model.count)
                if let probe = model.randomElement(using: &rng) { #expect(list.index(of: probe) == model.firstIndex(of: probe)) }
                if !model.isEmpty {
                    let k = Int.random(in: 0..<model.count, using: &rng)
                    #expect(list[k] == model[k])
                }
            }
        }
        #expect(list.remove(LayerID(nextID + 1)) == nil, "a layer not in the list is not removed")
        #expect(sawTree && sawArrayAgain, "the run went through both representations")
    }

    @Test func copiesAreIndependent() {
        let ids = (1...2000).map { LayerID(UInt32($0)) }
        var a = SublayerList(ids)
        #expect(a.tree != nil)
        let b = a
        a.remove(LayerID(5))
        a.insert(LayerID(5), at: 1999)
        #expect(b.array == ids, "the copy kept its order")
        #expect(a.array == Array(ids[0..<4]) + Array(ids[5...]) + [LayerID(5)])
        #expect(a != b && b == SublayerList(ids))
    }

    @Test("reorders in a list of 5000 siblings, with the indices removals report")
    func longListThroughTheClientTree() throws {
        var t = ClientTree(displayWidth: 640, displayHeight: 480)
        let n = 5000
        let ids = (1...n).map { LayerID(UInt32($0)) }
        var limits = ClientLimits()
        limits.maxOperationsPerCommit = 4 * n
        try t.apply(ids.flatMap { [Operation.create($0), .insert(parent: .root, child: $0, index: .max)] }, limits: limits)
        var rng = SplitMix(state: 7)
        var model = ids
        var ops: [Operation] = []
        var expectedRemovals: [(LayerID, Int)] = []
        for _ in 0..<3000 {
            let k = Int.random(in: 0..<model.count, using: &rng)
            let id = model.remove(at: k)
            expectedRemovals.append((id, k))
            let at = Int.random(in: 0...model.count, using: &rng)
            model.insert(id, at: at)
            ops.append(.insert(parent: .root, child: id, index: UInt32(at)))
        }
        // Some removals and destroys too, taken out in one commit.
        for id in model.suffix(40) { ops.append(.remove(id)) }
        for id in model.prefix(40) { ops.append(.destroy(id)) }
        let result = try t.apply(ops, limits: limits)
        let removals = result.changes.compactMap { c -> (LayerID, Int)? in
            if case let .removed(id, from: _, at: at) = c { return (id, at) }
            return nil
        }
        var after = model
        var tail: [(LayerID, Int)] = []
        for id in model.suffix(40) + model.prefix(40) {
            let at = after.firstIndex(of: id)!
            tail.append((id, at))
            after.remove(at: at)
        }
        #expect(removals.map(\.0) == expectedRemovals.map(\.0) + tail.map(\.0))
        #expect(removals.map(\.1) == expectedRemovals.map(\.1) + tail.map(\.1), "each removal reports the index it had then")
        #expect(t[.root]?.sublayers.array == after)
    }
}
