import LaminaCore

/// Why bytes could not be decoded. Each case names what was being read, so the error that goes
/// back to the client can say which field was wrong.
public enum DecodeError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The message ended before `field` was complete.
    case truncated(field: String)
    /// `field` holds a value that has no meaning (an unknown opcode, a bool that is 7, …).
    case invalid(field: String, reason: String)
    /// Bytes were left over after the message was complete.
    case trailingBytes(count: Int)

    public var description: String {
        switch self {
        case let .truncated(field): "message ends in the middle of \(field)"
        case let .invalid(field, reason): "\(field): \(reason)"
        case let .trailingBytes(count): "\(count) unexpected bytes after the end of the message"
        }
    }

    /// The error with its field `old` (or a field starting with it) named `new` instead.
    public func renamed(from old: String, to new: String) -> DecodeError {
        func rename(_ f: String) -> String { f.hasPrefix(old) ? new + f.dropFirst(old.count) : f }
        switch self {
        case .truncated(let field): return .truncated(field: rename(field))
        case let .invalid(field, reason): return .invalid(field: rename(field), reason: reason)
        case .trailingBytes: return self
        }
    }

    /// The error with `prefix` before its field's name ("operation 12" + "property").
    public func within(_ prefix: String) -> DecodeError {
        switch self {
        case .truncated(let field): .truncated(field: prefix + " " + field)
        case let .invalid(field, reason): .invalid(field: prefix + " " + field, reason: reason)
        case .trailingBytes: self
        }
    }
}

/// Appends little-endian values to a byte buffer.
public struct ByteWriter: Sendable {
    public private(set) var bytes: [UInt8]

    public init(capacity: Int = 64) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    public mutating func u8(_ v: UInt8) { bytes.append(v) }
    public mutating func u16(_ v: UInt16) { withUnsafeBytes(of: v.littleEndian) { bytes.append(contentsOf: $0) } }
    public mutating func u32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { bytes.append(contentsOf: $0) } }
    public mutating func i32(_ v: Int32) { u32(UInt32(bitPattern: v)) }
    public mutating func u64(_ v: UInt64) { withUnsafeBytes(of: v.littleEndian) { bytes.append(contentsOf: $0) } }
    public mutating func f64(_ v: Double) { u64(v.bitPattern) }
    public mutating func bool(_ v: Bool) { u8(v ? 1 : 0) }
    /// A u32 byte count, then the UTF-8 bytes.
    public mutating func string(_ s: String) {
        let utf8 = Array(s.utf8)
        u32(UInt32(utf8.count))
        bytes.append(contentsOf: utf8)
    }
    public mutating func raw(_ b: [UInt8]) { bytes.append(contentsOf: b) }

    /// Overwrites 4 bytes at `offset` (used to patch a frame's length once the body is written).
    public mutating func patchU32(_ v: UInt32, at offset: Int) {
        withUnsafeBytes(of: v.littleEndian) { for i in 0..<4 { bytes[offset + i] = $0[i] } }
    }
}

/// Reads little-endian values from a byte slice, throwing `DecodeError` rather than reading past
/// the end.
public struct ByteReader {
    @usableFromInline let bytes: ArraySlice<UInt8>
    @usableFromInline var index: Int

    public init(_ bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
        index = bytes.startIndex
    }
    public init(_ bytes: [UInt8]) { self.init(bytes[...]) }

    /// Bytes not yet read.
    public var remaining: Int { bytes.endIndex - index }

    mutating func take(_ n: Int, _ field: String) throws(DecodeError) -> ArraySlice<UInt8> {
        guard n >= 0, remaining >= n else { throw .truncated(field: field) }
        defer { index += n }
        return bytes[index..<(index + n)]
    }

