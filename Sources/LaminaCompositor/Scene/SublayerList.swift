import LaminaCore
import LaminaProtocol

/// A layer's sublayers, back to front.
///
/// A short list is a plain array. Past `largeCount` sublayers it becomes an order-statistic
/// tree (`OrderTree`), so that inserting at any index, removing, and finding a sublayer's index
/// cost O(log n) however many siblings there are: a client reordering a list of 10⁵ layers
/// must not make laminad move the whole list for each operation. It turns back into an array
/// below `smallCount` (the gap keeps a list that hovers near the limit from converting on
/// every operation). Iteration is in order and O(1) per element either way.
public struct SublayerList: Sendable, Equatable, BidirectionalCollection, ExpressibleByArrayLiteral {
    static let largeCount = 512
    static let smallCount = 128

    /// The list while it is short; empty while `tree` holds it.
    private var small: [LayerID] = []
    /// The list once it is long.
    private(set) var tree: OrderTree?

    public init() {}
    public init(arrayLiteral elements: LayerID...) { self.init(elements) }
    public init(_ ids: [LayerID]) {
        if ids.count > Self.largeCount { tree = OrderTree(ids) } else { small = ids }
    }

    /// The sublayers as an array (O(1) for a short list).
    public var array: [LayerID] { tree?.elements() ?? small }

    public var count: Int { tree?.count ?? small.count }
    public var isEmpty: Bool { count == 0 }

    public var startIndex: Int { 0 }
    public var endIndex: Int { count }
    public func index(after i: Int) -> Int { i + 1 }
    public func index(before i: Int) -> Int { i - 1 }
    public subscript(position: Int) -> LayerID { tree?.element(at: position) ?? small[position] }

    public struct Iterator: IteratorProtocol {
        var array: IndexingIterator<[LayerID]>
        var tree: OrderTree.Iterator?
        public mutating func next() -> LayerID? { tree != nil ? tree!.next() : array.next() }
    }
    public func makeIterator() -> Iterator { Iterator(array: small.makeIterator(), tree: tree?.makeIterator()) }

    public static func == (a: SublayerList, b: SublayerList) -> Bool {
        if a.tree == nil, b.tree == nil { return a.small == b.small }
        return a.count == b.count && a.elementsEqual(b)
    }

    /// The index of `id`, or nil when it is not in the list: O(log n) for a long list (a short
    /// one is searched).
    public func index(of id: LayerID) -> Int? {
        if let tree { return tree.index(of: id) }
        return small.firstIndex(of: id)
    }

    /// Inserts `id` (not already in the list) at `index`, which is clamped to the list.
    public mutating func insert(_ id: LayerID, at index: Int) {
        let at = Swift.max(0, Swift.min(index, count))
        if tree != nil {
            uniqueTree().insert(id, at: at)
            return
        }
        small.insert(id, at: at)
        if small.count > Self.largeCount {
            tree = OrderTree(small)
            small = []
        }
    }

    public mutating func append(_ id: LayerID) { insert(id, at: count) }

    /// Removes `id` and returns the index it had, or nil when it is not in the list.
    @discardableResult
    public mutating func remove(_ id: LayerID) -> Int? {
        // (No local binding of `tree` may live across `uniqueTree()`: it would make every
        // change copy the tree.)
        if tree == nil {
            guard let at = small.firstIndex(of: id) else { return nil }
            small.remove(at: at)
            return at
        }
        guard tree!.contains(id) else { return nil }
        let at = uniqueTree().remove(id)
        if tree!.count < Self.smallCount {
            small = tree!.elements()
            tree = nil
        }
        return at
    }

    /// Removes every sublayer in `ids`, in one pass over a short list.
    public mutating func removeAll(in ids: Set<LayerID>) {
        guard tree != nil else {
            small.removeAll { ids.contains($0) }
            return
        }
        for id in ids { remove(id) }
    }

    /// The tree, copied first when another list shares it (copy on write).
    private mutating func uniqueTree() -> OrderTree {
        if !isKnownUniquelyReferenced(&tree) { tree = tree!.copy() }
        return tree!
    }
}

