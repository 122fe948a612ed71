/// One run of a text layer's `attributedString` (an `NSAttributedString` range with its
/// attributes): a piece of text and how it looks. An attribute left unset takes the layer's
/// value (`font`, `fontSize`, `foregroundColor`) or the plain default (regular upright, no
/// background, no lines, no extra spacing, on the baseline).
public struct TextRun: Hashable, Sendable, CustomStringConvertible {
    public var text: String
    /// A font family (`"DejaVu Serif"`, `"Helvetica"`); empty takes the layer's `font`.
    public var font: String
    /// Points; 0 takes the layer's `fontSize`.
    public var fontSize: Double
    /// CSS / OpenType weight, 100 (thin) to 1000; 0 takes the weight the layer's font names
    /// (400, regular, unless its name ends in `-Bold`).
    public var weight: Double
    public var italic: Bool
    /// The run's text colour; nil takes the layer's `foregroundColor`.
    public var color: Color?
    /// Painted behind the run's text; nil paints nothing.
    public var backgroundColor: Color?
    public var underline: Bool
    public var strikethrough: Bool
    /// Extra space after each character, in points (`NSAttributedString.Key.kern`).
    public var kerning: Double
    /// Points the run is raised above the baseline (negative lowers it).
    public var baselineOffset: Double

    public init(_ text: String, font: String = "", fontSize: Double = 0, weight: Double = 0, italic: Bool = false,
                color: Color? = nil, backgroundColor: Color? = nil, underline: Bool = false,
                strikethrough: Bool = false, kerning: Double = 0, baselineOffset: Double = 0) {
        self.text = text
        self.font = font
        self.fontSize = fontSize
        self.weight = weight
        self.italic = italic
        self.color = color
        self.backgroundColor = backgroundColor
        self.underline = underline
        self.strikethrough = strikethrough
        self.kerning = kerning
        self.baselineOffset = baselineOffset
    }

    /// The most runs an attributed string holds.
    public static let maximumRuns = 256
    /// The most UTF-8 bytes in all of an attributed string's runs together (as `string`'s limit).
    public static let maximumTextBytes = 65_536
    /// The longest font family name, in UTF-8 bytes.
    public static let maximumFontNameBytes = 256
    /// The largest font size, kerning and baseline offset, in points.
    public static let maximumPoints = 10_000.0

    /// The runs' text joined: what the layer shows.
    public static func joined(_ runs: [TextRun]) -> String { runs.map(\.text).joined() }

    public var isFinite: Bool {
        fontSize.isFinite && weight.isFinite && kerning.isFinite && baselineOffset.isFinite
            && [color, backgroundColor].allSatisfy { c in
                c.map { $0.red.isFinite && $0.green.isFinite && $0.blue.isFinite && $0.alpha.isFinite } ?? true
            }
    }

    /// Throws naming the first run, and what in it, that breaks a limit: too many runs, too much
    /// text, a long font name, a size, weight, kerning or offset out of range, or a colour
    /// component outside [0, 1].
    public static func validate(_ runs: [TextRun]) throws(PropertyError) {
        let key = PropertyKey.attributedString
        guard runs.count <= maximumRuns else {
            throw .outOfRange(key: key, reason: "at most \(maximumRuns) runs (got \(runs.count))")
        }
        var bytes = 0
        for (i, r) in runs.enumerated() {
            let at = "run \(i)"
            bytes += r.text.utf8.count
            guard bytes <= maximumTextBytes else {
                throw .outOfRange(key: key, reason: "the runs' text is longer than the limit of \(maximumTextBytes) UTF-8 bytes (\(at) passes it)")
            }
            guard r.font.utf8.count <= maximumFontNameBytes else {
                throw .outOfRange(key: key, reason: "\(at): a font name is at most \(maximumFontNameBytes) bytes")
            }
            guard r.isFinite else { throw .outOfRange(key: key, reason: "\(at): numbers must be finite") }
            guard r.fontSize >= 0, r.fontSize <= maximumPoints else {
                throw .outOfRange(key: key, reason: "\(at): fontSize must be 0 (the layer's) to \(Int(maximumPoints)) (got \(r.fontSize))")
            }
            guard r.weight == 0 || (r.weight >= 1 && r.weight <= 1000) else {
                throw .outOfRange(key: key, reason: "\(at): weight must be 0 (the layer's) or 1 to 1000 (got \(r.weight))")
            }
            guard abs(r.kerning) <= maximumPoints, abs(r.baselineOffset) <= maximumPoints else {
                throw .outOfRange(key: key, reason: "\(at): kerning and baselineOffset must be within ±\(Int(maximumPoints)) points")
            }
            for c in [r.color, r.backgroundColor].compactMap({ $0 }) {
                for v in [c.red, c.green, c.blue, c.alpha] where !(v >= 0 && v <= 1) {
                    throw .outOfRange(key: key, reason: "\(at): colour components must be in [0, 1] (got \(v))")
                }
            }
        }
    }

    /// Weight names scene files and clients accept, as CSS / OpenType numbers.
    public static let weightNames: [String: Double] = [
        "thin": 100, "ultralight": 200, "extralight": 200, "light": 300, "regular": 400, "normal": 400,
        "medium": 500, "semibold": 600, "demibold": 600, "bold": 700, "extrabold": 800, "ultrabold": 800,
        "heavy": 900, "black": 900,
    ]

    public var description: String {
        var parts = ["\"\(text)\""]
        if !font.isEmpty { parts.append("font \(font)") }
        if fontSize != 0 { parts.append("size \(fontSize)") }
        if weight != 0 { parts.append("weight \(weight)") }
        if italic { parts.append("italic") }
        if let color { parts.append("color \(color)") }
        if let backgroundColor { parts.append("background \(backgroundColor)") }
        if underline { parts.append("underline") }
        if strikethrough { parts.append("strikethrough") }
        if kerning != 0 { parts.append("kerning \(kerning)") }
        if baselineOffset != 0 { parts.append("baselineOffset \(baselineOffset)") }
        return "(" + parts.joined(separator: ", ") + ")"
    }
}
