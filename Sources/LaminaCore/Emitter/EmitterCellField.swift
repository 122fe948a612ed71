/// A field of an `EmitterCell`, named as in Core Animation. The raw value is the field's
/// number on the wire (docs/protocol.md, "Emitter cells"); numbers are never reused.
public enum EmitterCellField: UInt16, CaseIterable, Sendable, CustomStringConvertible {
    case name = 1, isEnabled, birthRate, lifetime, lifetimeRange, velocity, velocityRange
    case xAcceleration, yAcceleration, zAcceleration
    case emissionLatitude, emissionLongitude, emissionRange
    case spin, spinRange, scale, scaleRange, scaleSpeed
    case color, redRange, greenRange, blueRange, alphaRange, redSpeed, greenSpeed, blueSpeed, alphaSpeed
    case contents, contentsRect, contentsScale, minificationFilter, magnificationFilter
    case beginTime, duration, speed, timeOffset, repeatCount, repeatDuration, autoreverses, fillMode

    /// The Core Animation name, as in key paths and scene files.
    public var name: String { Self.names[Int(rawValue) - 1] }

    private static let names = [
        "name", "enabled", "birthRate", "lifetime", "lifetimeRange", "velocity", "velocityRange",
        "xAcceleration", "yAcceleration", "zAcceleration", "emissionLatitude", "emissionLongitude", "emissionRange",
        "spin", "spinRange", "scale", "scaleRange", "scaleSpeed",
        "color", "redRange", "greenRange", "blueRange", "alphaRange", "redSpeed", "greenSpeed", "blueSpeed", "alphaSpeed",
        "contents", "contentsRect", "contentsScale", "minificationFilter", "magnificationFilter",
        "beginTime", "duration", "speed", "timeOffset", "repeatCount", "repeatDuration", "autoreverses", "fillMode",
    ]

    public var description: String { name }

    /// Looks a field up by name (`"birthRate"`; `"enabled"` or `"isEnabled"`).
    public init?(name: String) {
        if name == "isEnabled" { self = .isEnabled; return }
        guard let i = Self.names.firstIndex(of: name) else { return nil }
        self.init(rawValue: UInt16(i + 1))
    }

    /// Every name `init(name:)` accepts.
    public static var allNames: [String] { names + ["isEnabled"] }

    /// The type of the field's values.
    public var valueType: PropertyValueType {
        switch self {
        case .name, .minificationFilter, .magnificationFilter, .fillMode: .string
        case .isEnabled, .autoreverses: .bool
        case .color: .color
        case .contents: .image
        case .contentsRect: .rect
        default: .number
        }
    }

    /// For fields whose value is one of a set of names, those names (the default first).
    public var allowedNames: [String]? {
        switch self {
        case .minificationFilter, .magnificationFilter: ContentsFilter.allCases.map(\.rawValue)
        case .fillMode: FillMode.allCases.map(\.rawValue)
        default: nil
        }
    }

    /// Whether an animation can change the field (`emitterCells.NAME.field`): the numbers and
    /// the colour and contents rectangle; names, flags, the image and the timing cannot.
    public var isAnimatable: Bool {
        switch valueType {
        case .number: self != .beginTime && self != .duration && self != .speed && self != .timeOffset
            && self != .repeatCount && self != .repeatDuration
        case .color, .rect: true
        default: false
        }
    }

    /// Fields a negative value makes meaningless: refused.
    public var mustNotBeNegative: Bool {
        switch self {
        case .birthRate, .lifetime, .lifetimeRange, .velocityRange, .spinRange, .scaleRange, .emissionRange,
             .redRange, .greenRange, .blueRange, .alphaRange, .duration, .repeatCount, .repeatDuration: true
        default: false
        }
    }
}

