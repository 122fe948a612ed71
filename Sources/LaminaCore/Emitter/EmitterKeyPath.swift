/// The part of an animation key path that reaches into an emitter layer's cells:
/// `emitterCells.NAME.field`, or through sub-cells, `emitterCells.NAME.emitterCells.NAME2.field`.
/// Cells are found by name, as Core Animation's key-value coding finds them; a name no cell has
/// reads as the field's default and writes nothing.
public struct EmitterCellKeyPath: Hashable, Sendable, CustomStringConvertible {
    /// The names of the cells from the layer's list down.
    public let names: [String]
    /// The animated field.
    public let field: EmitterCellField

    public init(names: [String], field: EmitterCellField) {
        self.names = names
        self.field = field
    }

    /// Parses a whole key path that starts `emitterCells.`.
    public static func parse(_ text: String) throws(KeyPathError) -> EmitterCellKeyPath {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        var names: [String] = []
        var i = 0
        // emitterCells NAME (emitterCells NAME)* FIELD
        while i + 2 < parts.count, parts[i] == "emitterCells" {
            guard !parts[i + 1].isEmpty else { break }
            names.append(parts[i + 1])
            i += 2
        }
        let validFields = EmitterCellField.allCases.filter(\.isAnimatable).map(\.name)
        guard !names.isEmpty, i == parts.count - 1, names.count <= EmitterCell.maximumDepth else {
            throw .unknownComponent(keyPath: text, component: parts.dropFirst().joined(separator: "."),
                                    valid: ["NAME." + validFields.joined(separator: "|"), "NAME.emitterCells.NAME2.…"])
        }
        guard let field = EmitterCellField(name: parts[i]) else {
            throw .unknownComponent(keyPath: text, component: parts[i], valid: validFields)
        }
        guard field.isAnimatable else { throw .notAnimatable(keyPath: text, property: parts[i]) }
        return EmitterCellKeyPath(names: names, field: field)
    }

    public var description: String {
        names.map { "emitterCells." + $0 }.joined(separator: ".") + "." + field.name
    }

    /// The field's value in the cell the names reach in `cells`, or a default cell's.
    public func value(in cells: [EmitterCell]) -> PropertyValue {
        var list = cells
        for (depth, name) in names.enumerated() {
            guard let i = EmitterCell.index(named: name, in: list) else { break }
            if depth == names.count - 1 { return list[i][field] }
            list = list[i].emitterCells
        }
        return EmitterCell()[field]
    }

    /// Writes `value` into the field of the cell the names reach, as a presentation value: the
    /// wrong type or a non-finite number is ignored, and fields that must not be negative are
    /// raised to 0 (a spring may overshoot).
    public func apply(_ value: PropertyValue, to cells: inout [EmitterCell]) {
        guard value.isFinite, value.type == field.valueType else { return }
        var v = value
        if field.mustNotBeNegative, case .number(let x) = value { v = .number(Swift.max(x, 0)) }
        Self.write(v, field, names[...], into: &cells)
    }

    private static func write(_ v: PropertyValue, _ field: EmitterCellField, _ names: ArraySlice<String>,
                              into cells: inout [EmitterCell]) {
        guard let name = names.first, let i = EmitterCell.index(named: name, in: cells) else { return }
        if names.count == 1 {
            cells[i].store(field, v)
        } else {
            write(v, field, names.dropFirst(), into: &cells[i].emitterCells)
        }
    }
}
