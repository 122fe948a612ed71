/// Why SVG path data was refused.
public struct PathSyntaxError: Error, Equatable, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

extension Path {
    /// Parses SVG-like path data: `"M 0 0 L 10 0 Q 20 0 20 10 C … Z"`, upper case absolute,
    /// lower case relative; M, L, H, V, Q, C, Z.
    public init(svgData text: String) throws(PathSyntaxError) {
        let tokens = Path.tokenize(text)
        var out = Path()
        var cur = Point.zero, start = Point.zero
        var k = 0
        var command: Character = "M"
        func number() throws(PathSyntaxError) -> Double {
            guard k < tokens.count, let d = Double(tokens[k]) else {
                throw PathSyntaxError("expected a number after '\(command)' at token \(k + 1) of \"\(text)\"")
            }
            k += 1
            return d
        }
        while k < tokens.count {
            if let c = tokens[k].first, c.isLetter, tokens[k].count == 1 { command = c; k += 1 }
            let rel = command.isLowercase
            func pt() throws(PathSyntaxError) -> Point {
                let x = try number(), y = try number()
                return rel ? Point(x: cur.x + x, y: cur.y + y) : Point(x: x, y: y)
            }
            switch command.uppercased() {
            case "M": cur = try pt(); start = cur; out.move(to: cur); command = rel ? "l" : "L"
            case "L": cur = try pt(); out.addLine(to: cur)
            case "H": let x = try number(); cur = Point(x: rel ? cur.x + x : x, y: cur.y); out.addLine(to: cur)
            case "V": let y = try number(); cur = Point(x: cur.x, y: rel ? cur.y + y : y); out.addLine(to: cur)
            case "Q": let c = try pt(); let e = try pt(); out.addQuadCurve(to: e, control: c); cur = e
            case "C": let c1 = try pt(); let c2 = try pt(); let e = try pt(); out.addCurve(to: e, control1: c1, control2: c2); cur = e
            case "Z":
                // Z takes no numbers: one after it would be read again and again, never consumed.
                if k < tokens.count, !(tokens[k].count == 1 && tokens[k].first!.isLetter) {
                    throw PathSyntaxError("'\(command)' takes no numbers, got '\(tokens[k].prefix(32))' at token \(k + 1) of \"\(text.prefix(64))\"")
                }
                out.closeSubpath(); cur = start
            default: throw PathSyntaxError("unknown path command '\(command)' (M, L, H, V, Q, C, Z)")
            }
        }
        self = out
    }

    /// Splits path data into command letters and numbers ("M10-5" is "M", "10", "-5").
    static func tokenize(_ text: String) -> [Substring] {
        var tokens: [Substring] = []
        var i = text.startIndex
        func isNumberChar(_ c: Character) -> Bool { c.isNumber || c == "." }
        while i < text.endIndex {
            let c = text[i]
            if c.isLetter {
                tokens.append(text[i...i])
                i = text.index(after: i)
            } else if isNumberChar(c) || c == "-" || c == "+" {
                var j = text.index(after: i)
                var seenDot = c == "."
                while j < text.endIndex {
                    let d = text[j]
                    if d.isNumber { j = text.index(after: j); continue }
                    if d == ".", !seenDot { seenDot = true; j = text.index(after: j); continue }
                    if d == "e" || d == "E" {
                        var n = text.index(after: j)
                        if n < text.endIndex, text[n] == "-" || text[n] == "+" { n = text.index(after: n) }
                        if n < text.endIndex, text[n].isNumber { j = n; continue }
                    }
                    break
                }
                tokens.append(text[i..<j])
                i = j
            } else {
                i = text.index(after: i)  // separators: spaces, commas, newlines
            }
        }
        return tokens
    }
}
