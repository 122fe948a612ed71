import Testing
import LaminaCore
@testable import LaminaCompositor
import LaminaTestSupport

/// A cell's particles as one draw (`DrawParticles`), and those out of view left out of it
/// (`ParticleCull`): no EGL.
@Suite("Particle draws")
struct DrawParticlesTests {
    /// A 4 × 4 cell image and an emitter layer filling `frame`, shedding still particles
    /// (velocity 0) over a rectangle as large as the layer, inside `superlayer`'s settings.
    static func list(display: (Int, Int), frame: Rect, transform: Transform3D = .identity,
                     superlayer: (inout LayerProperties) -> Void = { _ in }) throws -> DrawList {
        var outer = LayerProperties()
        outer.frame = Rect(x: 0, y: 0, width: frame.maxX + 100, height: frame.maxY + 100)
        superlayer(&outer)
        var p = LayerProperties(kind: .emitter)
        p.frame = frame
        p.transform = transform
        p.emitter.emitterPosition = Point(x: frame.width / 2, y: frame.height / 2)
        p.emitter.emitterSize = frame.size
        p.emitter.emitterShape = .rectangle
        p.emitter.seed = 3
        var cell = EmitterCell(name: "dot")
        cell.birthRate = 200
        cell.lifetime = 5
        cell.contents = 1
        p.emitter.emitterCells = [cell]
        return try emitterDrawList(width: display.0, height: display.1, imageWidth: 4, imageHeight: 4,
                                   pixels: [UInt8](repeating: 255, count: 64), holder: outer, emitter: p, at: 4)
    }

    /// The particles' centres on the display.
    static func centres(_ l: DrawList) -> [(Double, Double)] {
        l.commands.filter { $0.kind == .particles }.flatMap { c -> [(Double, Double)] in
            guard let d = c.particles else { return [] }
            return (0..<d.count).map { i in
                let v = d.instances[(i * DrawParticles.stride)...]
                let q = c.transform.apply(to: Point(x: Double(v[v.startIndex]), y: Double(v[v.startIndex + 1])))!
                return (q.x, q.y)
            }
        }
    }

    @Test("particles wholly out of view are left out; those reaching into it are drawn")
    func outOfViewLeftOut() throws {
        // 801 particles alive (200 a second for 4 s, both ends born) over 400 × 300, on a
        // 200 × 100 display.
        let whole = try Self.list(display: (1000, 1000), frame: Rect(x: 0, y: 0, width: 400, height: 300))
        let part = try Self.list(display: (200, 100), frame: Rect(x: 0, y: 0, width: 400, height: 300))
        #expect(whole.particlesDrawn == 801)
        // A 4-point square turned any way reaches 2·√2 points from its centre (and a pixel more).
        let reach = 2 * 2.0.squareRoot() + 1
        let expected = Self.centres(whole).filter { $0.0 - reach <= 200 && $0.1 - reach <= 100 }.count
        #expect(part.particlesDrawn == expected, "\(part.particlesDrawn) drawn, \(expected) within reach of the view")
        #expect(expected < 300 && expected > 100)
        #expect(Self.centres(part).allSatisfy { $0.0 - reach <= 200 && $0.1 - reach <= 100 })
    }

    @Test("a transform's scale and turn are measured on the display")
    func placedByTransform() throws {
        // Scaled by 3 about the layer's centre and turned a quarter: the view sees less of it.
        let t = Transform3D.scale(x: 3, y: 3).concatenating(.rotation(angle: .pi / 2))
        let whole = try Self.list(display: (3000, 3000), frame: Rect(x: 900, y: 900, width: 400, height: 300), transform: t)
        let part = try Self.list(display: (1200, 1150), frame: Rect(x: 900, y: 900, width: 400, height: 300), transform: t)
        let reach = 2 * 2.0.squareRoot() * 3 + 1
        let expected = Self.centres(whole).filter { $0.0 - reach <= 1200 && $0.1 - reach <= 1150 }.count
        #expect(whole.particlesDrawn == 801)
        #expect(part.particlesDrawn == expected && expected < 801 && expected > 0, "\(part.particlesDrawn) drawn, \(expected) expected")
    }

    @Test("a masksToBounds superlayer narrows the view; a perspective or no view culls nothing")
    func narrowedAndUnculled() throws {
        let frame = Rect(x: 0, y: 0, width: 400, height: 300)
        let clipped = try Self.list(display: (1000, 1000), frame: frame) {
            $0.frame = Rect(x: 0, y: 0, width: 100, height: 100)
            $0.masksToBounds = true
        }
        let whole = try Self.list(display: (1000, 1000), frame: frame)
        let reach = 2 * 2.0.squareRoot() + 1
        #expect(clipped.particlesDrawn == Self.centres(whole).filter { $0.0 - reach <= 100 && $0.1 - reach <= 100 }.count)
        var perspective = Transform3D.identity
        perspective.m34 = -1.0 / 500
        #expect((try Self.list(display: (200, 100), frame: frame, transform: perspective)).particlesDrawn == 801)
        #expect(ParticleCull(toDisplay: .identity, view: .zero) == nil, "a walk without a view (a transition's snapshot)")
        let cull = try #require(ParticleCull(toDisplay: .identity, view: Rect(x: 0, y: 0, width: 10, height: 10)))
        #expect(!cull.excludes(SIMD3(.nan, 5, 0), reach: 1), "a position that is not finite is not judged")
        #expect(cull.excludes(SIMD3(13, 5, 0), reach: 1.9) && !cull.excludes(SIMD3(13, 5, 0), reach: 2.1))
    }
}
