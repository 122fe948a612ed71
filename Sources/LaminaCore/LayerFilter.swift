/// The kinds of filter a layer's `filters` may hold, named as the filter's `type` in scene files
/// and in docs/protocol.md. Each takes the inputs `inputs` lists, with Core Image's names.
public enum FilterType: String, CaseIterable, Hashable, Sendable {
    /// Blurs with a Gaussian of standard deviation `inputRadius / 3` (the blur reaches
    /// `inputRadius` points, 0 to `LayerFilter.maximumRadius`).
    case gaussianBlur
    /// Core Image's `CIColorMatrix`: `inputMatrix` is 20 numbers, the R, G, B and A vectors
    /// and then the bias vector, on straight (unpremultiplied) colour in [0, 1].
    case colorMatrix
    /// `CIColorControls` saturation: 0 grey, 1 unchanged (Rec. 709 luma weights).
    case saturate
    /// `CIColorControls` brightness: `inputAmount` added to red, green and blue (0 unchanged).
    case brightness
    /// `CIColorControls` contrast: red, green and blue scaled about 0.5 (1 unchanged).
    case contrast
    /// `CIColorInvert`: 1 − red, green and blue; alpha kept.
    case invert
    /// `CIHueAdjust`: the hue turned by `inputAngle` radians (the W3C hueRotate matrix).
    case hueRotate

    /// The number that stands for the type on the wire (docs/protocol.md, value type 15).
    public var wireTag: UInt8 {
        switch self {
        case .gaussianBlur: 1
        case .colorMatrix: 2
        case .saturate: 3
        case .brightness: 4
        case .contrast: 5
        case .invert: 6
        case .hueRotate: 7
        }
    }

    public init?(wireTag: UInt8) {
        guard let t = FilterType.allCases.first(where: { $0.wireTag == wireTag }) else { return nil }
        self = t
    }

    /// The one input the type takes (`inputRadius`, …), or nil for `invert`.
    public var input: FilterInput? {
        switch self {
        case .gaussianBlur: .inputRadius
        case .colorMatrix: .inputMatrix
        case .saturate, .brightness, .contrast: .inputAmount
        case .invert: nil
        case .hueRotate: .inputAngle
        }
    }

    /// The input's value in a filter made without one: Core Image's defaults.
    public var defaultValues: [Double] {
        switch self {
        case .gaussianBlur: [10]
        case .colorMatrix: ColorMatrix.identity.coefficients
        case .saturate, .contrast: [1]
        case .brightness, .hueRotate: [0]
        case .invert: []
        }
    }
}

/// An input of a filter, named as in Core Image.
public enum FilterInput: String, CaseIterable, Hashable, Sendable {
    case inputRadius, inputMatrix, inputAmount, inputAngle

    /// How many numbers the input holds: 20 for `inputMatrix`, 1 for the others.
    public var count: Int { self == .inputMatrix ? 20 : 1 }
}

/// One of a layer's `filters`: a named Core Image–style filter applied to the layer and its
/// sublayers drawn as a group, in the order of the list. Its input animates by key path,
/// `filters.NAME.inputRadius`, as in Core Animation on macOS.
public struct LayerFilter: Hashable, Sendable, CustomStringConvertible {
    /// Names the filter in key paths (`filters.NAME.inputKey`); no dots.
    public var name: String
    public var type: FilterType
    /// The input's numbers (`type.input`): one, 20 for `inputMatrix`, none for `invert`.
    public var values: [Double]

    /// A filter of `type` with Core Image's default input.
    public init(name: String, type: FilterType) {
        self.name = name
        self.type = type
        self.values = type.defaultValues
    }

    public init(name: String, type: FilterType, values: [Double]) {
        self.name = name
        self.type = type
        self.values = values
    }

    /// `gaussianBlur` reaching `radius` points.
    public static func gaussianBlur(_ name: String, radius: Double) -> LayerFilter {
        LayerFilter(name: name, type: .gaussianBlur, values: [radius])
    }

    /// `colorMatrix` with 20 coefficients in `CIColorMatrix` order (R, G, B, A vectors, bias).
    public static func colorMatrix(_ name: String, _ coefficients: [Double]) -> LayerFilter {
        LayerFilter(name: name, type: .colorMatrix, values: coefficients)
    }

