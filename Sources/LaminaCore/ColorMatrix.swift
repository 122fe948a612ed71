/// A 4×5 colour matrix on straight (unpremultiplied) RGBA, in Core Image's `CIColorMatrix`
/// order: the R, G, B and A vectors and then the bias, so
/// `red′ = R·(r, g, b, a) + bias.r` and so on.
///
/// Every colour filter (`saturate`, `brightness`, `contrast`, `invert`, `hueRotate`,
/// `colorMatrix`) is one of these, and a run of them composes into one, so laminad draws them in
/// a single shader pass. Composing skips the clamp to [0, 1] between filters (Core Image works
/// in an extended range too); the result is clamped once.
public struct ColorMatrix: Hashable, Sendable {
    /// 20 numbers: R, G, B, A vectors (4 each), then the bias vector.
    public var coefficients: [Double]

    public init(_ coefficients: [Double]) {
        precondition(coefficients.count == 20, "a colour matrix has 20 coefficients")
        self.coefficients = coefficients
    }

    public static let identity = ColorMatrix([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0])

    /// The coefficient for output `row` (0 red … 3 alpha) from input `column` (0 red … 3 alpha,
    /// 4 the bias).
    @inlinable public func at(_ row: Int, _ column: Int) -> Double {
        column == 4 ? coefficients[16 + row] : coefficients[row * 4 + column]
    }

    /// `rgba` (straight alpha) through the matrix, unclamped.
    public func apply(_ rgba: [Double]) -> [Double] {
        (0..<4).map { row in (0..<4).reduce(at(row, 4)) { $0 + at(row, $1) * rgba[$1] } }
    }

    /// The matrix that applies `self` and then `next`.
    public func then(_ next: ColorMatrix) -> ColorMatrix {
        var c = [Double](repeating: 0, count: 20)
        for row in 0..<4 {
            for col in 0..<4 {
                c[row * 4 + col] = (0..<4).reduce(0) { $0 + next.at(row, $1) * at($1, col) }
            }
            c[16 + row] = (0..<4).reduce(next.at(row, 4)) { $0 + next.at(row, $1) * at($1, 4) }
        }
        return ColorMatrix(c)
    }

    /// A matrix acting on red, green and blue by the 3×3 `m` (row-major) plus `bias`, alpha kept.
    static func rgb(_ m: [Double], bias: Double = 0) -> ColorMatrix {
        ColorMatrix([m[0], m[1], m[2], 0, m[3], m[4], m[5], 0, m[6], m[7], m[8], 0, 0, 0, 0, 1, bias, bias, bias, 0])
    }

    /// The matrix of a colour filter; nil for `gaussianBlur` or an input of the wrong size.
    public init?(_ filter: LayerFilter) {
        let v = filter.values
        switch filter.type {
        case .gaussianBlur: return nil
        case .colorMatrix:
            guard v.count == 20 else { return nil }
            self.init(v)
        case .saturate:
            guard let s = v.first else { return nil }
            // Rec. 709 luma, as the W3C saturate matrix.
            let r = 0.2126, g = 0.7152, b = 0.0722
            self = .rgb([r + (1 - r) * s, g - g * s, b - b * s,
                         r - r * s, g + (1 - g) * s, b - b * s,
                         r - r * s, g - g * s, b + (1 - b) * s])
        case .brightness:
            guard let x = v.first else { return nil }
            self = .rgb([1, 0, 0, 0, 1, 0, 0, 0, 1], bias: x)
        case .contrast:
            guard let c = v.first else { return nil }
            self = .rgb([c, 0, 0, 0, c, 0, 0, 0, c], bias: 0.5 * (1 - c))
        case .invert:
            self = .rgb([-1, 0, 0, 0, -1, 0, 0, 0, -1], bias: 1)
        case .hueRotate:
            guard let a = v.first else { return nil }
            let c = _cos(a), s = _sin(a)
            // The W3C Filter Effects hueRotate matrix.
            self = .rgb([0.213 + c * 0.787 - s * 0.213, 0.715 - c * 0.715 - s * 0.715, 0.072 - c * 0.072 + s * 0.928,
                         0.213 - c * 0.213 + s * 0.143, 0.715 + c * 0.285 + s * 0.140, 0.072 - c * 0.072 - s * 0.283,
                         0.213 - c * 0.213 - s * 0.787, 0.715 - c * 0.715 + s * 0.715, 0.072 + c * 0.928 + s * 0.072])
        }
    }
}
