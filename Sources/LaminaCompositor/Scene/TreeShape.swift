import LaminaCore
import LaminaProtocol

// The structural side of a commit: depth is bounded, cycles are refused, and removing many
// siblings stays linear. Every walk here is iterative and bounded by `ClientLimits.maxDepth`
// or by the number of layers, so no client can make the server recurse or loop without end.

extension ServerLayer {
    /// The next layer up: the superlayer, or for a mask layer the layer it masks. The render
    /// walk descends both ways, so depth counts both.
    var up: LayerID? { superlayer ?? maskOf }

    /// Whether the layer has sublayers or a mask (some may be pending removal in a commit).
    var hasDescendants: Bool { !sublayers.isEmpty || properties.mask != 0 }
}

extension ClientTree {
    /// Why a commit was refused for depth.
    static func tooDeep(_ depth: Int, _ i: Int, _ what: String, limits: ClientLimits) -> CommitRejection {
        CommitRejection(code: .limitExceeded, operationIndex: i,
                        message: "\(what) would put a layer \(depth) levels below its root; the depth budget (maxDepth) is \(limits.maxDepth)")
    }

    /// The number of links from `id` up to the top of its tree, or nil when there are more
    /// than `limit`. Remembers what it finds in `memo` (valid until a subtree moves).
    func depth(of id: LayerID, limit: Int, memo: inout [LayerID: Int]) -> Int? {
        if let d = memo[id] { return d }
        var path: [LayerID] = []
        var cursor = id
        var base = 0
        while true {
            if let d = memo[cursor] { base = d; break }
            path.append(cursor)
            guard path.count <= limit + 1 else { return nil }
            guard let up = layers[cursor]?.up else { base = -1; break }
            cursor = up
        }
        // path[k] is k links below `cursor`'s depth (base), counted from the end.
        for (k, layer) in path.reversed().enumerated() { memo[layer] = base + k + 1 }
        return memo[id]
    }

    /// Checks that `child` may go into `parent` (no cycle; not deeper than the budget at that
    /// point) and returns the parent's depth. A child without descendants cannot be an
    /// ancestor of anything, so its check uses the remembered depths; a child with descendants
    /// walks up from the parent (at most maxDepth links), and its subtree's own depth is
    /// checked once at the end of the commit.
    mutating func depthForInsert(_ child: LayerID, into parent: LayerID, hasDescendants: Bool, _ i: Int,
                                 limits: ClientLimits, _ journal: inout Journal) throws(CommitRejection) -> Int {
        guard child != parent else {
            throw CommitRejection(code: .cycle, operationIndex: i, message: "inserting \(child) into \(parent) would make \(child) its own ancestor")
        }
        if hasDescendants {
            var cursor: LayerID? = parent
            var steps = 0
            while let c = cursor {
                if c == child {
                    throw CommitRejection(code: .cycle, operationIndex: i,
                                          message: "inserting \(child) into \(parent) would make \(child) its own ancestor")
                }
                guard steps <= limits.maxDepth else { throw Self.tooDeep(steps + 1, i, "inserting \(child) into \(parent)", limits: limits) }
                cursor = layers[c]?.up
                steps += 1
            }
            journal.depthMemo.removeAll()
            return steps - 1
        }
        guard let d = depth(of: parent, limit: limits.maxDepth, memo: &journal.depthMemo), d + 1 <= limits.maxDepth else {
            throw Self.tooDeep(limits.maxDepth + 1, i, "inserting \(child) into \(parent)", limits: limits)
        }
        return d
    }

    /// A layer left its superlayer: depths remembered below it are stale.
    func forgetDepth(of id: LayerID, _ journal: inout Journal) {
        if layers[id]?.hasDescendants == true || layers[id]?.maskOf != nil {
            journal.depthMemo.removeAll()
        } else {
            journal.depthMemo[id] = nil
        }
    }

    /// Takes the sublayers removed from `parent` during this commit out of its array in one
    /// pass, and fills in the index each had when it was removed (for onOrderOut ghosts).
    mutating func compact(_ parent: LayerID, _ journal: inout Journal, changes: inout [TreeChange]) {
        guard let pending = journal.pendingRemovals.removeValue(forKey: parent) else { return }
        // (No copy of the superlayer is held here: its sublayer list is changed in place, and a
        // long list shared with a copy would be copied whole.)
        guard let count = layers[parent]?.sublayers.count else { return }
        if pending.count == 1 || count > SublayerList.largeCount {
            // One removal (a sibling moved within its superlayer), or a long list: each is
            // found and removed in O(log n) for a long list, in the order they were removed,
            // which gives each the index it had then.
            for (child, change) in pending {
                guard let at = layers[parent]!.sublayers.remove(child) else { continue }
                changes[change] = .removed(child, from: parent, at: at)
            }
            return
        }
        var position: [LayerID: Int] = [:]
        position.reserveCapacity(pending.count)
        let removed = Set(pending.map(\.child))
        for (k, s) in layers[parent]!.sublayers.enumerated() where removed.contains(s) { position[s] = k }
        // The index at removal time is the original position less the siblings before it that
        // were removed earlier: counted with a Fenwick tree, O(k log n) for k removals.
        var counts = FenwickTree(count: count)
        for (child, change) in pending {
            guard let at = position[child] else { continue }
            let index = at - counts.prefixSum(upTo: at)
            counts.add(1, at: at)
            changes[change] = .removed(child, from: parent, at: index)
        }
        layers[parent]!.sublayers.removeAll(in: removed)
    }

    /// Every superlayer with removals this commit gets its array compacted.
    mutating func finishStructure(_ journal: inout Journal, changes: inout [TreeChange], limits: ClientLimits) {
        for parent in Array(journal.pendingRemovals.keys) { compact(parent, &journal, changes: &changes) }
    }

    /// Checks that no subtree moved in this commit reaches deeper than the budget: one
    /// iterative walk over each moved subtree (a layer met twice is skipped, since depths are
    /// taken in the final tree), so the cost is at most the number of layers.
    func checkDepth(of roots: [LayerID: Int], limits: ClientLimits, journal: inout Journal) throws(CommitRejection) {
        guard !roots.isEmpty else { return }
        var visited: Set<LayerID> = []
        var memo: [LayerID: Int] = [:]
        for (root, op) in roots.sorted(by: { $0.value < $1.value }) where layers[root] != nil && !visited.contains(root) {
            guard let base = depth(of: root, limit: limits.maxDepth, memo: &memo) else {
                throw Self.tooDeep(limits.maxDepth + 1, op, "moving \(root)", limits: limits)
            }
            var stack: [(LayerID, Int)] = [(root, base)]
            while let (id, d) = stack.popLast() {
                guard visited.insert(id).inserted, let layer = layers[id] else { continue }
                guard d <= limits.maxDepth else { throw Self.tooDeep(d, op, "moving \(root)", limits: limits) }
                for s in layer.sublayers { stack.append((s, d + 1)) }
                if layer.properties.mask != 0 { stack.append((LayerID(rawValue: layer.properties.mask), d + 1)) }
            }
        }
    }
}

/// Prefix sums over 0..<count with point updates, both O(log count).
struct FenwickTree {
    private var tree: [Int]
    init(count: Int) { tree = Array(repeating: 0, count: count + 1) }

    mutating func add(_ value: Int, at index: Int) {
        var i = index + 1
        while i < tree.count {
            tree[i] += value
            i += i & -i
        }
    }

    /// The sum of the values at 0..<index.
    func prefixSum(upTo index: Int) -> Int {
        var i = index
        var sum = 0
        while i > 0 {
            sum += tree[i]
            i -= i & -i
        }
        return sum
    }
}
