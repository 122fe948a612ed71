
/// Writes compact JSON text: the `tree` reply (docs/protocol.md) and `laminactl eval`'s output.
/// Small on purpose: Lamina writes JSON in these places but parses it only in scene files.
public struct JSONWriter: Sendable {
    public private(set) var text = ""
    private var needsComma = false

    /// Write colours as `[r, g, b, a]` numbers instead of `"#RRGGBBAA"`, which rounds to 8 bits.
    public var exactColors: Bool

    public init(exactColors: Bool = false) { self.exactColors = exactColors }

    private mutating func separator() {
        if needsComma { text += "," }
        needsComma = true
    }

    public mutating func beginObject() { open("{") }
    public mutating func endObject() { close("}") }
    public mutating func beginArray() { open("[") }
    public mutating func endArray() { close("]") }

    private mutating func open(_ bracket: String) {
        separator()
        text += bracket
        needsComma = false
    }
    private mutating func close(_ bracket: String) {
        text += bracket
        needsComma = true
    }
    public mutating func key(_ k: String) {
        separator()
        text += JSONWriter.quoted(k) + ":"
        needsComma = false
    }
    public mutating func null() { separator(); text += "null" }
    public mutating func field(_ k: String, _ v: Double) { key(k); number(v) }
    public mutating func field(_ k: String, _ v: String) { key(k); separator(); text += JSONWriter.quoted(v) }
    public mutating func field(_ k: String, _ v: Bool) { key(k); separator(); text += v ? "true" : "false" }
    public mutating func number(_ v: Double) {
        separator()
        text += JSONWriter.format(v)
    }
    private mutating func numbers(_ vs: [Double]) {
        separator()
        text += "[" + vs.map(JSONWriter.format).joined(separator: ",") + "]"
    }

    /// A property value in the scene-file form: numbers, `[x,y]`, `[x,y,w,h]`, `"#RRGGBBAA"`,
    /// 16 numbers for a transform.
    public mutating func value(_ v: PropertyValue) {
        switch v {
        case .number(let d): number(d)
        case .point(let p): numbers([p.x, p.y])
        case .size(let s): numbers([s.width, s.height])
        case .rect(let r): numbers([r.origin.x, r.origin.y, r.size.width, r.size.height])
        case .color(let c):
            if exactColors { numbers([c.red, c.green, c.blue, c.alpha]) } else { separator(); text += JSONWriter.quoted(c.hexString) }
        case .transform(let t): numbers(t.rowMajor)
        case .bool(let b): separator(); text += b ? "true" : "false"
        case .string(let s): separator(); text += JSONWriter.quoted(s)
        case .numbers(let v): numbers(v)
        case .colors(let v):
            separator()
            text += "[" + v.map { c in
                exactColors ? "[" + [c.red, c.green, c.blue, c.alpha].map(JSONWriter.format).joined(separator: ",") + "]"
                    : JSONWriter.quoted(c.hexString)
            }.joined(separator: ",") + "]"
        case .path(let p):
            separator()
            text += p.elements.isEmpty ? "null" : JSONWriter.quoted(p.description)
        case .image(let n), .layer(let n):
            separator()
            text += n == 0 ? "null" : String(n)
        case .constraints(let v):
            // As scene files write them.
            separator()
            text += "[" + v.map { c in
                "{\"attribute\":\"\(c.attribute)\",\"relativeTo\":" + JSONWriter.quoted(c.relativeTo)
                    + ",\"sourceAttribute\":\"\(c.sourceAttribute)\",\"scale\":" + JSONWriter.format(c.scale)
                    + ",\"offset\":" + JSONWriter.format(c.offset) + "}"
            }.joined(separator: ",") + "]"
        case .emitterCells(let cells):
            emitterCells(cells)
        case .filters(let list):
            // As scene files write them: {"name", "type", input}.
            beginArray()
            for f in list {
                beginObject()
                key("name"); value(.string(f.name))
                key("type"); value(.string(f.type.rawValue))
                if let input = f.type.input, let v = f[input] { key(input.rawValue); value(v) }
                endObject()
            }
            endArray()
        case .drawing(let d):
            drawing(d)
        case .attributedString(let runs):
            // As scene files write them: {"text", and the attributes that are set}.
            beginArray()
            for r in runs {
                beginObject()
                key("text"); value(.string(r.text))
                if !r.font.isEmpty { key("font"); value(.string(r.font)) }
                if r.fontSize != 0 { key("fontSize"); value(.number(r.fontSize)) }
                if r.weight != 0 { key("weight"); value(.number(r.weight)) }
                if r.italic { key("italic"); value(.bool(true)) }
                if let c = r.color { key("color"); value(.color(c)) }
                if let c = r.backgroundColor { key("backgroundColor"); value(.color(c)) }
                if r.underline { key("underline"); value(.bool(true)) }
                if r.strikethrough { key("strikethrough"); value(.bool(true)) }
                if r.kerning != 0 { key("kerning"); value(.number(r.kerning)) }
                if r.baselineOffset != 0 { key("baselineOffset"); value(.number(r.baselineOffset)) }
                endObject()
            }
            endArray()
        }
    }

    /// A drawing as scene files write it: an object per command, `"op"` and its named arguments.
    private mutating func drawing(_ d: Drawing) {
        beginArray()
        for c in d.commands {
            beginObject()
            field("op", c.op.name)
            var k = 0, s = 0
            for arg in c.op.arguments {
                key(arg.name)
                switch arg.kind {
                case .number, .image: number(c.numbers[k])
                case .bool: value(.bool(c.numbers[k] != 0))
                case .name(let names): value(.string(names[Int(c.numbers[k])]))
                case .point, .size, .rect, .affine: numbers(Array(c.numbers[k..<(k + arg.kind.numberCount!)]))
                case .color:
                    let v = c.numbers
                    value(.color(Color(red: v[k], green: v[k + 1], blue: v[k + 2], alpha: v[k + 3])))
                case .string: value(.string(c.strings[s])); s += 1
                case .numbers: numbers(Array(c.numbers[k...]))
                case .stops:
                    beginArray()
                    for i in stride(from: k, to: c.numbers.count, by: 5) {
                        let v = c.numbers
                        beginObject()
                        field("location", v[i])
                        key("color"); value(.color(Color(red: v[i + 1], green: v[i + 2], blue: v[i + 3], alpha: v[i + 4])))
                        endObject()
                    }
                    endArray()
                }
                k += arg.kind.numberCount ?? 0
            }
            endObject()
        }
        endArray()
    }

    /// Cells as scene files write them: an object per cell with the fields that differ from a
    /// default cell (contents as the image number), and `emitterCells` when it has any.
    private mutating func emitterCells(_ cells: [EmitterCell]) {
        beginArray()
        for cell in cells {
            beginObject()
            for f in cell.changedFields {
                key(f.name)
                value(cell[f])
            }
            if !cell.emitterCells.isEmpty {
                key("emitterCells")
                emitterCells(cell.emitterCells)
            }
            endObject()
        }
        endArray()
    }

    /// Integers without a fraction; other numbers as Swift prints them (shortest round trip).
    public static func format(_ v: Double) -> String {
        guard v.isFinite else { return "null" }
        if v == v.rounded(), abs(v) < 1e15 { return String(Int64(v)) }
        return "\(v)"
    }

    public static func quoted(_ s: String) -> String {
        var out = "\""
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where u.value < 0x20:
                let h = String(u.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - h.count) + h
            default: out.unicodeScalars.append(u)
            }
        }
        return out + "\""
    }
}