    public mutating func u8(_ field: String) throws(DecodeError) -> UInt8 {
        try take(1, field).first!
    }
    public mutating func u16(_ field: String) throws(DecodeError) -> UInt16 {
        let s = try take(2, field)
        return UInt16(s[s.startIndex]) | UInt16(s[s.startIndex + 1]) << 8
    }
    public mutating func u32(_ field: String) throws(DecodeError) -> UInt32 {
        let s = try take(4, field)
        var v: UInt32 = 0
        for i in 0..<4 { v |= UInt32(s[s.startIndex + i]) << (8 * UInt32(i)) }
        return v
    }
    public mutating func i32(_ field: String) throws(DecodeError) -> Int32 { Int32(bitPattern: try u32(field)) }
    public mutating func u64(_ field: String) throws(DecodeError) -> UInt64 {
        let s = try take(8, field)
        var v: UInt64 = 0
        for i in 0..<8 { v |= UInt64(s[s.startIndex + i]) << (8 * UInt64(i)) }
        return v
    }
    public mutating func f64(_ field: String) throws(DecodeError) -> Double { Double(bitPattern: try u64(field)) }
    public mutating func bool(_ field: String) throws(DecodeError) -> Bool {
        switch try u8(field) {
        case 0: return false
        case 1: return true
        case let v: throw .invalid(field: field, reason: "a bool must be 0 or 1, not \(v)")
        }
    }
    /// A u32 byte count and that many bytes of valid UTF-8, at most `limit` bytes.
    public mutating func string(_ field: String, limit: Int = 4096) throws(DecodeError) -> String {
        let n = Int(try u32(field + " length"))
        guard n <= limit else { throw .invalid(field: field, reason: "string of \(n) bytes is longer than the limit of \(limit)") }
        let s = try take(n, field)
        guard let str = String(validating: s, as: UTF8.self) else {
            throw .invalid(field: field, reason: "not valid UTF-8")
        }
        return str
    }
    public mutating func raw(_ n: Int, _ field: String) throws(DecodeError) -> [UInt8] { Array(try take(n, field)) }

    /// Throws unless every byte was read.
    public func finish() throws(DecodeError) {
        if remaining != 0 { throw .trailingBytes(count: remaining) }
    }
}

// MARK: - Property values

extension ByteWriter {
    /// A value in the layout its key's type has on the wire (docs/protocol.md, "Values").
    public mutating func value(_ v: PropertyValue) {
        switch v {
        case .number(let d): f64(d)
        case .point(let p): f64(p.x); f64(p.y)
        case .size(let s): f64(s.width); f64(s.height)
        case .rect(let r): f64(r.origin.x); f64(r.origin.y); f64(r.size.width); f64(r.size.height)
        case .color(let c): f64(c.red); f64(c.green); f64(c.blue); f64(c.alpha)
        case .transform(let t): for d in t.rowMajor { f64(d) }
        case .bool(let b): bool(b)
        case .string(let s): string(s)
        case .numbers(let v): u32(UInt32(v.count)); for d in v { f64(d) }
        case .colors(let v): u32(UInt32(v.count)); for c in v { f64(c.red); f64(c.green); f64(c.blue); f64(c.alpha) }
        case .path(let p): path(p)
        case .image(let n), .layer(let n): u32(n)
        case .constraints(let v):
            u32(UInt32(v.count))
            for c in v {
                u8(c.attribute.rawValue); u8(c.sourceAttribute.rawValue); string(c.relativeTo); f64(c.scale); f64(c.offset)
            }
        case .emitterCells(let cells): emitterCells(cells)
        case .drawing(let d):
            // u32 count, then per command: u8 opcode, u16 number count, the numbers (f64), then
            // the op's strings (docs/protocol.md, "Drawings").
            u32(UInt32(d.commands.count))
            for c in d.commands {
                u8(c.op.rawValue); u16(UInt16(clamping: c.numbers.count))
                for v in c.numbers { f64(v) }
                for t in c.strings { string(t) }
            }
        case .attributedString(let runs): textRuns(runs)
        case .filters(let list):
            // u32 count, then per filter: string name, u8 type, u8 number count, the numbers.
            u32(UInt32(list.count))
            for f in list {
                string(f.name); u8(f.type.wireTag); u8(UInt8(clamping: f.values.count))
                for d in f.values { f64(d) }
            }
        }
    }

