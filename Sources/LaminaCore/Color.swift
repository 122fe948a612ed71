/// An sRGB colour with straight (not premultiplied) alpha; each component in [0, 1].
///
/// Components are clamped where a colour is made from numbers, so a colour is always drawable.
/// The renderer premultiplies when it draws.
public struct Color: Hashable, Sendable, CustomStringConvertible {
    public var red: Double
    public var green: Double
    public var blue: Double
    public var alpha: Double

    @inlinable public init(red: Double, green: Double, blue: Double, alpha: Double = 1) {
        self.red = Color.clamp(red)
        self.green = Color.clamp(green)
        self.blue = Color.clamp(blue)
        self.alpha = Color.clamp(alpha)
    }

    @inlinable static func clamp(_ v: Double) -> Double { v.isNaN ? 0 : Swift.min(Swift.max(v, 0), 1) }

    public static let clear = Color(red: 0, green: 0, blue: 0, alpha: 0)
    public static let black = Color(red: 0, green: 0, blue: 0, alpha: 1)
    public static let white = Color(red: 1, green: 1, blue: 1, alpha: 1)
    public static let red = Color(red: 1, green: 0, blue: 0)
    public static let green = Color(red: 0, green: 1, blue: 0)
    public static let blue = Color(red: 0, green: 0, blue: 1)

    /// The colour with each component multiplied by alpha, as the compositor blends it.
    @inlinable public var premultiplied: (Double, Double, Double, Double) {
        (red * alpha, green * alpha, blue * alpha, alpha)
    }

    /// Parses `#RGB`, `#RGBA`, `#RRGGBB` or `#RRGGBBAA` (the `#` is optional).
    /// Returns nil, rather than guessing, for anything else.
    public init?(hex: String) {
        var digits = Substring(hex)
        if digits.first == "#" { digits = digits.dropFirst() }
        var nibbles: [UInt8] = []
        nibbles.reserveCapacity(8)
        for c in digits.utf8 {
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): nibbles.append(c - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): nibbles.append(c - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): nibbles.append(c - UInt8(ascii: "A") + 10)
            default: return nil
            }
        }
        let comps: [Double]
        switch nibbles.count {
        case 3, 4: comps = nibbles.map { Double($0 * 17) / 255 }
        case 6, 8: comps = stride(from: 0, to: nibbles.count, by: 2).map { Double(nibbles[$0] * 16 + nibbles[$0 + 1]) / 255 }
        default: return nil
        }
        self.init(red: comps[0], green: comps[1], blue: comps[2], alpha: comps.count == 4 ? comps[3] : 1)
    }

    /// `#RRGGBBAA`, rounding each component to 8 bits.
    public var hexString: String {
        func byte(_ v: Double) -> String {
            let b = Int((v * 255).rounded())
            let s = String(b, radix: 16, uppercase: true)
            return s.count == 1 ? "0" + s : s
        }
        return "#" + byte(red) + byte(green) + byte(blue) + byte(alpha)
    }

    public var description: String { hexString }
}