    /// `saturate`, `brightness` or `contrast` with `amount`.
    public static func amount(_ name: String, _ type: FilterType, _ amount: Double) -> LayerFilter {
        LayerFilter(name: name, type: type, values: [amount])
    }

    /// `hueRotate` by `angle` radians.
    public static func hueRotate(_ name: String, angle: Double) -> LayerFilter {
        LayerFilter(name: name, type: .hueRotate, values: [angle])
    }

    /// The input as a property value: a number, or for `inputMatrix` a number list; nil when
    /// the type takes no such input.
    public subscript(input: FilterInput) -> PropertyValue? {
        guard type.input == input else { return nil }
        return input == .inputMatrix ? .numbers(values) : values.first.map { .number($0) }
    }

    /// Stores `value` as the input; false, storing nothing, when the type takes no such input or
    /// the value is not of its form.
    @discardableResult
    public mutating func store(_ input: FilterInput, _ value: PropertyValue) -> Bool {
        guard type.input == input else { return false }
        switch value {
        case .number(let x) where input != .inputMatrix: values = [x]
        case .numbers(let v) where input == .inputMatrix && v.count == 20: values = v
        default: return false
        }
        return true
    }

    /// The blur's reach in points: how far a pixel's colour spreads (0 for colour filters).
    public var reach: Double {
        guard type == .gaussianBlur, let r = values.first, r.isFinite else { return 0 }
        return Swift.min(Swift.max(r, 0), LayerFilter.maximumRadius)
    }

    public var description: String {
        "\(type.rawValue) '\(name)'" + (values.isEmpty ? "" : " \(values.count == 1 ? "\(values[0])" : "\(values)")")
    }
}

extension LayerFilter {
    /// The most filters one layer may hold.
    public static let maximumCount = 8
    /// The largest `gaussianBlur` `inputRadius`, in points.
    public static let maximumRadius: Double = 64
    /// The longest filter name, in bytes.
    public static let maximumNameLength = 64

    /// The filter named `name` in `filters` (the first, as Core Animation's key-value coding finds).
    public static func index(named name: String, in filters: [LayerFilter]) -> Int? {
        filters.firstIndex { $0.name == name }
    }

    /// Checks `filters` as laminad stores them: at most `maximumCount`, names without dots, the
    /// input's size right for the type, every number finite, a blur radius in 0…`maximumRadius`
    /// and amounts of saturate and contrast not negative. The error names the filter.
    /// `key` is the property the list is for (`filters` or `backgroundFilters`), named in errors.
    public static func validate(_ filters: [LayerFilter], key: PropertyKey = .filters) throws(PropertyError) {
        guard filters.count <= maximumCount else {
            throw .outOfRange(key: key, reason: "at most \(maximumCount) filters a layer (got \(filters.count))")
        }
        for (i, f) in filters.enumerated() {
            let here = key.name + "." + (f.name.isEmpty ? "[\(i)]" : f.name)
            if f.name.contains(".") || f.name.utf8.count > maximumNameLength {
                throw .outOfRange(key: key, reason: "\(here): a filter name has no dots and at most \(maximumNameLength) bytes")
            }
            let expected = f.type.input?.count ?? 0
            guard f.values.count == expected else {
                let what = f.type.input.map { "\($0.rawValue) of \(expected) number\(expected == 1 ? "" : "s")" } ?? "no inputs"
                throw .outOfRange(key: key, reason: "\(here): \(f.type.rawValue) takes \(what) (got \(f.values.count))")
            }
            guard f.values.allSatisfy(\.isFinite) else {
                throw .outOfRange(key: key, reason: "\(here).\(f.type.input?.rawValue ?? "input") must be finite (got NaN or infinity)")
            }
            if f.type == .gaussianBlur, let r = f.values.first, !(r >= 0 && r <= maximumRadius) {
                throw .outOfRange(key: key, reason: "\(here).inputRadius must be from 0 to \(Int(maximumRadius)) points (got \(r))")
            }
            if f.type == .saturate || f.type == .contrast, let a = f.values.first, a < 0 {
                throw .outOfRange(key: key, reason: "\(here).inputAmount must not be negative (got \(a))")
            }
        }
    }
}