    /// `attributedString`: u32 run count, then per run: string text, string font, f64 fontSize,
    /// f64 weight, u8 flags (1 italic, 2 underline, 4 strikethrough, 8 colour follows,
    /// 16 background colour follows), the colours (4 × f64 each), f64 kerning, f64 baselineOffset.
    public mutating func textRuns(_ runs: [TextRun]) {
        u32(UInt32(runs.count))
        for r in runs {
            string(r.text); string(r.font); f64(r.fontSize); f64(r.weight)
            var flags: UInt8 = 0
            if r.italic { flags |= 1 }
            if r.underline { flags |= 2 }
            if r.strikethrough { flags |= 4 }
            if r.color != nil { flags |= 8 }
            if r.backgroundColor != nil { flags |= 16 }
            u8(flags)
            for c in [r.color, r.backgroundColor].compactMap({ $0 }) { f64(c.red); f64(c.green); f64(c.blue); f64(c.alpha) }
            f64(r.kerning); f64(r.baselineOffset)
        }
    }

    /// `emitterCells`: u32 count, then each cell as u16 field count, (u16 field, value)… for the
    /// fields that differ from a default cell, then its own cells the same way.
    public mutating func emitterCells(_ cells: [EmitterCell]) {
        u32(UInt32(cells.count))
        for cell in cells {
            let fields = cell.changedFields
            u16(UInt16(fields.count))
            for f in fields {
                u16(f.rawValue)
                value(cell[f])
            }
            emitterCells(cell.emitterCells)
        }
    }
}

extension ByteReader {
    /// Reads a value of `type`. Colour components outside [0, 1] are refused rather than
    /// clamped, so a client learns of its mistake.
    public mutating func value(_ type: PropertyValueType, _ field: String) throws(DecodeError) -> PropertyValue {
        switch type {
        case .number: return .number(try f64(field))
        case .point: return .point(Point(x: try f64(field), y: try f64(field)))
        case .size: return .size(Size(width: try f64(field), height: try f64(field)))
        case .rect: return .rect(Rect(x: try f64(field), y: try f64(field), width: try f64(field), height: try f64(field)))
        case .color:
            let r = try f64(field), g = try f64(field), b = try f64(field), a = try f64(field)
            for c in [r, g, b, a] where !(c >= 0 && c <= 1) {
                throw .invalid(field: field, reason: "colour components must be in [0, 1], got \(c)")
            }
            return .color(Color(red: r, green: g, blue: b, alpha: a))
        case .transform:
            var m = [Double](repeating: 0, count: 16)
            for i in 0..<16 { m[i] = try f64(field) }
            return .transform(Transform3D(rowMajor: m)!)
        case .bool: return .bool(try bool(field))
        case .string: return .string(try string(field, limit: PropertyWire.stringLimit))
        case .numbers:
            let n = try listCount(field, elementSize: 8)
            var v: [Double] = []
            v.reserveCapacity(n)
            for _ in 0..<n { v.append(try f64(field)) }
            return .numbers(v)
        case .colors:
            let n = try listCount(field, elementSize: 32)
            var v: [Color] = []
            v.reserveCapacity(n)
            for _ in 0..<n {
                guard case .color(let c) = try value(.color, field) else { preconditionFailure() }
                v.append(c)
            }
            return .colors(v)
        case .path:
            let p = try path(field)
            guard p.elements.count <= LayerProperties.pathElementLimit else {
                throw .invalid(field: field, reason: "\(p.elements.count) path elements is more than the limit of \(LayerProperties.pathElementLimit)")
            }
            return .path(p)
        case .image: return .image(try u32(field))
        case .layer: return .layer(try u32(field))
        case .constraints:
            // Attribute and source attribute (u8 each), relativeTo (string), scale, offset (f64).
            let n = try listCount(field, elementSize: 22)
            guard n <= LayoutConstraint.perLayerLimit else {
                throw .invalid(field: field, reason: "\(n) constraints is more than the limit of \(LayoutConstraint.perLayerLimit) a layer may have")
            }
            var v: [LayoutConstraint] = []
            for _ in 0..<n {
                let a = try u8(field), s = try u8(field)
                guard let attribute = ConstraintAttribute(rawValue: a), let source = ConstraintAttribute(rawValue: s) else {
                    throw .invalid(field: field, reason: "a constraint attribute is 0–7 (minX, midX, maxX, width, minY, midY, maxY, height), got \(max(a, s))")
                }
                let relativeTo = try string(field, limit: PropertyWire.stringLimit)
                v.append(LayoutConstraint(attribute: attribute, relativeTo: relativeTo, sourceAttribute: source,
                                          scale: try f64(field), offset: try f64(field)))
            }
            return .constraints(v)
        case .emitterCells: return .emitterCells(try emitterCells(field, depth: 1))
        case .filters: return .filters(try filters(field))
        case .drawing: return .drawing(try drawing(field))
        case .attributedString: return .attributedString(try textRuns(field))
        }
    }