extension EmitterCell {
    /// The value of `field`.
    public subscript(field: EmitterCellField) -> PropertyValue {
        switch field {
        case .name: .string(name)
        case .isEnabled: .bool(isEnabled)
        case .birthRate: .number(birthRate)
        case .lifetime: .number(lifetime)
        case .lifetimeRange: .number(lifetimeRange)
        case .velocity: .number(velocity)
        case .velocityRange: .number(velocityRange)
        case .xAcceleration: .number(xAcceleration)
        case .yAcceleration: .number(yAcceleration)
        case .zAcceleration: .number(zAcceleration)
        case .emissionLatitude: .number(emissionLatitude)
        case .emissionLongitude: .number(emissionLongitude)
        case .emissionRange: .number(emissionRange)
        case .spin: .number(spin)
        case .spinRange: .number(spinRange)
        case .scale: .number(scale)
        case .scaleRange: .number(scaleRange)
        case .scaleSpeed: .number(scaleSpeed)
        case .color: .color(color)
        case .redRange: .number(redRange)
        case .greenRange: .number(greenRange)
        case .blueRange: .number(blueRange)
        case .alphaRange: .number(alphaRange)
        case .redSpeed: .number(redSpeed)
        case .greenSpeed: .number(greenSpeed)
        case .blueSpeed: .number(blueSpeed)
        case .alphaSpeed: .number(alphaSpeed)
        case .contents: .image(contents)
        case .contentsRect: .rect(contentsRect)
        case .contentsScale: .number(contentsScale)
        case .minificationFilter: .string(minificationFilter.rawValue)
        case .magnificationFilter: .string(magnificationFilter.rawValue)
        case .beginTime: .number(beginTime)
        case .duration: .number(duration)
        case .speed: .number(speed)
        case .timeOffset: .number(timeOffset)
        case .repeatCount: .number(repeatCount)
        case .repeatDuration: .number(repeatDuration)
        case .autoreverses: .bool(autoreverses)
        case .fillMode: .string(fillMode.rawValue)
        }
    }

    /// Stores `value` in `field` as given; false, storing nothing, for a value of the wrong type
    /// or a name the field does not know.
    @discardableResult
    public mutating func store(_ field: EmitterCellField, _ value: PropertyValue) -> Bool {
        switch (field, value) {
        case (.name, .string(let s)): name = s
        case (.isEnabled, .bool(let b)): isEnabled = b
        case (.autoreverses, .bool(let b)): autoreverses = b
        case (.color, .color(let c)): color = c
        case (.contents, .image(let n)): contents = n
        case (.contentsRect, .rect(let r)): contentsRect = r
        case (.minificationFilter, .string(let s)):
            guard let f = ContentsFilter(rawValue: s) else { return false }
            minificationFilter = f
        case (.magnificationFilter, .string(let s)):
            guard let f = ContentsFilter(rawValue: s) else { return false }
            magnificationFilter = f
        case (.fillMode, .string(let s)):
            guard let f = FillMode(rawValue: s) else { return false }
            fillMode = f
        case (_, .number(let x)) where field.valueType == .number:
            storeNumber(field, x)
        default:
            return false
        }
        return true
    }

    private mutating func storeNumber(_ field: EmitterCellField, _ x: Double) {
        switch field {
        case .birthRate: birthRate = x
        case .lifetime: lifetime = x
        case .lifetimeRange: lifetimeRange = x
        case .velocity: velocity = x
        case .velocityRange: velocityRange = x
        case .xAcceleration: xAcceleration = x
        case .yAcceleration: yAcceleration = x
        case .zAcceleration: zAcceleration = x
        case .emissionLatitude: emissionLatitude = x
        case .emissionLongitude: emissionLongitude = x
        case .emissionRange: emissionRange = x
        case .spin: spin = x
        case .spinRange: spinRange = x
        case .scale: scale = x
        case .scaleRange: scaleRange = x
        case .scaleSpeed: scaleSpeed = x
        case .redRange: redRange = x
        case .greenRange: greenRange = x
        case .blueRange: blueRange = x
        case .alphaRange: alphaRange = x
        case .redSpeed: redSpeed = x
        case .greenSpeed: greenSpeed = x
        case .blueSpeed: blueSpeed = x
        case .alphaSpeed: alphaSpeed = x
        case .contentsScale: contentsScale = x
        case .beginTime: beginTime = x
        case .duration: duration = x
        case .speed: speed = x
        case .timeOffset: timeOffset = x
        case .repeatCount: repeatCount = x
        case .repeatDuration: repeatDuration = x
        default: break
        }
    }

    /// The fields whose values differ from a default cell's, in wire order (what the wire and
    /// scene dumps carry).
    public var changedFields: [EmitterCellField] {
        let d = EmitterCell()
        return EmitterCellField.allCases.filter { self[$0] != d[$0] }
    }
}
