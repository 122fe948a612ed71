import Foundation
import LaminaCore
@testable import LaminaGLES
import LaminaCompositor
import Testing
import LaminaTestSupport
import LaminaGPUChecks

/// `cornerCurve = continuous`: the background, the border, the `masksToBounds` clip and the
/// shadow of a continuous-cornered layer, drawn by the renderer, against the curve's own
/// definition flattened on the CPU (`ContinuousCornerProfile`, shared with lamina-gpu-check):
/// PaintCode's reverse-engineering of UIKit's rounded rectangle (three cubic Béziers per corner,
/// leaving each edge 1.52866483 radii from the corner), blended towards the circular corner
/// where that reach does not fit in half the shorter side.
@Suite("Continuous corners")
struct ContinuousCornerTests {
    typealias Profile = ContinuousCornerProfile

    /// The fraction of pixel (x, y) inside the rectangle `r` with continuous corners of `radius`,
    /// by 16 × 16 samples.
    static func coverage(_ x: Int, _ y: Int, _ r: Rect, radius: Double) -> Double {
        let profile = Profile(radius: radius, limit: min(r.width, r.height) / 2)
        return coverage(x, y, r, radius: radius, profile: profile)
    }

    static func coverage(_ x: Int, _ y: Int, _ r: Rect, radius: Double, profile: Profile) -> Double {
        profile.coverage(x, y, r, radius: radius)
    }

    static func render(_ layers: [SceneLayer], width: Int, height: Int) throws -> Bitmap {
        let display = try HeadlessDisplay(width: width, height: height)
        try display.present(try drawList(layers, width: width, height: height, background: .black))
        return try display.screenshot()
    }

    /// How far `image`'s red channel is from `expected` coverage (0…1) over the given pixels:
    /// the worst and the mean difference, in units of full intensity.
    static func error(_ image: Bitmap, _ pixels: [(Int, Int)], expected: (Int, Int) -> Double) -> (worst: Double, mean: Double, at: (Int, Int)) {
        var worst = 0.0, sum = 0.0, at = (0, 0)
        for (x, y) in pixels {
            let d = abs(Double(image.pixel(x: x, y: y).r) / 255 - expected(x, y))
            sum += d
            if d > worst { (worst, at) = (d, (x, y)) }
        }
        return (worst, sum / Double(max(1, pixels.count)), at)
    }

    /// The pixels of the four corner squares (reach + 2 pixels) of `r`.
    static func cornerPixels(_ r: Rect, reach: Double) -> [(Int, Int)] {
        let n = Int(reach.rounded(.up)) + 2
        var out: [(Int, Int)] = []
        for y in Int(r.minY) - 2 ..< Int(r.maxY) + 2 {
            for x in Int(r.minX) - 2 ..< Int(r.maxX) + 2 {
                let nearX = x < Int(r.minX) + n || x >= Int(r.maxX) - n, nearY = y < Int(r.minY) + n || y >= Int(r.maxY) - n
                if nearX && nearY { out.append((x, y)) }
            }
        }
        return out
    }

    @Test("the background follows the continuous curve", arguments: [
        (Rect(x: 20, y: 16, width: 200, height: 120), 30.0),   // the full curve: 1.53 radii fit
        (Rect(x: 17, y: 13, width: 121, height: 61), 24.0),     // blended towards circular
        (Rect(x: 30, y: 30, width: 100, height: 100), 50.0),    // a circle
        (Rect(x: 10.5, y: 12.25, width: 150, height: 90), 12.0),
    ])
    func background(frame: Rect, radius: Double) throws {
        let image = try Self.render([SceneLayer(frame: frame, color: .white) {
            $0.cornerRadius = radius
            $0.cornerCurve = .continuous
        }], width: 240, height: 160)
        let profile = Profile(radius: radius, limit: min(frame.width, frame.height) / 2)
        let pixels = Self.cornerPixels(frame, reach: profile.reach * radius)
        let e = Self.error(image, pixels) { Self.coverage($0, $1, frame, radius: radius, profile: profile) }
        #expect(e.worst <= 0.1, "worst \(e.worst) at \(e.at)")
        #expect(e.mean <= 0.01, "mean \(e.mean)")
        if radius >= 20, profile.reach > 1.4 {
            // The test has teeth: a circular corner of the same radius is a pixel off along
            // much of the curve (the two agree at the diagonal).
            let circular = Profile(radius: radius, limit: radius)
            let c = Self.error(image, pixels) { Self.coverage($0, $1, frame, radius: radius, profile: circular) }
            #expect(c.worst >= 0.3 && c.mean >= 4 * e.mean, "a circular corner would differ (worst \(c.worst), mean \(c.mean))")
        }
    }