    /// Reads a `drawing`, refusing more than `Drawing.maximumCommands` commands, an unknown
    /// opcode and counts longer than the bytes left (arguments are the layer model's to check).
    mutating func drawing(_ field: String) throws(DecodeError) -> Drawing {
        let n = Int(try u32(field + " count"))
        guard n <= Drawing.maximumCommands else {
            throw .invalid(field: field, reason: "\(n) commands is more than the limit of \(Drawing.maximumCommands) a drawing may have")
        }
        guard n <= remaining / 3 else {
            throw .invalid(field: field + " count", reason: "\(n) commands cannot fit in the \(remaining) bytes that follow")
        }
        var commands: [DrawingCommand] = []
        commands.reserveCapacity(n)
        for i in 0..<n {
            let tag = try u8(field + " opcode")
            guard let op = DrawingOp(rawValue: tag) else {
                throw .invalid(field: field, reason: "command \(i): unknown opcode \(tag)")
            }
            let count = Int(try u16(field + " number count"))
            guard count <= remaining / 8 else {
                throw .invalid(field: field, reason: "command \(i) (\(op.name)): \(count) numbers cannot fit in the \(remaining) bytes that follow")
            }
            var numbers: [Double] = []
            numbers.reserveCapacity(count)
            for _ in 0..<count { numbers.append(try f64(field)) }
            var strings: [String] = []
            for _ in 0..<op.stringCount { strings.append(try string(field, limit: Drawing.maximumStringBytes)) }
            commands.append(DrawingCommand(op, numbers, strings))
        }
        return Drawing(commands)
    }

    /// Reads `attributedString` runs, refusing more than `TextRun.maximumRuns`, more text than
    /// `TextRun.maximumTextBytes` in all, unknown flags and colours outside [0, 1] (the rest of
    /// the ranges are the layer model's to check).
    mutating func textRuns(_ field: String) throws(DecodeError) -> [TextRun] {
        let n = Int(try u32(field + " count"))
        guard n <= TextRun.maximumRuns else {
            throw .invalid(field: field, reason: "\(n) runs is more than the limit of \(TextRun.maximumRuns)")
        }
        var runs: [TextRun] = []
        var bytes = 0
        for i in 0..<n {
            let at = field + " run \(i)"
            let text = try string(at + " text", limit: TextRun.maximumTextBytes)
            bytes += text.utf8.count
            guard bytes <= TextRun.maximumTextBytes else {
                throw .invalid(field: at + " text", reason: "the runs' text is longer than the limit of \(TextRun.maximumTextBytes) UTF-8 bytes")
            }
            var r = TextRun(text)
            r.font = try string(at + " font", limit: TextRun.maximumFontNameBytes)
            r.fontSize = try f64(at + " fontSize")
            r.weight = try f64(at + " weight")
            let flags = try u8(at + " flags")
            guard flags & ~31 == 0 else { throw .invalid(field: at + " flags", reason: "unknown flag bits \(flags & ~31)") }
            r.italic = flags & 1 != 0
            r.underline = flags & 2 != 0
            r.strikethrough = flags & 4 != 0
            if flags & 8 != 0, case .color(let c) = try value(.color, at + " color") { r.color = c }
            if flags & 16 != 0, case .color(let c) = try value(.color, at + " backgroundColor") { r.backgroundColor = c }
            r.kerning = try f64(at + " kerning")
            r.baselineOffset = try f64(at + " baselineOffset")
            runs.append(r)
        }
        return runs
    }

