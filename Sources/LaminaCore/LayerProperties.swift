/// Why a value could not be stored in a layer property.
public enum PropertyError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The value's type is not the key's type.
    case typeMismatch(key: PropertyKey, expected: PropertyValueType, got: PropertyValueType)
    /// A number in the value is NaN or infinite.
    case notFinite(key: PropertyKey)
    /// The value is outside what the key allows (a negative size, say).
    case outOfRange(key: PropertyKey, reason: String)

    public var description: String {
        switch self {
        case let .typeMismatch(key, expected, got): "property '\(key)' takes a \(expected), not a \(got)"
        case let .notFinite(key): "property '\(key)' must be finite (got NaN or infinity)"
        case let .outOfRange(key, reason): "property '\(key)': \(reason)"
        }
    }
}

/// The values of one layer's properties, with Core Animation's defaults.
///
/// A plain struct with a field per key, so reading or writing one key costs the same whatever
/// the number of keys (no dictionary on the per-frame path).
public struct LayerProperties: Hashable, Sendable {
    public var bounds: Rect = .zero
    public var position: Point = .zero
    public var anchorPoint = Point(x: 0.5, y: 0.5)
    public var anchorPointZ: Double = 0
    public var zPosition: Double = 0
    public var transform: Transform3D = .identity
    public var sublayerTransform: Transform3D = .identity
    public var opacity: Double = 1
    public var isHidden = false
    /// Core Animation's default is a nil colour, which draws nothing: `.clear` here.
    public var backgroundColor: Color = .clear
    public var name = ""
    public var cornerRadius: Double = 0
    public var borderWidth: Double = 0
    public var borderColor: Color = .black
    public var masksToBounds = false
    public var shadowColor: Color = .black
    public var shadowOpacity: Double = 0
    public var shadowOffset = Size(width: 0, height: -3)
    public var shadowRadius: Double = 3
    public var isDoubleSided = true
    public var speed: Double = 1
    public var timeOffset: Double = 0
    public var beginTime: Double = 0
    /// The corners `cornerRadius` rounds; on the wire a number holding the mask's bits.
    public var maskedCorners: CornerMask = .all
    /// Whether a translucent layer with sublayers is composited as one group, so overlapping
    /// sublayers do not show through each other (true by default, as on current Apple systems).
    public var allowsGroupOpacity = true
    /// Whether the sublayers' coordinate system is flipped vertically: y grows upwards from
    /// the bottom of the bounds.
    public var isGeometryFlipped = false

    public init() {}

    /// The default properties of a new layer.
    public static let defaults = LayerProperties()

    /// The value of `key`.
    public subscript(key: PropertyKey) -> PropertyValue {
        switch key {
        case .bounds: .rect(bounds)
        case .position: .point(position)
        case .anchorPoint: .point(anchorPoint)
        case .anchorPointZ: .number(anchorPointZ)
        case .zPosition: .number(zPosition)
        case .transform: .transform(transform)
        case .sublayerTransform: .transform(sublayerTransform)
        case .opacity: .number(opacity)
        case .isHidden: .bool(isHidden)
        case .backgroundColor: .color(backgroundColor)
        case .name: .string(name)
        case .cornerRadius: .number(cornerRadius)
        case .borderWidth: .number(borderWidth)
        case .borderColor: .color(borderColor)
        case .masksToBounds: .bool(masksToBounds)
        case .shadowColor: .color(shadowColor)
        case .shadowOpacity: .number(shadowOpacity)
        case .shadowOffset: .size(shadowOffset)
        case .shadowRadius: .number(shadowRadius)
        case .isDoubleSided: .bool(isDoubleSided)
        case .speed: .number(speed)
        case .timeOffset: .number(timeOffset)
        case .beginTime: .number(beginTime)
        case .maskedCorners: .number(Double(maskedCorners.rawValue))
        case .allowsGroupOpacity: .bool(allowsGroupOpacity)
        case .isGeometryFlipped: .bool(isGeometryFlipped)
        }
    }

