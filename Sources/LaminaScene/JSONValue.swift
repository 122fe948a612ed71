import Foundation

/// A parsed JSON value that keeps numbers and booleans apart (JSONSerialization on Linux does not).
public indirect enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// Parses JSON text (RFC 8259); a syntax error says the line and column where it is.
    ///
    /// Foundation's decoders on Linux report only "The given data was not valid JSON." (or a
    /// byte offset buried in a debug string), so scene files are read by `JSONReader`.
    public static func parse(_ data: Data) throws(SceneError) -> JSONValue {
        var reader = JSONReader(bytes: [UInt8](data))
        return try reader.document()
    }

    var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}

/// A recursive-descent JSON reader that knows where it is, for messages like
/// `line 3, column 12: not valid JSON: expected ',' or '}' after the value of "opacity", found '"'`.
struct JSONReader {
    let bytes: [UInt8]
    var offset = 0
    var depth = 0
    /// Deeper documents are refused rather than overflowing the stack; scenes nest far less.
    static let maximumDepth = 512

    init(bytes: [UInt8]) {
        self.bytes = bytes
        // A UTF-8 byte-order mark, as some editors write one.
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { offset = 3 }
    }

    mutating func document() throws(SceneError) -> JSONValue {
        skipSpace()
        guard offset < bytes.count else { throw error("the file is empty; a scene is a JSON object like {\"sublayers\": []}") }
        let v = try value()
        skipSpace()
        guard offset == bytes.count else { throw error("unexpected \(found) after the end of the document") }
        return v
    }

    /// The 1-based line and column (in characters) of byte `at`.
    static func location(of at: Int, in bytes: [UInt8]) -> (line: Int, column: Int) {
        var line = 1, column = 1
        for b in bytes[..<min(at, bytes.count)] {
            if b == UInt8(ascii: "\n") {
                line += 1
                column = 1
            } else if b & 0xC0 != 0x80 {
                // Not a UTF-8 continuation byte: a new character.
                column += 1
            }
        }
        return (line, column)
    }

    func error(_ message: String, at: Int? = nil) -> SceneError {
        let (line, column) = Self.location(of: at ?? offset, in: bytes)
        return SceneError(path: "$", message: "not valid JSON: " + message, line: line, column: column)
    }

    /// What is at the current position, for messages.
    var found: String {
        guard offset < bytes.count else { return "the end of the file" }
        let b = bytes[offset]
        if b >= 0x20 && b < 0x7F { return "'\(Character(Unicode.Scalar(b)))'" }
        if b < 0x20 { return "control character 0x\(String(b, radix: 16, uppercase: true))" }
        // A multi-byte character: show it whole when it decodes.
        var end = offset + 1
        while end < bytes.count, bytes[end] & 0xC0 == 0x80, end - offset < 4 { end += 1 }
        if let s = String(validating: bytes[offset..<end], as: UTF8.self) { return "'\(s)'" }
        return "byte 0x\(String(b, radix: 16, uppercase: true)) (not UTF-8)"
    }

    mutating func skipSpace() {
        while offset < bytes.count {
            switch bytes[offset] {
            case 0x20, 0x09, 0x0A, 0x0D: offset += 1
            default: return
            }
        }
    }

    mutating func value() throws(SceneError) -> JSONValue {
        guard offset < bytes.count else { throw error("expected a value, found the end of the file") }
        switch bytes[offset] {
        case UInt8(ascii: "{"): return try object()
        case UInt8(ascii: "["): return try array()
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
        case UInt8(ascii: "'"): throw error("strings take double quotes (\"), not single quotes")
        default: throw error("expected a value (an object, array, string, number, true, false or null), found \(found)")
        }
    }

    mutating func literal(_ word: String) throws(SceneError) {
        let w = Array(word.utf8)
        guard bytes.count - offset >= w.count, Array(bytes[offset..<offset + w.count]) == w else {
            throw error("expected a value, found \(found)")
        }
        offset += w.count
    }

    mutating func enter() throws(SceneError) {
        depth += 1
        guard depth <= Self.maximumDepth else { throw error("nested deeper than \(Self.maximumDepth) levels") }
    }

    mutating func object() throws(SceneError) -> JSONValue {
        try enter()
        defer { depth -= 1 }
        offset += 1
        var fields: [String: JSONValue] = [:]
        skipSpace()
        if offset < bytes.count, bytes[offset] == UInt8(ascii: "}") {
            offset += 1
            return .object(fields)
        }
        while true {
            skipSpace()
            guard offset < bytes.count, bytes[offset] == UInt8(ascii: "\"") else {
                if offset < bytes.count, bytes[offset] == UInt8(ascii: "}") {
                    throw error("a comma before '}' (JSON allows no trailing comma)")
                }
                throw error("expected a key in double quotes, found \(found)")
            }
            let keyStart = offset
            let key = try string()
            skipSpace()
            guard offset < bytes.count, bytes[offset] == UInt8(ascii: ":") else {
                throw error("expected ':' after the key \"\(key)\", found \(found)")
            }
            offset += 1
            skipSpace()
            let v = try value()
            guard fields.updateValue(v, forKey: key) == nil else {
                throw error("the key \"\(key)\" appears twice in this object", at: keyStart)
            }
            skipSpace()
            guard offset < bytes.count else { throw error("the object is not closed: expected ',' or '}', found the end of the file") }
            if bytes[offset] == UInt8(ascii: ",") {
                offset += 1
                continue
            }
            if bytes[offset] == UInt8(ascii: "}") {
                offset += 1
                return .object(fields)
            }
            throw error("expected ',' or '}' after the value of \"\(key)\", found \(found)")
        }
    }