    /// Reads a `filters` list, refusing more than `LayerFilter.maximumCount`, an unknown type, and
    /// an input of the wrong size for its type (ranges are the layer model's to check).
    mutating func filters(_ field: String) throws(DecodeError) -> [LayerFilter] {
        let n = Int(try u32(field + " count"))
        guard n <= LayerFilter.maximumCount else {
            throw .invalid(field: field, reason: "\(n) filters is more than the limit of \(LayerFilter.maximumCount) a layer may have")
        }
        var list: [LayerFilter] = []
        for _ in 0..<n {
            let name = try string(field + " name", limit: LayerFilter.maximumNameLength)
            let tag = try u8(field + " type")
            guard let type = FilterType(wireTag: tag) else {
                throw .invalid(field: field + "." + name, reason: "unknown filter type \(tag); 1–7 are "
                               + FilterType.allCases.map(\.rawValue).joined(separator: ", "))
            }
            let count = Int(try u8(field + " input count"))
            let expected = type.input?.count ?? 0
            guard count == expected else {
                throw .invalid(field: field + "." + name, reason: "\(type.rawValue) takes \(expected) input number\(expected == 1 ? "" : "s"), got \(count)")
            }
            var values: [Double] = []
            for _ in 0..<count { values.append(try f64(field + "." + name)) }
            list.append(LayerFilter(name: name, type: type, values: values))
        }
        return list
    }

    /// Reads an `emitterCells` list, refusing more than `EmitterCell.maximumCells` a list,
    /// nesting deeper than `EmitterCell.maximumDepth`, and unknown fields.
    mutating func emitterCells(_ field: String, depth: Int) throws(DecodeError) -> [EmitterCell] {
        let n = Int(try u32(field + " count"))
        guard n <= EmitterCell.maximumCells else {
            throw .invalid(field: field, reason: "\(n) emitter cells in one list is more than the limit of \(EmitterCell.maximumCells)")
        }
        guard n == 0 || depth <= EmitterCell.maximumDepth else {
            throw .invalid(field: field, reason: "emitter cells nest at most \(EmitterCell.maximumDepth) deep")
        }
        var cells: [EmitterCell] = []
        for _ in 0..<n {
            var cell = EmitterCell()
            let count = Int(try u16(field + " field count"))
            for _ in 0..<count {
                let raw = try u16(field + " field")
                guard let f = EmitterCellField(rawValue: raw) else {
                    throw .invalid(field: field, reason: "unknown emitter cell field \(raw)")
                }
                let v = try value(f.valueType, field + "." + f.name)
                guard cell.store(f, v) else {
                    throw .invalid(field: field + "." + f.name, reason: "\(v) is not one of \(f.allowedNames?.joined(separator: ", ") ?? "its values")")
                }
            }
            cell.emitterCells = try emitterCells(field, depth: depth + 1)
            cells.append(cell)
        }
        return cells
    }

    /// A u32 list length, refused when over `LayerProperties.listLimit` or longer than the bytes left.
    private mutating func listCount(_ field: String, elementSize: Int) throws(DecodeError) -> Int {
        let n = Int(try u32(field + " count"))
        guard n <= LayerProperties.listLimit else {
            throw .invalid(field: field, reason: "a list of \(n) entries is longer than the limit of \(LayerProperties.listLimit)")
        }
        guard n <= remaining / elementSize else {
            throw .invalid(field: field + " count", reason: "\(n) entries cannot fit in the \(remaining) bytes that follow")
        }
        return n
    }
}

/// Limits on property values on the wire.
public enum PropertyWire {
    /// The longest string value, in UTF-8 bytes (a text layer's `string` included).
    public static let stringLimit = 65_536
}
