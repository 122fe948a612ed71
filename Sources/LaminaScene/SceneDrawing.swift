import LaminaCore

/// `"drawing": [{"op": "setFillColor", "color": "#FF0000"}, {"op": "fillRect", "rect": [x, y, w, h]}, …]`
/// in scene files: each command an object of its op (CGContext's method name) and its named
/// arguments (`DrawingOp.arguments`), with did-you-mean for a misspelt op or argument.
enum SceneDrawingParser {
    static func drawing(_ json: JSONValue, path: String) throws(SceneError) -> PropertyValue {
        if case .null = json { return .drawing(Drawing()) }
        guard case .array(let items) = json else {
            throw SceneError(path: path, message: "expected an array of drawing commands ({\"op\": \"fillRect\", \"rect\": [0, 0, 10, 10]}), not \(json.typeName)")
        }
        guard items.count <= Drawing.maximumCommands else {
            throw SceneError(path: path, message: "\(items.count) commands is more than the limit of \(Drawing.maximumCommands) a drawing may have")
        }
        var out: [DrawingCommand] = []
        for (i, item) in items.enumerated() {
            out.append(try command(item, path: "\(path)[\(i)]"))
        }
        let d = Drawing(out)
        do throws(DrawingError) { try d.validate() } catch { throw SceneError(path: path, message: error.message) }
        return .drawing(d)
    }

    static func command(_ json: JSONValue, path p: String) throws(SceneError) -> DrawingCommand {
        guard case .object(let fields) = json else { throw SceneError(path: p, message: "a drawing command is an object, not \(json.typeName)") }
        let ops = DrawingOp.allCases.map(\.name)
        guard case .string(let name)? = fields["op"] else {
            throw SceneError(path: p, message: "a drawing command needs an \"op\": one of \(ops.joined(separator: ", "))")
        }
        guard let op = DrawingOp.byName[name] else {
            throw SceneError(path: "\(p).op", message: "unknown drawing op '\(name)'\(Suggestion.phrase(for: name, among: ops)) (known: \(ops.joined(separator: ", ")))")
        }
        let known = ["op"] + op.arguments.map(\.name)
        for key in fields.keys.sorted() where !known.contains(key) {
            let takes = op.arguments.isEmpty ? "takes no arguments" : "takes " + op.arguments.map(\.name).joined(separator: ", ")
            throw SceneError(path: "\(p).\(key)", message: "unknown argument '\(key)' for \(name), which \(takes)\(Suggestion.phrase(for: key, among: known))")
        }
        var c = DrawingCommand(op)
        for arg in op.arguments {
            let q = "\(p).\(arg.name)"
            guard let v = fields[arg.name] else {
                if let d = arg.defaultNumbers { c.numbers += d; continue }
                if arg.kind == .string, arg.name == "font" { c.strings.append(""); continue }
                throw SceneError(path: p, message: "\(name) needs \"\(arg.name)\" (\(describe(arg.kind)))")
            }
            switch arg.kind {
            case .number, .image:
                guard case .number(let d) = v else { throw SceneError(path: q, message: "expected a number, not \(v.typeName)") }
                c.numbers.append(d)
            case .bool:
                guard case .bool(let b) = v else { throw SceneError(path: q, message: "expected true or false, not \(v.typeName)") }
                c.numbers.append(b ? 1 : 0)
            case .name(let names):
                guard case .string(let s) = v else { throw SceneError(path: q, message: "expected one of \(names.joined(separator: ", ")), not \(v.typeName)") }
                guard let i = names.firstIndex(of: s) else {
                    throw SceneError(path: q, message: "'\(s)' is not one of \(names.joined(separator: ", "))\(Suggestion.phrase(for: s, among: names))")
                }
                c.numbers.append(Double(i))
            case .point, .size, .rect, .affine:
                let n = arg.kind.numberCount!
                c.numbers += try SceneParser.numbers(v, count: n, path: q, what: describe(arg.kind))
            case .color:
                let col = try SceneParser.color(v, path: q)
                c.numbers += [col.red, col.green, col.blue, col.alpha]
            case .string:
                guard case .string(let s) = v else { throw SceneError(path: q, message: "expected a string, not \(v.typeName)") }
                c.strings.append(s)
            case .numbers:
                guard case .array(let items) = v else { throw SceneError(path: q, message: "expected an array of numbers, not \(v.typeName)") }
                guard items.count <= Drawing.maximumDashEntries else {
                    throw SceneError(path: q, message: "\(items.count) entries is more than the limit of \(Drawing.maximumDashEntries)")
                }
                c.numbers += try SceneParser.numbers(v, count: items.count, path: q, what: "")
            case .stops:
                guard case .array(let items) = v else {
                    throw SceneError(path: q, message: "expected an array of stops ({\"location\": 0, \"color\": \"#FF0000\"}), not \(v.typeName)")
                }
                guard items.count <= Drawing.maximumGradientStops else {
                    throw SceneError(path: q, message: "\(items.count) stops is more than the limit of \(Drawing.maximumGradientStops)")
                }
                for (i, item) in items.enumerated() {
                    let sp = "\(q)[\(i)]"
                    guard case .object(let s) = item, case .number(let l)? = s["location"], let cv = s["color"] else {
                        throw SceneError(path: sp, message: "a stop is {\"location\": 0…1, \"color\": colour}")
                    }
                    if let extra = s.keys.sorted().first(where: { $0 != "location" && $0 != "color" }) {
                        throw SceneError(path: "\(sp).\(extra)", message: "unknown stop field '\(extra)' (location, color)\(Suggestion.phrase(for: extra, among: ["location", "color"]))")
                    }
                    let col = try SceneParser.color(cv, path: "\(sp).color")
                    c.numbers += [l, col.red, col.green, col.blue, col.alpha]
                }
            }
        }
        return c
    }

    static func describe(_ kind: DrawingArgumentKind) -> String {
        switch kind {
        case .number: "a number"
        case .image: "an image number"
        case .bool: "true or false"
        case .name(let names): "one of " + names.joined(separator: ", ")
        case .point: "[x, y]"
        case .size: "[width, height]"
        case .rect: "[x, y, width, height]"
        case .affine: "[a, b, c, d, tx, ty]"
        case .color: "a colour"
        case .string: "a string"
        case .numbers: "an array of numbers"
        case .stops: "an array of stops"
        }
    }
}
