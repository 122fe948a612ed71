/// `CAEmitterLayer.emitterShape`: where particles are born, about `emitterPosition`.
public enum EmitterShape: String, CaseIterable, Sendable {
    /// At `emitterPosition`.
    case point
    /// Along a horizontal line `emitterSize.width` long.
    case line
    /// In a rectangle of `emitterSize`.
    case rectangle
    /// In a box of `emitterSize` × `emitterDepth`.
    case cuboid
    /// In a circle of diameter `emitterSize.width`.
    case circle
    /// In a sphere of diameter `emitterSize.width`.
    case sphere
}

/// `CAEmitterLayer.emitterMode`: which part of the shape particles are born on.
public enum EmitterMode: String, CaseIterable, Sendable {
    /// Anywhere in the shape (Core Animation's default).
    case volume
    /// At points on the shape: as `volume` for the flat shapes, the outline of a line (its ends).
    case points
    /// On the outline: a rectangle's or cuboid face's edges, a circle's circumference, a
    /// sphere's surface, a line's two ends.
    case outline
    /// On the surface: a flat shape's area, a cuboid's faces, a sphere's surface.
    case surface
}

/// `CAEmitterLayer.renderMode`: the order particles are drawn in, and how.
public enum EmitterRenderMode: String, CaseIterable, Sendable {
    /// Cell by cell, in birth order (Lamina's "unordered" is deterministic).
    case unordered
    /// The oldest particles drawn first, the youngest over them.
    case oldestFirst
    /// The oldest drawn last, over the younger ones.
    case oldestLast
    /// By depth: the nearest (greatest z) over the rest.
    case backToFront
    /// Added to what lies below (`ONE, ONE`), in birth order.
    case additive
}

/// An emitter layer's own properties (`CAEmitterLayer`), kept together in `LayerProperties`.
/// The multipliers scale every cell's value of the same name.
public struct EmitterProperties: Hashable, Sendable {
    /// The centre of the shape, in the layer's bounds coordinates.
    public var emitterPosition: Point = .zero
    public var emitterZPosition: Double = 0
    public var emitterSize: Size = Size(width: 0, height: 0)
    public var emitterDepth: Double = 0
    public var emitterShape: EmitterShape = .point
    public var emitterMode: EmitterMode = .volume
    public var renderMode: EmitterRenderMode = .unordered
    public var birthRate: Double = 1
    public var lifetime: Double = 1
    public var velocity: Double = 1
    public var scale: Double = 1
    public var spin: Double = 1
    /// Seeds every particle's random values: the same seed, cells and time give the same particles.
    public var seed: Double = 0
    /// Particles keep their z (depth-sorted with `backToFront`) instead of being flattened.
    public var preservesDepth = false
    /// The particle kinds the layer sheds.
    public var emitterCells: [EmitterCell] = []

    public init() {}

    /// Whether `key` is one of these properties.
    public static func holds(_ key: PropertyKey) -> Bool { key.rawValue >= 80 && key.rawValue <= 94 }

    /// The value of `key` (one `holds` accepts).
    public subscript(key: PropertyKey) -> PropertyValue {
        switch key {
        case .emitterPosition: .point(emitterPosition)
        case .emitterZPosition: .number(emitterZPosition)
        case .emitterSize: .size(emitterSize)
        case .emitterDepth: .number(emitterDepth)
        case .emitterShape: .string(emitterShape.rawValue)
        case .emitterMode: .string(emitterMode.rawValue)
        case .renderMode: .string(renderMode.rawValue)
        case .birthRate: .number(birthRate)
        case .lifetime: .number(lifetime)
        case .velocity: .number(velocity)
        case .scale: .number(scale)
        case .spin: .number(spin)
        case .seed: .number(seed)
        case .preservesDepth: .bool(preservesDepth)
        default: .emitterCells(emitterCells)
        }
    }

    /// Stores `value` for `key` as given; false for the wrong type or an unknown name.
    mutating func store(_ key: PropertyKey, _ value: PropertyValue) -> Bool {
        switch (key, value) {
        case (.emitterPosition, .point(let p)): emitterPosition = p
        case (.emitterSize, .size(let s)): emitterSize = s
        case (.emitterShape, .string(let s)): guard let v = EmitterShape(rawValue: s) else { return false }; emitterShape = v
        case (.emitterMode, .string(let s)): guard let v = EmitterMode(rawValue: s) else { return false }; emitterMode = v
        case (.renderMode, .string(let s)): guard let v = EmitterRenderMode(rawValue: s) else { return false }; renderMode = v
        case (.preservesDepth, .bool(let b)): preservesDepth = b
        case (.emitterCells, .emitterCells(let c)): emitterCells = c
        case (.emitterZPosition, .number(let x)): emitterZPosition = x
        case (.emitterDepth, .number(let x)): emitterDepth = x
        case (.birthRate, .number(let x)): birthRate = x
        case (.lifetime, .number(let x)): lifetime = x
        case (.velocity, .number(let x)): velocity = x
        case (.scale, .number(let x)): scale = x
        case (.spin, .number(let x)): spin = x
        case (.seed, .number(let x)): seed = x
        default: return false
        }
        return true
    }

    /// Checks a value `LayerProperties.validated` has type-checked: sizes, the multipliers of
    /// rates and lifetimes not negative, the seed a whole number in 0…2³²−1, the cells valid.
    static func check(_ key: PropertyKey, _ value: PropertyValue) throws(PropertyError) {
        switch (key, value) {
        case (.emitterSize, .size(let s)) where s.width < 0 || s.height < 0:
            throw .outOfRange(key: key, reason: "size must not be negative (got \(s))")
        case (.emitterDepth, .number(let x)) where x < 0,
             (.birthRate, .number(let x)) where x < 0,
             (.lifetime, .number(let x)) where x < 0:
            throw .outOfRange(key: key, reason: "must not be negative (got \(x))")
        case (.seed, .number(let x)) where !(x >= 0 && x <= 4_294_967_295 && x.rounded() == x):
            throw .outOfRange(key: key, reason: "a whole number from 0 to 4294967295 (got \(x))")
        case (.emitterCells, .emitterCells(let cells)):
            try EmitterCell.validate(cells)
        default:
            break
        }
    }
}