    mutating func array() throws(SceneError) -> JSONValue {
        try enter()
        defer { depth -= 1 }
        offset += 1
        var items: [JSONValue] = []
        skipSpace()
        if offset < bytes.count, bytes[offset] == UInt8(ascii: "]") {
            offset += 1
            return .array(items)
        }
        while true {
            skipSpace()
            if offset < bytes.count, bytes[offset] == UInt8(ascii: "]") {
                throw error("a comma before ']' (JSON allows no trailing comma)")
            }
            items.append(try value())
            skipSpace()
            guard offset < bytes.count else { throw error("the array is not closed: expected ',' or ']', found the end of the file") }
            if bytes[offset] == UInt8(ascii: ",") {
                offset += 1
                continue
            }
            if bytes[offset] == UInt8(ascii: "]") {
                offset += 1
                return .array(items)
            }
            throw error("expected ',' or ']' after an array item, found \(found)")
        }
    }

    mutating func string() throws(SceneError) -> String {
        let start = offset
        offset += 1
        var out: [UInt8] = []
        while true {
            guard offset < bytes.count else { throw error("the string is not closed (it starts here)", at: start) }
            let b = bytes[offset]
            switch b {
            case UInt8(ascii: "\""):
                offset += 1
                guard let s = String(validating: out, as: UTF8.self) else { throw error("the string is not valid UTF-8", at: start) }
                return s
            case UInt8(ascii: "\\"):
                offset += 1
                guard offset < bytes.count else { throw error("the string is not closed (it starts here)", at: start) }
                let e = bytes[offset]
                offset += 1
                switch e {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(e)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "u"):
                    let escape = offset - 2
                    var scalar = try hex4()
                    if (0xD800..<0xDC00).contains(scalar) {
                        // A high surrogate must be followed by \u and a low one.
                        guard bytes.count - offset >= 2, bytes[offset] == UInt8(ascii: "\\"), bytes[offset + 1] == UInt8(ascii: "u") else {
                            throw error("\\u\(String(scalar, radix: 16, uppercase: true)) is half of a surrogate pair", at: escape)
                        }
                        offset += 2
                        let low = try hex4()
                        guard (0xDC00..<0xE000).contains(low) else { throw error("\\u escape is not a valid surrogate pair", at: escape) }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let u = Unicode.Scalar(scalar) else { throw error("\\u escape is not a valid surrogate pair", at: escape) }
                    out.append(contentsOf: Array(String(Character(u)).utf8))
                default:
                    offset -= 1
                    throw error("unknown escape '\\\(Character(Unicode.Scalar(e)))' (use \\\" \\\\ \\/ \\b \\f \\n \\r \\t or \\uXXXX)", at: offset - 1)
                }
            case 0..<0x20:
                throw error("a control character in a string must be escaped (a line break is \\n)")
            default:
                out.append(b)
                offset += 1
            }
        }
    }

    mutating func hex4() throws(SceneError) -> UInt32 {
        guard bytes.count - offset >= 4 else { throw error("\\u needs four hex digits") }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let b = bytes[offset]
            let d: UInt8
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): d = b - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): d = b - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): d = b - UInt8(ascii: "A") + 10
            default: throw error("\\u needs four hex digits, found \(found)")
            }
            v = v << 4 | UInt32(d)
            offset += 1
        }
        return v
    }

    mutating func number() throws(SceneError) -> Double {
        let start = offset
        func digits() -> Int {
            let s = offset
            while offset < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[offset]) { offset += 1 }
            return offset - s
        }
        if bytes[offset] == UInt8(ascii: "-") { offset += 1 }
        let intStart = offset
        let n = digits()
        guard n > 0 else { throw error("expected a digit after '-', found \(found)") }
        if n > 1, bytes[intStart] == UInt8(ascii: "0") { throw error("a number cannot start with 0 (leading zeros)", at: intStart) }
        if offset < bytes.count, bytes[offset] == UInt8(ascii: ".") {
            offset += 1
            guard digits() > 0 else { throw error("expected a digit after '.', found \(found)") }
        }
        if offset < bytes.count, bytes[offset] == UInt8(ascii: "e") || bytes[offset] == UInt8(ascii: "E") {
            offset += 1
            if offset < bytes.count, bytes[offset] == UInt8(ascii: "+") || bytes[offset] == UInt8(ascii: "-") { offset += 1 }
            guard digits() > 0 else { throw error("expected a digit in the exponent, found \(found)") }
        }
        let text = String(decoding: bytes[start..<offset], as: UTF8.self)
        guard let d = Double(text), d.isFinite else { throw error("\(text) is out of range for a number", at: start) }
        return d
    }
}

/// A mistake in a scene file: the JSON path of the offending value and what was expected.
public struct SceneError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Like `$.sublayers[2].bounds`.
    public var path: String
    public var message: String
    /// For syntax errors: where in the text (1-based; the column counts characters).
    public var line: Int?
    public var column: Int?
    public init(path: String, message: String, line: Int? = nil, column: Int? = nil) {
        self.path = path
        self.message = message
        self.line = line
        self.column = column
    }
    public var description: String {
        if let line, let column { return "line \(line), column \(column): \(message)" }
        return "\(path): \(message)"
    }
}
