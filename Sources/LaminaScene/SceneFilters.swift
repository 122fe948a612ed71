import LaminaCore

/// `"filters": [{"name": "soft", "type": "gaussianBlur", "inputRadius": 8}, …]` in scene files,
/// and `"backgroundFilters"` in the same form:
/// each filter an object of its name, its type and its type's input (Core Image's names), with
/// did-you-mean for a misspelt type or input.
enum SceneFilterParser {
    /// `key` is `filters` or `backgroundFilters` (the same filters, named in errors).
    static func filters(_ json: JSONValue, path: String, key: PropertyKey = .filters) throws(SceneError) -> PropertyValue {
        guard case .array(let items) = json else {
            throw SceneError(path: path, message: "expected an array of filters ({\"name\": \"soft\", \"type\": \"gaussianBlur\", \"inputRadius\": 8}), not \(json.typeName)")
        }
        var out: [LayerFilter] = []
        for (i, item) in items.enumerated() {
            out.append(try filter(item, path: "\(path)[\(i)]"))
        }
        do throws(PropertyError) { try LayerFilter.validate(out, key: key) } catch {
            if case .outOfRange(_, let reason) = error { throw SceneError(path: path, message: reason) }
            throw SceneError(path: path, message: error.description)
        }
        return .filters(out)
    }

    static func filter(_ json: JSONValue, path p: String) throws(SceneError) -> LayerFilter {
        guard case .object(let fields) = json else { throw SceneError(path: p, message: "a filter is an object, not \(json.typeName)") }
        let types = FilterType.allCases.map(\.rawValue)
        guard case .string(let typeName)? = fields["type"] else {
            throw SceneError(path: p, message: "a filter needs a \"type\": one of \(types.joined(separator: ", "))")
        }
        guard let type = FilterType(rawValue: typeName) else {
            throw SceneError(path: "\(p).type", message: "unknown filter type '\(typeName)'\(Suggestion.phrase(for: typeName, among: types)) (known: \(types.joined(separator: ", ")))")
        }
        var name = ""
        if let n = fields["name"] {
            guard case .string(let s) = n else { throw SceneError(path: "\(p).name", message: "expected a string, not \(n.typeName)") }
            name = s
        }
        var filter = LayerFilter(name: name, type: type)
        let known = ["name", "type"] + (type.input.map { [$0.rawValue] } ?? [])
        for key in fields.keys.sorted() where !known.contains(key) {
            let takes = type.input.map { "takes \($0.rawValue)" } ?? "takes no inputs"
            throw SceneError(path: "\(p).\(key)", message: "unknown input '\(key)' for \(typeName), which \(takes)\(Suggestion.phrase(for: key, among: known))")
        }
        if let input = type.input, let v = fields[input.rawValue] {
            let q = "\(p).\(input.rawValue)"
            switch v {
            case .number(let d) where input != .inputMatrix:
                filter.values = [d]
            case .array(let items) where input == .inputMatrix:
                var numbers: [Double] = []
                for item in items {
                    guard case .number(let d) = item else { throw SceneError(path: q, message: "expected 20 numbers, not \(item.typeName)") }
                    numbers.append(d)
                }
                guard numbers.count == 20 else {
                    throw SceneError(path: q, message: "inputMatrix takes 20 numbers (R, G, B, A vectors and the bias, CIColorMatrix order), got \(numbers.count)")
                }
                filter.values = numbers
            default:
                throw SceneError(path: q, message: input == .inputMatrix ? "expected an array of 20 numbers, not \(v.typeName)" : "expected a number, not \(v.typeName)")
            }
        }
        return filter
    }
}
