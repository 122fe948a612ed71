// Core Animation's two declarative layouts, as values: `autoresizingMask` (CAAutoresizingMask)
// and constraints (CAConstraint, solved in ConstraintLayout.swift). laminad applies both when a
// superlayer's bounds change (the display's included); the client library keeps them in its
// model. Nothing here knows about trees: callers hand in frames and get frames back.

/// How a layer follows a change of its superlayer's bounds size (`CAAutoresizingMask`).
///
/// The bits are Core Animation's. Lamina's y axis points down, so `minYMargin` is the margin
/// above the layer on screen and `maxYMargin` the one below it (as on iOS, where layers are flipped).
public struct AutoresizingMask: OptionSet, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// `kCALayerMinXMargin`: the left margin is flexible.
    public static let minXMargin = AutoresizingMask(rawValue: 1)
    /// `kCALayerWidthSizable`: the width is flexible.
    public static let widthSizable = AutoresizingMask(rawValue: 2)
    /// `kCALayerMaxXMargin`: the right margin is flexible.
    public static let maxXMargin = AutoresizingMask(rawValue: 4)
    /// `kCALayerMinYMargin`: the margin at the superlayer's min y (the top, y down) is flexible.
    public static let minYMargin = AutoresizingMask(rawValue: 8)
    /// `kCALayerHeightSizable`: the height is flexible.
    public static let heightSizable = AutoresizingMask(rawValue: 16)
    /// `kCALayerMaxYMargin`: the margin at the superlayer's max y (the bottom) is flexible.
    public static let maxYMargin = AutoresizingMask(rawValue: 32)
    /// Every bit.
    public static let all = AutoresizingMask(rawValue: 63)

    /// The bits' names as scene files write them, in bit order.
    public static let names: [(name: String, bit: AutoresizingMask)] = [
        ("minXMargin", .minXMargin), ("widthSizable", .widthSizable), ("maxXMargin", .maxXMargin),
        ("minYMargin", .minYMargin), ("heightSizable", .heightSizable), ("maxYMargin", .maxYMargin),
    ]

    /// The mask of these names; nil when one is not a bit's name.
    public init?(names: [String]) {
        var m = AutoresizingMask()
        for n in names {
            guard let bit = Self.names.first(where: { $0.name == n })?.bit else { return nil }
            m.insert(bit)
        }
        self = m
    }

    /// The names of the bits set, in bit order.
    public var names: [String] { Self.names.filter { contains($0.bit) }.map(\.name) }

    public var description: String { "[" + names.joined(separator: ", ") + "]" }

    /// The frame a layer with this mask gets when its superlayer's bounds go from `old` to
    /// `new` (`CALayer.resizeWithOldSuperlayerSize:`). On each axis the change of the
    /// superlayer's size is shared by the flexible parts (left margin, width, right margin)
    /// in proportion to their current sizes, as UIKit and AppKit do; evenly where those sizes
    /// sum to zero or one is negative. Margins are measured from the superlayer's bounds
    /// origin; a part that is not flexible keeps its size.
    public func resized(_ frame: Rect, oldSuperlayerBounds old: Rect, newSuperlayerBounds new: Rect) -> Rect {
        let x = Self.axis(min: frame.minX - old.minX, size: frame.width, oldTotal: old.width, newTotal: new.width,
                          flexible: (contains(.minXMargin), contains(.widthSizable), contains(.maxXMargin)))
        let y = Self.axis(min: frame.minY - old.minY, size: frame.height, oldTotal: old.height, newTotal: new.height,
                          flexible: (contains(.minYMargin), contains(.heightSizable), contains(.maxYMargin)))
        return Rect(x: new.minX + x.min, y: new.minY + y.min, width: x.size, height: y.size)
    }

    /// One axis: the margin before, the size and the margin after share `newTotal − oldTotal`.
    private static func axis(min: Double, size: Double, oldTotal: Double, newTotal: Double,
                             flexible: (Bool, Bool, Bool)) -> (min: Double, size: Double) {
        let parts = [min, size, oldTotal - min - size]
        let flex = [flexible.0, flexible.1, flexible.2]
        let delta = newTotal - oldTotal
        let count = flex.filter { $0 }.count
        guard count > 0, delta != 0 else { return (min, size) }
        let flexibleSum = zip(parts, flex).reduce(0.0) { $0 + ($1.1 ? $1.0 : 0) }
        let proportional = flexibleSum > 0 && zip(parts, flex).allSatisfy { !$0.1 || $0.0 >= 0 }
        func share(_ i: Int) -> Double {
            guard flex[i] else { return 0 }
            return proportional ? delta * parts[i] / flexibleSum : delta / Double(count)
        }
        return (min + share(0), Swift.max(size + share(1), 0))
    }
}

/// One edge, centre or extent of a layer's frame (`CAConstraintAttribute`; the raw values are
/// Core Animation's).
public enum ConstraintAttribute: UInt8, CaseIterable, Sendable, CustomStringConvertible {
    case minX = 0, midX, maxX, width, minY, midY, maxY, height

    /// The name in scene files and the other clients.
    public var name: String {
        switch self {
        case .minX: "minX"
        case .midX: "midX"
        case .maxX: "maxX"
        case .width: "width"
        case .minY: "minY"
        case .midY: "midY"
        case .maxY: "maxY"
        case .height: "height"
        }
    }

    public var description: String { name }

    public init?(name: String) {
        guard let a = Self.allCases.first(where: { $0.name == name }) else { return nil }
        self = a
    }

    /// Whether the attribute lies on the x axis.
    public var isHorizontal: Bool { rawValue < 4 }

    /// The attribute's value for a frame.
    public func value(of r: Rect) -> Double {
        switch self {
        case .minX: r.minX
        case .midX: r.midX
        case .maxX: r.maxX
        case .width: r.width
        case .minY: r.minY
        case .midY: r.midY
        case .maxY: r.maxY
        case .height: r.height
        }
    }
}

/// One relation between a layer's frame and its superlayer's bounds or a sibling's frame
/// (`CAConstraint`): `attribute = source.sourceAttribute × scale + offset`.
public struct LayoutConstraint: Hashable, Sendable, CustomStringConvertible {
    public var attribute: ConstraintAttribute
    /// `"superlayer"`, or the `name` of a sibling layer.
    public var relativeTo: String
    public var sourceAttribute: ConstraintAttribute
    public var scale: Double
    public var offset: Double

    /// The name that means the superlayer (its bounds, in its own coordinates).
    public static let superlayer = "superlayer"

    public init(attribute: ConstraintAttribute, relativeTo: String = LayoutConstraint.superlayer,
                sourceAttribute: ConstraintAttribute, scale: Double = 1, offset: Double = 0) {
        self.attribute = attribute
        self.relativeTo = relativeTo
        self.sourceAttribute = sourceAttribute
        self.scale = scale
        self.offset = offset
    }

    /// Offsets of `attribute` from the same attribute of `relativeTo`.
    public init(attribute: ConstraintAttribute, relativeTo: String = LayoutConstraint.superlayer, offset: Double = 0) {
        self.init(attribute: attribute, relativeTo: relativeTo, sourceAttribute: attribute, scale: 1, offset: offset)
    }

    public var isFinite: Bool { scale.isFinite && offset.isFinite }

    public var description: String {
        var s = "\(attribute) = \(relativeTo).\(sourceAttribute)"
        if scale != 1 { s += " × \(scale)" }
        if offset != 0 { s += offset < 0 ? " − \(-offset)" : " + \(offset)" }
        return s
    }

    /// The most constraints one layer may have (Core Animation needs at most two per axis).
    public static let perLayerLimit = 16
}