    @Test("circular corners stay as they were")
    func circularUnchanged() throws {
        let frame = Rect(x: 20, y: 16, width: 200, height: 120)
        let image = try Self.render([SceneLayer(frame: frame, color: .white) { $0.cornerRadius = 30 }], width: 240, height: 160)
        let pixels = Self.cornerPixels(frame, reach: 30)
        let e = Self.error(image, pixels) { x, y in
            var inside = 0
            for j in 0..<16 {
                for i in 0..<16 {
                    let px = Double(x) + (Double(i) + 0.5) / 16, py = Double(y) + (Double(j) + 0.5) / 16
                    let dx = max(frame.minX + 30 - px, px - (frame.maxX - 30), 0), dy = max(frame.minY + 30 - py, py - (frame.maxY - 30), 0)
                    let within = px >= frame.minX && px <= frame.maxX && py >= frame.minY && py <= frame.maxY
                    if within, dx * dx + dy * dy <= 900 { inside += 1 }
                }
            }
            return Double(inside) / 256
        }
        #expect(e.worst <= 0.1 && e.mean <= 0.01, "worst \(e.worst) at \(e.at), mean \(e.mean)")
    }

    @Test("the border's outer and inner edges are continuous curves")
    func border() throws {
        let frame = Rect(x: 20, y: 16, width: 200, height: 120), w = 8.0
        let image = try Self.render([SceneLayer(frame: frame, color: .black) {
            $0.cornerRadius = 32
            $0.cornerCurve = .continuous
            $0.borderWidth = w
            $0.borderColor = .white
        }], width: 240, height: 160)
        let inner = frame.insetBy(w)
        let outerProfile = Profile(radius: 32, limit: 60), innerProfile = Profile(radius: 32 - w, limit: 60 - w)
        let e = Self.error(image, Self.cornerPixels(frame, reach: outerProfile.reach * 32)) { x, y in
            Self.coverage(x, y, frame, radius: 32, profile: outerProfile) - Self.coverage(x, y, inner, radius: 32 - w, profile: innerProfile)
        }
        #expect(e.worst <= 0.12 && e.mean <= 0.01, "worst \(e.worst) at \(e.at), mean \(e.mean)")
    }

    @Test("masksToBounds clips to the continuous curve")
    func clip() throws {
        let frame = Rect(x: 20, y: 16, width: 200, height: 120)
        let image = try Self.render([SceneLayer(frame: frame, color: .clear,
                                                sublayers: [SceneLayer(frame: Rect(x: -10, y: -10, width: 220, height: 140), color: .white)]) {
            $0.cornerRadius = 30
            $0.cornerCurve = .continuous
            $0.masksToBounds = true
        }], width: 240, height: 160)
        let profile = Profile(radius: 30, limit: 60)
        let e = Self.error(image, Self.cornerPixels(frame, reach: profile.reach * 30)) {
            Self.coverage($0, $1, frame, radius: 30, profile: profile)
        }
        #expect(e.worst <= 0.1 && e.mean <= 0.01, "worst \(e.worst) at \(e.at), mean \(e.mean)")
    }

