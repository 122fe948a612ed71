/// The part of an animation key path that reaches into a layer's filters:
/// `filters.NAME.inputKey` (`filters.soft.inputRadius`), or its background filters
/// (`backgroundFilters.frost.inputRadius`), as in Core Animation on macOS. The
/// filter is found by name; a name no filter has reads as the input's default and writes nothing.
public struct FilterKeyPath: Hashable, Sendable, CustomStringConvertible {
    /// The filter list: `filters` or `backgroundFilters`.
    public let property: PropertyKey
    /// The filter's name.
    public let name: String
    /// The animated input.
    public let input: FilterInput

    public init(name: String, input: FilterInput, property: PropertyKey = .filters) {
        self.property = property == .backgroundFilters ? .backgroundFilters : .filters
        self.name = name
        self.input = input
    }

    /// Parses a whole key path that starts `filters.` or `backgroundFilters.`.
    public static func parse(_ text: String) throws(KeyPathError) -> FilterKeyPath {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        let inputs = FilterInput.allCases.map(\.rawValue)
        guard parts.count == 3, !parts[1].isEmpty else {
            throw .unknownComponent(keyPath: text, component: parts.dropFirst().joined(separator: "."),
                                    valid: ["NAME." + inputs.joined(separator: "|")])
        }
        guard let input = FilterInput(rawValue: parts[2]) else {
            throw .unknownComponent(keyPath: text, component: parts[2], valid: inputs)
        }
        return FilterKeyPath(name: parts[1], input: input, property: parts[0] == "backgroundFilters" ? .backgroundFilters : .filters)
    }

    public var description: String { "\(property.name).\(name).\(input.rawValue)" }

    /// The type of the values an animation on the input takes.
    public var valueType: PropertyValueType { input == .inputMatrix ? .numbers : .number }

    /// The input's value in the filter named `name`, or the default of the first filter type
    /// taking the input.
    public func value(in filters: [LayerFilter]) -> PropertyValue {
        if let i = LayerFilter.index(named: name, in: filters), let v = filters[i][input] { return v }
        let type = FilterType.allCases.first { $0.input == input } ?? .saturate
        return LayerFilter(name: name, type: type)[input] ?? .number(0)
    }

    /// Writes `value` into the input of the filter named `name`, as a presentation value: the
    /// wrong type or a non-finite number is ignored, and a blur radius is kept in 0…64 (a spring
    /// may overshoot).
    public func apply(_ value: PropertyValue, to filters: inout [LayerFilter]) {
        guard value.isFinite, let i = LayerFilter.index(named: name, in: filters) else { return }
        var v = value
        if filters[i].type == .gaussianBlur, case .number(let r) = value {
            v = .number(Swift.min(Swift.max(r, 0), LayerFilter.maximumRadius))
        }
        filters[i].store(input, v)
    }
}
