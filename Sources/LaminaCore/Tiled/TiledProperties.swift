/// `CATiledLayer`'s properties (keys 78, 79, 95, 96; protocol 1.7): how a tiled layer's picture
/// is cut into tiles and levels of detail (`TileGrid`), and how new tiles fade in.
public struct TiledProperties: Hashable, Sendable {
    /// Each tile's size in image pixels: every tile a client supplies has exactly this size.
    public var tileSize = Size(width: 256, height: 256)
    /// The number of levels of detail below and including level 0, each half the resolution of
    /// the one before (clamped so the coarsest still has a pixel, as Core Animation does).
    public var levelsOfDetail = 1
    /// The number of magnified levels (2×, 4×, …) before level 0: levels −bias … −1.
    public var levelsOfDetailBias = 0
    /// Seconds a new tile takes to fade in (`CATiledLayer.fadeDuration`); 0 shows it at once.
    public var tileFadeDuration = 0.25

    /// The largest tile side, and the most levels either way: what bounds a tile's pixels and a
    /// level's scale (2⁻³⁰ … 2³⁰).
    public static let maximumTileSide = 4096
    public static let maximumLevels = 30

    public init() {}

    /// Whether `key` is one of these properties.
    public static func holds(_ key: PropertyKey) -> Bool {
        key == .tileSize || key == .levelsOfDetail || key == .levelsOfDetailBias || key == .tileFadeDuration
    }

    /// The value of `key` (one `holds` accepts).
    public subscript(key: PropertyKey) -> PropertyValue {
        switch key {
        case .tileSize: .size(tileSize)
        case .levelsOfDetail: .number(Double(levelsOfDetail))
        case .levelsOfDetailBias: .number(Double(levelsOfDetailBias))
        default: .number(tileFadeDuration)
        }
    }

    /// Stores `value` for `key` as given (whole numbers for the level counts, clamped into
    /// range so a client's unchecked model cannot trap); false for the wrong type.
    mutating func store(_ key: PropertyKey, _ value: PropertyValue) -> Bool {
        func count(_ x: Double) -> Int { x.isFinite ? Int(Swift.min(Swift.max(x.rounded(), 0), Double(Self.maximumLevels))) : 0 }
        switch (key, value) {
        case (.tileSize, .size(let s)): tileSize = s
        case (.levelsOfDetail, .number(let x)): levelsOfDetail = count(x)
        case (.levelsOfDetailBias, .number(let x)): levelsOfDetailBias = count(x)
        case (.tileFadeDuration, .number(let x)): tileFadeDuration = x
        default: return false
        }
        return true
    }

    /// Checks a value `LayerProperties.validated` has type-checked: a tile side a whole number
    /// from 1 to 4096 pixels, level counts whole numbers (1…30 levels, 0…30 magnified), a fade
    /// not negative.
    static func check(_ key: PropertyKey, _ value: PropertyValue) throws(PropertyError) {
        switch (key, value) {
        case (.tileSize, .size(let s)):
            let m = Double(maximumTileSide)
            guard s.width >= 1, s.height >= 1, s.width <= m, s.height <= m,
                  s.width.rounded() == s.width, s.height.rounded() == s.height else {
                throw .outOfRange(key: key, reason: "a tile is a whole number of pixels from 1 to \(maximumTileSide) on each side (got \(s))")
            }
        case (.levelsOfDetail, .number(let x)) where !(x >= 1 && x <= Double(maximumLevels) && x.rounded() == x):
            throw .outOfRange(key: key, reason: "a whole number from 1 to \(maximumLevels) (got \(x))")
        case (.levelsOfDetailBias, .number(let x)) where !(x >= 0 && x <= Double(maximumLevels) && x.rounded() == x):
            throw .outOfRange(key: key, reason: "a whole number from 0 to \(maximumLevels) (got \(x))")
        case (.tileFadeDuration, .number(let x)) where x < 0:
            throw .outOfRange(key: key, reason: "must not be negative (got \(x))")
        default:
            break
        }
    }
}