/// An order-statistic tree of layer numbers: a treap (binary tree in list order, heap-ordered
/// by random priorities) with subtree sizes and parent links, in a node array. Every operation
/// is iterative; the expected depth is O(log n). Priorities come from the system's random
/// generator, so a client cannot choose insert positions that make the tree deep.
///
/// A reference type for copy on write (`SublayerList` copies it before changing a shared one):
/// it is only ever changed while uniquely referenced, so sharing it between threads is safe.
final class OrderTree: @unchecked Sendable {
    struct Node {
        var left: Int32 = -1
        var right: Int32 = -1
        var parent: Int32 = -1
        var size: Int32 = 1
        var priority: UInt32
        var id: LayerID
    }
    private var nodes: [Node] = []
    private var free: [Int32] = []
    private var slot: [LayerID: Int32] = [:]
    private var root: Int32 = -1

    var count: Int { slot.count }

    init(_ ids: [LayerID]) {
        nodes.reserveCapacity(ids.count)
        slot.reserveCapacity(ids.count)
        var rng = SystemRandomNumberGenerator()
        // A Cartesian tree built left to right with a stack of the right spine: O(n).
        var spine: [Int32] = []
        for id in ids {
            let n = Int32(nodes.count)
            nodes.append(Node(priority: rng.next(), id: id))
            slot[id] = n
            var last: Int32 = -1
            while let top = spine.last, nodes[Int(top)].priority < nodes[Int(n)].priority {
                last = spine.removeLast()
            }
            if last >= 0 {
                nodes[Int(n)].left = last
                nodes[Int(last)].parent = n
            }
            if let top = spine.last {
                nodes[Int(top)].right = n
                nodes[Int(n)].parent = top
            }
            spine.append(n)
        }
        root = spine.first ?? -1
        // Sizes bottom-up: children come before parents in a post-order walk.
        var stack: [(Int32, Bool)] = root >= 0 ? [(root, false)] : []
        while let (n, done) = stack.popLast() {
            if done {
                nodes[Int(n)].size = 1 + size(nodes[Int(n)].left) + size(nodes[Int(n)].right)
                continue
            }
            stack.append((n, true))
            if nodes[Int(n)].left >= 0 { stack.append((nodes[Int(n)].left, false)) }
            if nodes[Int(n)].right >= 0 { stack.append((nodes[Int(n)].right, false)) }
        }
    }

    private init(copying other: OrderTree) {
        nodes = other.nodes
        free = other.free
        slot = other.slot
        root = other.root
    }
    func copy() -> OrderTree { OrderTree(copying: self) }

    private func size(_ n: Int32) -> Int32 { n < 0 ? 0 : nodes[Int(n)].size }

    func elements() -> [LayerID] {
        var out: [LayerID] = []
        out.reserveCapacity(count)
        var it = makeIterator()
        while let id = it.next() { out.append(id) }
        return out
    }

    func contains(_ id: LayerID) -> Bool { slot[id] != nil }

    func index(of id: LayerID) -> Int? {
        guard var n = slot[id] else { return nil }
        var index = Int(size(nodes[Int(n)].left))
        while case let p = nodes[Int(n)].parent, p >= 0 {
            if nodes[Int(p)].right == n { index += Int(size(nodes[Int(p)].left)) + 1 }
            n = p
        }
        return index
    }

    func element(at index: Int) -> LayerID {
        precondition(index >= 0 && index < count, "sublayer index out of range")
        var n = root
        var k = Int32(index)
        while true {
            let l = size(nodes[Int(n)].left)
            if k < l {
                n = nodes[Int(n)].left
            } else if k == l {
                return nodes[Int(n)].id
            } else {
                k -= l + 1
                n = nodes[Int(n)].right
            }
        }
    }

