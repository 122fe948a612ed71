import LaminaCore

/// `"attributedString": [{"text": "Sale ", "color": "#FF0000", "weight": "bold"}, {"text": "today"}]`
/// in scene files: each run an object of its text and attributes, with did-you-mean for a
/// misspelt key or weight name.
enum SceneTextRunParser {
    static let keys = ["text", "font", "fontSize", "weight", "italic", "color", "backgroundColor", "underline",
                       "strikethrough", "kerning", "baselineOffset"]

    static func runs(_ json: JSONValue, path: String) throws(SceneError) -> PropertyValue {
        guard case .array(let items) = json else {
            throw SceneError(path: path, message: "expected an array of runs ({\"text\": \"Sale \", \"color\": \"#FF0000\"}), not \(json.typeName)")
        }
        guard items.count <= TextRun.maximumRuns else {
            throw SceneError(path: path, message: "at most \(TextRun.maximumRuns) runs (got \(items.count))")
        }
        var out: [TextRun] = []
        for (i, item) in items.enumerated() { out.append(try run(item, path: "\(path)[\(i)]")) }
        do throws(PropertyError) { try TextRun.validate(out) } catch {
            if case .outOfRange(_, let reason) = error { throw SceneError(path: path, message: reason) }
            throw SceneError(path: path, message: error.description)
        }
        return .attributedString(out)
    }

    static func run(_ json: JSONValue, path p: String) throws(SceneError) -> TextRun {
        if case .string(let s) = json { return TextRun(s) }
        guard case .object(let f) = json else { throw SceneError(path: p, message: "a run is an object ({\"text\": …}) or a string, not \(json.typeName)") }
        for k in f.keys.sorted() where !keys.contains(k) {
            throw SceneError(path: "\(p).\(k)", message: "unknown run attribute '\(k)'\(Suggestion.phrase(for: k, among: keys)) (known: \(keys.joined(separator: ", ")))")
        }
        guard case .string(let text)? = f["text"] else { throw SceneError(path: p, message: "a run needs a \"text\" string") }
        var r = TextRun(text)
        func string(_ k: String) throws(SceneError) -> String? {
            guard let v = f[k] else { return nil }
            guard case .string(let s) = v else { throw SceneError(path: "\(p).\(k)", message: "expected a string, not \(v.typeName)") }
            return s
        }
        func number(_ k: String) throws(SceneError) -> Double? {
            guard let v = f[k] else { return nil }
            guard case .number(let d) = v else { throw SceneError(path: "\(p).\(k)", message: "expected a number, not \(v.typeName)") }
            return d
        }
        func bool(_ k: String) throws(SceneError) -> Bool {
            guard let v = f[k] else { return false }
            guard case .bool(let b) = v else { throw SceneError(path: "\(p).\(k)", message: "expected true or false, not \(v.typeName)") }
            return b
        }
        r.font = try string("font") ?? ""
        r.fontSize = try number("fontSize") ?? 0
        if let w = f["weight"] {
            switch w {
            case .number(let d): r.weight = d
            case .string(let s):
                let names = TextRun.weightNames.keys.sorted()
                guard let d = TextRun.weightNames[s.lowercased()] else {
                    throw SceneError(path: "\(p).weight", message: "unknown weight '\(s)'\(Suggestion.phrase(for: s, among: names)) (a number 1–1000 or one of \(names.joined(separator: ", ")))")
                }
                r.weight = d
            default: throw SceneError(path: "\(p).weight", message: "expected a weight name or number, not \(w.typeName)")
            }
        }
        r.italic = try bool("italic")
        r.underline = try bool("underline")
        r.strikethrough = try bool("strikethrough")
        if let c = f["color"] { r.color = try SceneParser.color(c, path: "\(p).color") }
        if let c = f["backgroundColor"] { r.backgroundColor = try SceneParser.color(c, path: "\(p).backgroundColor") }
        r.kerning = try number("kerning") ?? 0
        r.baselineOffset = try number("baselineOffset") ?? 0
        return r
    }
}
