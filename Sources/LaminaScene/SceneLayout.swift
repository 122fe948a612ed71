import LaminaCore

/// The layout keys of scene files: `autoresizingMask` (names of `AutoresizingMask` bits) and
/// `constraints` (`LayoutConstraint`s), with did-you-mean for misspelt names, and the check that
/// a layer's siblings' constraints name siblings that exist and do not go round in a ring.
enum SceneLayoutParser {
    /// `["minXMargin", "widthSizable", …]`, or the mask's number.
    static func autoresizingMask(_ json: JSONValue, path: String) throws(SceneError) -> PropertyValue {
        let known = AutoresizingMask.names.map(\.name)
        switch json {
        case .number(let n):
            return .number(n)
        case .array(let items):
            var mask = AutoresizingMask()
            for (i, item) in items.enumerated() {
                guard case .string(let s) = item else {
                    throw SceneError(path: "\(path)[\(i)]", message: "expected the name of a mask bit (\(known.joined(separator: ", "))), not \(item.typeName)")
                }
                guard let bit = AutoresizingMask(names: [s]) else {
                    throw SceneError(path: "\(path)[\(i)]", message: "'\(s)' is not one of \(known.joined(separator: ", "))\(Suggestion.phrase(for: s, among: known))")
                }
                mask.formUnion(bit)
            }
            return .number(Double(mask.rawValue))
        default:
            throw SceneError(path: path, message: "expected an array of mask bit names (\(known.joined(separator: ", "))), not \(json.typeName)")
        }
    }

    static let constraintFields = ["attribute", "relativeTo", "sourceAttribute", "scale", "offset"]

    /// `[{"attribute": "midX", "relativeTo": "superlayer", "sourceAttribute": "midX", "scale": 1, "offset": 0}, …]`:
    /// `relativeTo` defaults to `"superlayer"`, `sourceAttribute` to `attribute`, `scale` to 1, `offset` to 0.
    static func constraints(_ json: JSONValue, path: String) throws(SceneError) -> PropertyValue {
        guard case .array(let items) = json else {
            throw SceneError(path: path, message: "expected an array of constraints ({\"attribute\": \"midX\", \"relativeTo\": \"superlayer\", …}), not \(json.typeName)")
        }
        var out: [LayoutConstraint] = []
        for (i, item) in items.enumerated() {
            let p = "\(path)[\(i)]"
            guard case .object(let fields) = item else { throw SceneError(path: p, message: "a constraint is an object, not \(item.typeName)") }
            for key in fields.keys.sorted() where !constraintFields.contains(key) {
                throw SceneError(path: "\(p).\(key)", message: "unknown constraint field '\(key)'\(Suggestion.phrase(for: key, among: constraintFields)) (known: \(constraintFields.joined(separator: ", ")))")
            }
            guard let a = fields["attribute"] else { throw SceneError(path: p, message: "a constraint needs an \"attribute\"") }
            let attribute = try self.attribute(a, path: "\(p).attribute")
            let source = try fields["sourceAttribute"].map { v throws(SceneError) in try self.attribute(v, path: "\(p).sourceAttribute") } ?? attribute
            var relativeTo = LayoutConstraint.superlayer
            if let r = fields["relativeTo"] {
                guard case .string(let s) = r, !s.isEmpty else {
                    throw SceneError(path: "\(p).relativeTo", message: "expected \"superlayer\" or a sibling's name")
                }
                relativeTo = s
            }
            func number(_ key: String, _ fallback: Double) throws(SceneError) -> Double {
                guard let v = fields[key] else { return fallback }
                guard case .number(let d) = v, d.isFinite else { throw SceneError(path: "\(p).\(key)", message: "expected a number, not \(v.typeName)") }
                return d
            }
            out.append(LayoutConstraint(attribute: attribute, relativeTo: relativeTo, sourceAttribute: source,
                                        scale: try number("scale", 1), offset: try number("offset", 0)))
        }
        return .constraints(out)
    }

    static func attribute(_ json: JSONValue, path: String) throws(SceneError) -> ConstraintAttribute {
        let known = ConstraintAttribute.allCases.map(\.name)
        guard case .string(let s) = json else {
            throw SceneError(path: path, message: "expected one of \(known.joined(separator: ", ")), not \(json.typeName)")
        }
        guard let a = ConstraintAttribute(name: s) else {
            throw SceneError(path: path, message: "'\(s)' is not one of \(known.joined(separator: ", "))\(Suggestion.phrase(for: s, among: known))")
        }
        return a
    }

    /// Refuses sublayers whose constraints name a layer that is not a sibling, or go round in
    /// a ring, as laminad would refuse the commit, but with the file's path of the constraint.
    static func checkSiblings(_ sublayers: [SceneLayer], path: String) throws(SceneError) {
        var items: [ConstraintLayout.Item] = []
        for s in sublayers {
            var constraints: [LayoutConstraint] = []
            if case .constraints(let c)? = s.properties[.constraints] { constraints = c }
            items.append(ConstraintLayout.Item(name: s.name ?? "", frame: .zero, constraints: constraints))
        }
        guard items.contains(where: { !$0.constraints.isEmpty }) else { return }
        do throws(ConstraintLayout.Failure) {
            _ = try ConstraintLayout().solve(items, superlayerBounds: .zero)
        } catch {
            let names = items.map(\.name).filter { !$0.isEmpty }
            switch error {
            case let .unknownSource(n, c, name):
                throw SceneError(path: "\(path)[\(n)].constraints[\(c)].relativeTo",
                                 message: "'\(name)' is neither \"superlayer\" nor the name of a sibling\(Suggestion.phrase(for: name, among: names + [LayoutConstraint.superlayer]))")
            case let .cycle(n, c, ring):
                let names = (ring + [ring[0]]).map { items[$0].name }.joined(separator: " → ")
                throw SceneError(path: "\(path)[\(n)].constraints[\(c)].relativeTo",
                                 message: "the constraints go round in a cycle (\(names)); a layer's frame cannot depend on itself")
            }
        }
    }
}