    /// Stores `value` for `key`, checking its type and that it is finite.
    /// Opacity is clamped to [0, 1] as Core Animation does; a negative bounds size, or a corner
    /// mask that is not a whole number in 0…15, is refused.
    public mutating func set(_ key: PropertyKey, _ value: PropertyValue) throws(PropertyError) {
        guard value.type == key.valueType else {
            throw .typeMismatch(key: key, expected: key.valueType, got: value.type)
        }
        guard value.isFinite else { throw .notFinite(key: key) }
        switch (key, value) {
        case (.bounds, .rect(let r)):
            guard r.size.width >= 0, r.size.height >= 0 else {
                throw .outOfRange(key: key, reason: "size must not be negative (got \(r.size))")
            }
            bounds = r
        case (.position, .point(let p)): position = p
        case (.anchorPoint, .point(let p)): anchorPoint = p
        case (.anchorPointZ, .number(let v)): anchorPointZ = v
        case (.zPosition, .number(let v)): zPosition = v
        case (.transform, .transform(let t)): transform = t
        case (.sublayerTransform, .transform(let t)): sublayerTransform = t
        case (.opacity, .number(let v)): opacity = Swift.min(Swift.max(v, 0), 1)
        case (.isHidden, .bool(let b)): isHidden = b
        case (.backgroundColor, .color(let c)): backgroundColor = c
        case (.name, .string(let s)): name = s
        case (.cornerRadius, .number(let v)): cornerRadius = Swift.max(v, 0)
        case (.borderWidth, .number(let v)): borderWidth = Swift.max(v, 0)
        case (.borderColor, .color(let c)): borderColor = c
        case (.masksToBounds, .bool(let b)): masksToBounds = b
        case (.shadowColor, .color(let c)): shadowColor = c
        case (.shadowOpacity, .number(let v)): shadowOpacity = Swift.min(Swift.max(v, 0), 1)
        case (.shadowOffset, .size(let s)): shadowOffset = s
        case (.shadowRadius, .number(let v)): shadowRadius = Swift.max(v, 0)
        case (.isDoubleSided, .bool(let b)): isDoubleSided = b
        case (.speed, .number(let v)): speed = v
        case (.timeOffset, .number(let v)): timeOffset = v
        case (.beginTime, .number(let v)): beginTime = v
        case (.maskedCorners, .number(let v)):
            guard v >= 0, v <= 15, v.rounded() == v else {
                throw .outOfRange(key: key, reason: "a corner mask is a whole number from 0 to 15 (got \(v))")
            }
            maskedCorners = CornerMask(rawValue: UInt8(v))
        case (.allowsGroupOpacity, .bool(let b)): allowsGroupOpacity = b
        case (.isGeometryFlipped, .bool(let b)): isGeometryFlipped = b
        default:
            // Unreachable: the type check above pairs every key with its one value type.
            throw .typeMismatch(key: key, expected: key.valueType, got: value.type)
        }
    }

    /// The keys whose values differ from `other`'s, in wire order.
    public func changedKeys(from other: LayerProperties) -> [PropertyKey] {
        PropertyKey.allCases.filter { self[$0] != other[$0] }
    }
}

// MARK: - Geometry derived from the properties

extension LayerProperties {
    /// The layer's frame in its superlayer's coordinates, derived as Core Animation does:
    /// origin = position − anchorPoint × bounds.size. Only meaningful for an identity transform.
    public var frame: Rect {
        get {
            Rect(x: position.x - anchorPoint.x * bounds.size.width,
                 y: position.y - anchorPoint.y * bounds.size.height,
                 width: bounds.size.width, height: bounds.size.height)
        }
        set {
            bounds.size = Size(width: Swift.max(newValue.size.width, 0), height: Swift.max(newValue.size.height, 0))
            position = Point(x: newValue.origin.x + anchorPoint.x * bounds.size.width,
                             y: newValue.origin.y + anchorPoint.y * bounds.size.height)
        }
    }

    /// The layer's local time for its superlayer's time `tp`: `(tp − beginTime) · speed + timeOffset`
    /// (the layer-time hierarchy; a speed of 0 pauses the subtree).
    @inlinable public func localTime(fromParent tp: Double) -> Double {
        (tp - beginTime) * speed + timeOffset
    }

    /// The anchor point in the layer's own (bounds) coordinates.
    @inlinable public var anchorInBounds: Point {
        Point(x: bounds.origin.x + anchorPoint.x * bounds.size.width,
              y: bounds.origin.y + anchorPoint.y * bounds.size.height)
    }

    /// Maps the layer's bounds coordinates into its superlayer's coordinates:
    /// move the anchor point (and anchorPointZ) to the origin, apply `transform`,
    /// then move to `position` and `zPosition`.
    public var transformToSuperlayer: Transform3D {
        let a = anchorInBounds
        let toAnchor = Transform3D.translation(x: -a.x, y: -a.y, z: -anchorPointZ)
        let place = Transform3D.translation(x: position.x, y: position.y, z: zPosition)
        if transform.isIdentity { return toAnchor.concatenating(place) }
        return toAnchor.concatenating(transform).concatenating(place)
    }

    /// `sublayerTransform` applied about the anchor point, in this layer's bounds coordinates:
    /// what maps a sublayer's superlayer-space point before `transformToSuperlayer`.
    public var sublayerTransformAboutAnchor: Transform3D {
        if sublayerTransform.isIdentity { return .identity }
        let a = anchorInBounds
        return Transform3D.translation(x: -a.x, y: -a.y, z: -anchorPointZ)
            .concatenating(sublayerTransform)
            .concatenating(.translation(x: a.x, y: a.y, z: anchorPointZ))
    }
}
