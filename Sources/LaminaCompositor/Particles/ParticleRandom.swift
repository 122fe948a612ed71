import LaminaCore

/// The random values of one particle: SplitMix64 seeded by a hash of the layer's seed, the
/// cell's place among the cells, the parent particle's key and the particle's birth index.
/// Counter-based, so any particle's values are found without drawing those before it: a seek,
/// a second laminad, or a second run gives the same particles.
struct ParticleRandom {
    private(set) var state: UInt64

    init(key: UInt64) { state = key }

    /// The SplitMix64 finaliser: a good 64-bit mix of `x`.
    @inline(__always)
    static func mix(_ x: UInt64) -> UInt64 {
        var z = x &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A key for `value` under `parent` (a cell's under the layer's seed, a particle's under its cell's).
    @inline(__always)
    static func key(_ parent: UInt64, _ value: UInt64) -> UInt64 { mix(parent ^ mix(value &+ 0x632B_E59B_D9B4_E019)) }

    /// The next value, uniform in [0, 1).
    @inline(__always)
    mutating func unit() -> Double {
        state = state &+ 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        z ^= z >> 31
        return Double(z >> 11) * 0x1p-53
    }

    /// The next value, uniform in [-1, 1): for `value ± range`.
    @inline(__always)
    mutating func signed() -> Double { unit() * 2 - 1 }
}

/// Where an emitter's shape puts a particle at birth (`emitterShape`, `emitterMode`), in the
/// layer's coordinates, from three uniform values.
enum EmitterShapePoint {
    static func point(_ e: EmitterProperties, _ u: Double, _ v: Double, _ w: Double) -> SIMD3<Double> {
        let c = SIMD3(e.emitterPosition.x, e.emitterPosition.y, e.emitterZPosition)
        let width = e.emitterSize.width, height = e.emitterSize.height, depth = e.emitterDepth
        let mode = e.emitterMode
        switch e.emitterShape {
        case .point:
            return c
        case .line:
            if mode == .outline { return c + SIMD3(u < 0.5 ? -width / 2 : width / 2, 0, 0) }
            return c + SIMD3((u - 0.5) * width, 0, 0)
        case .rectangle:
            if mode == .outline { return c + perimeter(u, width, height) }
            return c + SIMD3((u - 0.5) * width, (v - 0.5) * height, 0)
        case .cuboid:
            switch mode {
            case .outline: return c + perimeter(u, width, height) + SIMD3(0, 0, w < 0.5 ? -depth / 2 : depth / 2)
            case .surface: return c + SIMD3((u - 0.5) * width, (v - 0.5) * height, w < 0.5 ? -depth / 2 : depth / 2)
            default: return c + SIMD3((u - 0.5) * width, (v - 0.5) * height, (w - 0.5) * depth)
            }
        case .circle:
            let angle = 2 * Double.pi * u
            let r = width / 2 * (mode == .outline ? 1 : v.squareRoot())
            return c + SIMD3(r * _cos(angle), r * _sin(angle), 0)
        case .sphere:
            let angle = 2 * Double.pi * u, z = 2 * v - 1
            let ring = (1 - z * z).squareRoot()
            let r = width / 2 * (mode == .volume || mode == .points ? _pow(w, 1.0 / 3) : 1)
            return c + SIMD3(r * ring * _cos(angle), r * ring * _sin(angle), r * z)
        }
    }

    /// A point a fraction `u` of the way round a `width` × `height` rectangle's edge, about its centre.
    private static func perimeter(_ u: Double, _ width: Double, _ height: Double) -> SIMD3<Double> {
        let total = 2 * (width + height)
        guard total > 0 else { return .zero }
        var s = u * total
        if s < width { return SIMD3(s - width / 2, -height / 2, 0) }
        s -= width
        if s < height { return SIMD3(width / 2, s - height / 2, 0) }
        s -= height
        if s < width { return SIMD3(width / 2 - s, height / 2, 0) }
        s -= width
        return SIMD3(-width / 2, height / 2 - s, 0)
    }
}