    /// A CPU reference for a shadow: the shape's coverage (4 × 4 samples a pixel) blurred with a
    /// Gaussian of standard deviation `sigma`, over `region` (red, 0…255).
    static func blurredCoverage(_ frame: Rect, _ profile: Profile, radius: Double, sigma: Double,
                                region: (x: Range<Int>, y: Range<Int>)) -> (Int, Int) -> Double {
        let reach = Int((3 * sigma).rounded(.up)) + 1
        let x0 = region.x.lowerBound - reach, y0 = region.y.lowerBound - reach
        let w = region.x.count + 2 * reach, h = region.y.count + 2 * reach
        var coverage = [Double](repeating: 0, count: w * h)
        for j in 0..<h {
            for i in 0..<w {
                var inside = 0
                for sy in 0..<4 {
                    for sx in 0..<4 {
                        let px = Double(x0 + i) + (Double(sx) + 0.5) / 4, py = Double(y0 + j) + (Double(sy) + 0.5) / 4
                        let a = min(px - frame.minX, frame.maxX - px) / radius, b = min(py - frame.minY, frame.maxY - py) / radius
                        if profile.contains(a: a, b: b) { inside += 1 }
                    }
                }
                coverage[j * w + i] = Double(inside) / 16
            }
        }
        var weights = (-reach...reach).map { exp(-Double($0 * $0) / (2 * sigma * sigma)) }
        let total = weights.reduce(0, +)
        weights = weights.map { $0 / total }
        var across = coverage
        for j in 0..<h {
            for i in 0..<w {
                var sum = 0.0
                for d in -reach...reach { sum += coverage[j * w + min(max(i + d, 0), w - 1)] * weights[d + reach] }
                across[j * w + i] = sum
            }
        }
        return { x, y in
            var sum = 0.0
            for d in -reach...reach { sum += across[min(max(y - y0 + d, 0), h - 1) * w + (x - x0)] * weights[d + reach] }
            return sum * 255
        }
    }

    /// The closed-form shadow of a continuous layer (sigma 3) around a corner, against a CPU
    /// Gaussian of the curve's coverage; the shadow of a circular corner is further from it.
    @Test("the shadow follows the continuous curve")
    func shadow() throws {
        let frame = Rect(x: 40, y: 30, width: 160, height: 100)
        func render(_ curve: CornerCurve) throws -> Bitmap {
            try Self.render([SceneLayer(frame: frame, color: .white) {
                $0.cornerRadius = 36
                $0.cornerCurve = curve
                $0.shadowOpacity = 1
                $0.shadowColor = Color(red: 1, green: 0, blue: 0, alpha: 1)
                $0.shadowRadius = 6
                $0.shadowOffset = Size(width: 0, height: 0)
            }], width: 240, height: 160)
        }
        let region = (x: 28..<100, y: 18..<80)
        let reference = Self.blurredCoverage(frame, Profile(radius: 36, limit: 50), radius: 36, sigma: 3, region: region)
        func worst(_ image: Bitmap) -> Double {
            var worst = 0.0
            // Outside the layer only: where its white does not show (green 0).
            for y in region.y { for x in region.x where image.pixel(x: x, y: y).g == 0 {
                worst = max(worst, abs(Double(image.pixel(x: x, y: y).r) - reference(x, y)))
            } }
            return worst
        }
        let continuous = try worst(render(.continuous)), circular = try worst(render(.circular))
        #expect(continuous <= 6, "the shadow is \(continuous) from the blurred curve")
        #expect(circular > continuous + 4, "a circular corner's shadow would be further off (\(circular))")
    }

    /// lamina-gpu-check's check (a bordered rectangle's draw command) passes here too.
    @Test("the GPU check passes on this renderer")
    func gpuCheck() {
        let outcome = GPUChecks.continuousCorners()
        #expect(outcome.passed, "\(outcome.text)")
    }
}
