/// Solves one superlayer's constraints (`CAConstraintLayoutManager`): the frames of its
/// sublayers from their `LayoutConstraint`s, each computed from the superlayer's bounds or a
/// sibling's frame as already laid out, siblings taken in dependency order.
///
/// Per axis (Core Animation's rules): a constrained width (height) sets the size, and the first
/// of min, max, mid that is constrained places it; without a size, two of min, mid, max give
/// both (min and max first, then min and mid, then mid and max); one alone moves the frame and
/// keeps its size; what is not constrained keeps its current value. When an attribute is
/// constrained twice, the later constraint wins. A sibling is found by `name`, the first in
/// sublayer order when names repeat.
public struct ConstraintLayout: Sendable {
    /// One sublayer as the solver sees it.
    public struct Item: Sendable, Equatable {
        public var name: String
        public var frame: Rect
        public var constraints: [LayoutConstraint]
        public init(name: String, frame: Rect, constraints: [LayoutConstraint]) {
            self.name = name
            self.frame = frame
            self.constraints = constraints
        }
    }

    /// Why the constraints could not be solved; `layer` and `constraint` are indices into the
    /// items and that item's constraints.
    public enum Failure: Error, Equatable, Sendable {
        /// `relativeTo` names no sibling.
        case unknownSource(layer: Int, constraint: Int, name: String)
        /// The layers' constraints refer to each other in a ring (`cycle` lists it, in order;
        /// one layer constrained to itself is a ring of one).
        case cycle(layer: Int, constraint: Int, cycle: [Int])
    }

    public init() {}

    /// The new frame of every item (unconstrained ones unchanged), or the first failure.
    public func solve(_ items: [Item], superlayerBounds: Rect) throws(Failure) -> [Rect] {
        var firstByName: [String: Int] = [:]
        for (i, item) in items.enumerated() where firstByName[item.name] == nil && !item.name.isEmpty {
            firstByName[item.name] = i
        }
        // Each item's siblings it depends on, with the constraint that names them.
        var sources: [[(item: Int, constraint: Int)]] = Array(repeating: [], count: items.count)
        for (i, item) in items.enumerated() {
            for (c, constraint) in item.constraints.enumerated() where constraint.relativeTo != LayoutConstraint.superlayer {
                guard let s = firstByName[constraint.relativeTo] else {
                    throw .unknownSource(layer: i, constraint: c, name: constraint.relativeTo)
                }
                sources[i].append((s, c))
            }
        }
        // Depth-first topological order; a grey node met again closes a ring.
        enum Mark { case white, grey, black }
        var marks = [Mark](repeating: .white, count: items.count)
        var order: [Int] = []
        order.reserveCapacity(items.count)
        for start in items.indices where marks[start] == .white && !items[start].constraints.isEmpty {
            // An explicit stack (item, next source to visit), so depth costs no recursion.
            var stack: [(item: Int, next: Int)] = [(start, 0)]
            marks[start] = .grey
            while let top = stack.last {
                if top.next < sources[top.item].count {
                    stack[stack.count - 1].next += 1
                    let edge = sources[top.item][top.next]
                    switch marks[edge.item] {
                    case .white:
                        marks[edge.item] = .grey
                        stack.append((edge.item, 0))
                    case .grey:
                        let ring = stack.map(\.item)
                        throw .cycle(layer: top.item, constraint: edge.constraint,
                                     cycle: Array(ring[ring.firstIndex(of: edge.item)!...]))
                    case .black:
                        break
                    }
                } else {
                    marks[top.item] = .black
                    order.append(top.item)
                    stack.removeLast()
                }
            }
        }
        var frames = items.map(\.frame)
        for i in order where !items[i].constraints.isEmpty {
            var values: [ConstraintAttribute: Double] = [:]
            for c in items[i].constraints {
                let source = c.relativeTo == LayoutConstraint.superlayer ? superlayerBounds : frames[firstByName[c.relativeTo]!]
                values[c.attribute] = c.sourceAttribute.value(of: source) * c.scale + c.offset
            }
            frames[i] = Self.frame(frames[i], values)
        }
        return frames
    }

    /// `frame` with the constrained attributes applied, axis by axis.
    static func frame(_ frame: Rect, _ v: [ConstraintAttribute: Double]) -> Rect {
        let x = axis(min: frame.minX, size: frame.width, v[.minX], v[.midX], v[.maxX], v[.width])
        let y = axis(min: frame.minY, size: frame.height, v[.minY], v[.midY], v[.maxY], v[.height])
        return Rect(x: x.min, y: y.min, width: x.size, height: y.size)
    }

    private static func axis(min: Double, size: Double, _ lo: Double?, _ mid: Double?, _ hi: Double?,
                             _ extent: Double?) -> (min: Double, size: Double) {
        if let extent {
            let s = Swift.max(extent, 0)
            if let lo { return (lo, s) }
            if let hi { return (hi - s, s) }
            if let mid { return (mid - s / 2, s) }
            return (min, s)
        }
        switch (lo, mid, hi) {
        case let (lo?, _, hi?): return (lo, Swift.max(hi - lo, 0))
        case let (lo?, mid?, nil): return (lo, Swift.max(2 * (mid - lo), 0))
        case let (nil, mid?, hi?): let s = Swift.max(2 * (hi - mid), 0); return (hi - s, s)
        case let (lo?, nil, nil): return (lo, size)
        case let (nil, mid?, nil): return (mid - size / 2, size)
        case let (nil, nil, hi?): return (hi - size, size)
        case (nil, nil, nil): return (min, size)
        }
    }
}
