import Testing
@testable import LaminaCore

/// `compositingFilter` and `cornerCurve` (protocol 1.7): names, defaults, validation, and
/// Core Animation's treatment of both as switched rather than animated.
@Suite("compositingFilter and cornerCurve")
struct BlendAndCornerPropertyTests {
    @Test func namesAndDefaults() throws {
        #expect(PropertyKey(name: "compositingFilter") == .compositingFilter && PropertyKey.compositingFilter.rawValue == 70)
        #expect(PropertyKey(name: "cornerCurve") == .cornerCurve && PropertyKey.cornerCurve.rawValue == 71)
        #expect(PropertyKey.compositingFilter.minorVersion == 7 && PropertyKey.cornerCurve.minorVersion == 7)
        #expect(PropertyKey.isUserInteractionEnabled.minorVersion == 4)
        let p = LayerProperties()
        #expect(p.compositingFilter == nil && p[.compositingFilter] == .string(""))
        #expect(p.cornerCurve == .circular && p[.cornerCurve] == .string("circular"))
        #expect(PropertyKey.compositingFilter.allowedNames == ["", "multiplyBlendMode", "screenBlendMode", "overlayBlendMode",
                                                              "darkenBlendMode", "lightenBlendMode", "colorDodgeBlendMode",
                                                              "colorBurnBlendMode", "softLightBlendMode", "hardLightBlendMode",
                                                              "differenceBlendMode", "exclusionBlendMode", "plusLighter", "plusDarker"])
        #expect(PropertyKey.cornerCurve.allowedNames == ["circular", "continuous"])
    }

    @Test func setAndClear() throws {
        var p = LayerProperties()
        try p.set(.compositingFilter, .string("multiplyBlendMode"))
        try p.set(.cornerCurve, .string("continuous"))
        #expect(p.compositingFilter == .multiply && p.cornerCurve == .continuous)
        try p.set(.compositingFilter, .string(""))
        #expect(p.compositingFilter == nil)
        #expect(p.changedKeys(from: LayerProperties()) == [.cornerCurve])
    }

    /// An unknown name is refused with the value and the valid names, and nothing is stored.
    @Test func unknownNamesAreRefusedByName() throws {
        var p = LayerProperties()
        try p.set(.compositingFilter, .string("screenBlendMode"))
        #expect(throws: PropertyError.outOfRange(key: .compositingFilter, reason: "'multiply' is not one of \"\" (none), "
            + "multiplyBlendMode, screenBlendMode, overlayBlendMode, darkenBlendMode, lightenBlendMode, colorDodgeBlendMode, "
            + "colorBurnBlendMode, softLightBlendMode, hardLightBlendMode, differenceBlendMode, exclusionBlendMode, plusLighter, plusDarker")) {
            try p.set(.compositingFilter, .string("multiply"))
        }
        #expect(throws: PropertyError.outOfRange(key: .cornerCurve, reason: "'smooth' is not one of circular, continuous")) {
            try p.set(.cornerCurve, .string("smooth"))
        }
        #expect(throws: PropertyError.typeMismatch(key: .cornerCurve, expected: .string, got: .number)) {
            try p.set(.cornerCurve, .number(1))
        }
        #expect(p.compositingFilter == .screen && p.cornerCurve == .circular, "nothing else changed")
        #expect(!p.store(.cornerCurve, .string("smooth")) && !p.store(.compositingFilter, .string("multiply")))
        #expect("\(PropertyError.outOfRange(key: .cornerCurve, reason: "x"))" == "property 'cornerCurve': x")
    }

    /// Core Animation switches both (neither is interpolable): no implicit animation, and no
    /// animation key path.
    @Test func neitherAnimates() {
        #expect(!PropertyKey.compositingFilter.isAnimatable && !PropertyKey.cornerCurve.isAnimatable)
    }

    /// The continuous corner's geometry: its reach, its smoothing where the reach does not fit
    /// (a capsule stays a capsule), and the blend between the circular and continuous walks.
    @Test func continuousCornerGeometry() {
        #expect(ContinuousCorner.smoothing(radius: 10, limit: 50) == 1)
        #expect(ContinuousCorner.smoothing(radius: 50, limit: 50) == 0)
        #expect(abs(ContinuousCorner.reach(radius: 10, limit: 50) - 15.2866483) < 1e-9)
        #expect(ContinuousCorner.reach(radius: 50, limit: 50) == 50)
        // Between: the reach is exactly the limit.
        #expect(abs(ContinuousCorner.reach(radius: 40, limit: 50) - 50) < 1e-9)
        let circular = ContinuousCorner.blendedPoints(smoothing: 0), continuous = ContinuousCorner.blendedPoints(smoothing: 1)
        #expect(circular.first! == (1, 0) && circular.last! == (0, 1))
        #expect(continuous.first! == (ContinuousCorner.reach, 0) && continuous.last! == (0, ContinuousCorner.reach))
        // Symmetric about the diagonal: point i mirrors point 11 - i.
        for i in 0..<12 {
            let p = continuous[i], q = continuous[11 - i]
            #expect(abs(p.a - q.b) < 1e-7 && abs(p.b - q.a) < 1e-7, "point \(i)")
        }
    }
}