    func insert(_ id: LayerID, at index: Int) {
        var rng = SystemRandomNumberGenerator()
        let node = Node(priority: rng.next(), id: id)
        let x: Int32
        if let f = free.popLast() {
            x = f
            nodes[Int(f)] = node
        } else {
            x = Int32(nodes.count)
            nodes.append(node)
        }
        slot[id] = x
        guard root >= 0 else {
            root = x
            return
        }
        // Down to the leaf position in list order, counting the new node into every subtree.
        var n = root
        var k = Int32(index)
        while true {
            nodes[Int(n)].size += 1
            let l = size(nodes[Int(n)].left)
            if k <= l {
                if nodes[Int(n)].left < 0 {
                    nodes[Int(n)].left = x
                    break
                }
                n = nodes[Int(n)].left
            } else {
                k -= l + 1
                if nodes[Int(n)].right < 0 {
                    nodes[Int(n)].right = x
                    break
                }
                n = nodes[Int(n)].right
            }
        }
        nodes[Int(x)].parent = n
        // Up to where its priority belongs.
        while case let p = nodes[Int(x)].parent, p >= 0, nodes[Int(p)].priority < nodes[Int(x)].priority {
            rotateUp(x)
        }
    }

    /// Removes `id` (which is in the tree) and returns the index it had.
    func remove(_ id: LayerID) -> Int {
        let index = self.index(of: id)!
        let x = slot.removeValue(forKey: id)!
        // Down until it has at most one child, keeping the heap order.
        while nodes[Int(x)].left >= 0 && nodes[Int(x)].right >= 0 {
            let l = nodes[Int(x)].left, r = nodes[Int(x)].right
            rotateUp(nodes[Int(l)].priority > nodes[Int(r)].priority ? l : r)
        }
        let child = nodes[Int(x)].left >= 0 ? nodes[Int(x)].left : nodes[Int(x)].right
        let p = nodes[Int(x)].parent
        if child >= 0 { nodes[Int(child)].parent = p }
        replace(x, with: child, under: p)
        var a = p
        while a >= 0 {
            nodes[Int(a)].size -= 1
            a = nodes[Int(a)].parent
        }
        nodes[Int(x)] = Node(priority: 0, id: LayerID(rawValue: 0))
        free.append(x)
        return index
    }

    private func replace(_ old: Int32, with new: Int32, under p: Int32) {
        if p < 0 {
            root = new
        } else if nodes[Int(p)].left == old {
            nodes[Int(p)].left = new
        } else {
            nodes[Int(p)].right = new
        }
    }

    /// Rotates `x` above its parent, keeping list order and subtree sizes.
    private func rotateUp(_ x: Int32) {
        let p = nodes[Int(x)].parent
        let g = nodes[Int(p)].parent
        if nodes[Int(p)].left == x {
            let b = nodes[Int(x)].right
            nodes[Int(p)].left = b
            if b >= 0 { nodes[Int(b)].parent = p }
            nodes[Int(x)].right = p
        } else {
            let b = nodes[Int(x)].left
            nodes[Int(p)].right = b
            if b >= 0 { nodes[Int(b)].parent = p }
            nodes[Int(x)].left = p
        }
        nodes[Int(p)].parent = x
        nodes[Int(x)].parent = g
        replace(p, with: x, under: g)
        nodes[Int(x)].size = nodes[Int(p)].size
        nodes[Int(p)].size = 1 + size(nodes[Int(p)].left) + size(nodes[Int(p)].right)
    }

    /// In order, by successor links: O(1) amortised per element, no stack.
    struct Iterator: IteratorProtocol {
        let tree: OrderTree
        var cursor: Int32

        init(_ tree: OrderTree) {
            self.tree = tree
            var n = tree.root
            while n >= 0, tree.nodes[Int(n)].left >= 0 { n = tree.nodes[Int(n)].left }
            cursor = n
        }

        mutating func next() -> LayerID? {
            guard cursor >= 0 else { return nil }
            let nodes = tree.nodes
            let current = cursor
            if nodes[Int(current)].right >= 0 {
                var n = nodes[Int(current)].right
                while nodes[Int(n)].left >= 0 { n = nodes[Int(n)].left }
                cursor = n
            } else {
                var n = current
                var p = nodes[Int(n)].parent
                while p >= 0, nodes[Int(p)].right == n {
                    n = p
                    p = nodes[Int(p)].parent
                }
                cursor = p
            }
            return nodes[Int(current)].id
        }
    }
    func makeIterator() -> Iterator { Iterator(self) }
}
