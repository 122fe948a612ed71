/// A layer property that a client can set, named as in Core Animation.
///
/// The raw value is the property's number on the wire (docs/protocol.md); numbers are never
/// reused. Each key has one value type, so a value on the wire needs no type tag.
public enum PropertyKey: UInt16, CaseIterable, Sendable, CustomStringConvertible {
    case bounds = 1
    case position = 2
    case anchorPoint = 3
    case anchorPointZ = 4
    case zPosition = 5
    case transform = 6
    case sublayerTransform = 7
    case opacity = 8
    case isHidden = 9
    case backgroundColor = 10
    case name = 11
    case cornerRadius = 12
    case borderWidth = 13
    case borderColor = 14
    case masksToBounds = 15
    case shadowColor = 16
    case shadowOpacity = 17
    case shadowOffset = 18
    case shadowRadius = 19
    case isDoubleSided = 20
    case speed = 21
    case timeOffset = 22
    case beginTime = 23
    case maskedCorners = 24
    case allowsGroupOpacity = 25
    case isGeometryFlipped = 26

    /// The Core Animation name of the property, as used in key paths and scene files.
    public var name: String {
        switch self {
        case .bounds: "bounds"
        case .position: "position"
        case .anchorPoint: "anchorPoint"
        case .anchorPointZ: "anchorPointZ"
        case .zPosition: "zPosition"
        case .transform: "transform"
        case .sublayerTransform: "sublayerTransform"
        case .opacity: "opacity"
        case .isHidden: "hidden"
        case .backgroundColor: "backgroundColor"
        case .name: "name"
        case .cornerRadius: "cornerRadius"
        case .borderWidth: "borderWidth"
        case .borderColor: "borderColor"
        case .masksToBounds: "masksToBounds"
        case .shadowColor: "shadowColor"
        case .shadowOpacity: "shadowOpacity"
        case .shadowOffset: "shadowOffset"
        case .shadowRadius: "shadowRadius"
        case .isDoubleSided: "doubleSided"
        case .speed: "speed"
        case .timeOffset: "timeOffset"
        case .beginTime: "beginTime"
        case .maskedCorners: "maskedCorners"
        case .allowsGroupOpacity: "allowsGroupOpacity"
        case .isGeometryFlipped: "geometryFlipped"
        }
    }

    public var description: String { name }

    private static let byName: [String: PropertyKey] = {
        var d: [String: PropertyKey] = [:]
        for k in PropertyKey.allCases { d[k.name] = k }
        d["isHidden"] = .isHidden
        d["isDoubleSided"] = .isDoubleSided
        d["isGeometryFlipped"] = .isGeometryFlipped
        return d
    }()

    /// Looks a key up by its Core Animation name (`"opacity"`, `"hidden"`/`"isHidden"`, …).
    public init?(name: String) {
        guard let k = PropertyKey.byName[name] else { return nil }
        self = k
    }

    /// The type every value of this key has.
    public var valueType: PropertyValueType {
        switch self {
        case .bounds: .rect
        case .position, .anchorPoint: .point
        case .shadowOffset: .size
        case .anchorPointZ, .zPosition, .opacity, .cornerRadius, .borderWidth, .shadowOpacity, .shadowRadius,
             .speed, .timeOffset, .beginTime, .maskedCorners: .number
        case .transform, .sublayerTransform: .transform
        case .isHidden, .masksToBounds, .isDoubleSided, .allowsGroupOpacity, .isGeometryFlipped: .bool
        case .backgroundColor, .borderColor, .shadowColor: .color
        case .name: .string
        }
    }

    /// Whether a change to this key starts an implicit animation (Core Animation's "animatable").
    public var isAnimatable: Bool {
        switch self {
        case .name, .speed, .timeOffset, .beginTime, .maskedCorners, .allowsGroupOpacity, .isGeometryFlipped: false
        default: true
        }
    }
}

/// The type of a property's value.
public enum PropertyValueType: UInt8, Sendable, CustomStringConvertible {
    case number = 1, point, size, rect, color, transform, bool, string

    public var description: String {
        switch self {
        case .number: "number"
        case .point: "point"
        case .size: "size"
        case .rect: "rect"
        case .color: "color"
        case .transform: "transform"
        case .bool: "bool"
        case .string: "string"
        }
    }
}

/// A property value of any of the types layers hold.
public enum PropertyValue: Hashable, Sendable, CustomStringConvertible {
    case number(Double)
    case point(Point)
    case size(Size)
    case rect(Rect)
    case color(Color)
    case transform(Transform3D)
    case bool(Bool)
    case string(String)

    public var type: PropertyValueType {
        switch self {
        case .number: .number
        case .point: .point
        case .size: .size
        case .rect: .rect
        case .color: .color
        case .transform: .transform
        case .bool: .bool
        case .string: .string
        }
    }

    /// True when every number in the value is finite (strings and bools always are).
    public var isFinite: Bool {
        switch self {
        case .number(let v): v.isFinite
        case .point(let p): p.x.isFinite && p.y.isFinite
        case .size(let s): s.width.isFinite && s.height.isFinite
        case .rect(let r): r.origin.x.isFinite && r.origin.y.isFinite && r.size.width.isFinite && r.size.height.isFinite
        case .color(let c): c.red.isFinite && c.green.isFinite && c.blue.isFinite && c.alpha.isFinite
        case .transform(let t): t.isFinite
        case .bool, .string: true
        }
    }

    public var description: String {
        switch self {
        case .number(let v): "\(v)"
        case .point(let p): p.description
        case .size(let s): s.description
        case .rect(let r): r.description
        case .color(let c): c.description
        case .transform(let t): t.description
        case .bool(let b): "\(b)"
        case .string(let s): "\"\(s)\""
        }
    }
}

/// Which corners `cornerRadius` rounds (Core Animation's `CACornerMask`). Lamina's y axis points
/// down, so the `minY` corners are the top ones.
public struct CornerMask: OptionSet, Hashable, Sendable {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// `kCALayerMinXMinYCorner`: top left.
    public static let minXMinY = CornerMask(rawValue: 1)
    /// `kCALayerMaxXMinYCorner`: top right.
    public static let maxXMinY = CornerMask(rawValue: 2)
    /// `kCALayerMinXMaxYCorner`: bottom left.
    public static let minXMaxY = CornerMask(rawValue: 4)
    /// `kCALayerMaxXMaxYCorner`: bottom right.
    public static let maxXMaxY = CornerMask(rawValue: 8)
    /// Every corner: the default.
    public static let all: CornerMask = [.minXMinY, .maxXMinY, .minXMaxY, .maxXMaxY]
}
