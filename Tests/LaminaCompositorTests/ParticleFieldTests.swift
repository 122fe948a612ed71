import Testing
import LaminaCore
@testable import LaminaCompositor

/// `ParticleField`, the emitter's particles as a pure function of its values and time: no EGL,
/// no daemon.
@Suite("Particle field")
struct ParticleFieldTests {
    static func emitter(_ configure: (inout EmitterCell) -> Void = { _ in }) -> EmitterProperties {
        var e = EmitterProperties()
        e.emitterPosition = Point(x: 50, y: 40)
        e.seed = 9
        var cell = EmitterCell(name: "c")
        cell.birthRate = 10
        cell.lifetime = 2
        configure(&cell)
        e.emitterCells = [cell]
        return e
    }

    @Test("the k-th particle is born at k / rate and lives its lifetime: rate × lifetime alive")
    func birthsAtConstantRate() {
        let e = Self.emitter()
        // At t = 5 with r = 10 and a 2 s life: births k/10 in (3, 5], 20 particles.
        let cells = ParticleField(e, limit: 1000).particles(at: 5)
        #expect(cells.count == 1)
        #expect(cells[0].particles.count == 20)
        let ages = cells[0].particles.map(\.age).sorted()
        #expect(abs(ages[0]) < 1e-9 && abs(ages[19] - 1.9) < 1e-9)
        // Before the first birth there is nothing; at 0 the first is born.
        #expect(ParticleField(e, limit: 1000).particles(at: -1)[0].particles.isEmpty)
        #expect(ParticleField(e, limit: 1000).particles(at: 0)[0].particles.count == 1)
    }

    @Test("position, scale, spin and colour follow the closed form in the particle's age")
    func closedForm() throws {
        let e = Self.emitter { c in
            c.velocity = 10
            c.emissionLongitude = 0
            c.yAcceleration = 4
            c.scale = 1
            c.scaleSpeed = 0.5
            c.spin = 2
            c.color = Color(red: 1, green: 1, blue: 1, alpha: 1)
            c.alphaSpeed = -0.25
        }
        let p = try #require(ParticleField(e, limit: 1000).particles(at: 3.05)[0].particles.first { abs($0.age - 1.25) < 1e-9 })
        let a = 1.25
        #expect(abs(p.position.x - (50 + 10 * a)) < 1e-9)
        #expect(abs(p.position.y - (40 + 0.5 * 4 * a * a)) < 1e-9)
        #expect(abs(p.scale - (1 + 0.5 * a)) < 1e-9)
        #expect(abs(p.rotation - 2 * a) < 1e-9)
        #expect(abs(p.color.alpha - (1 - 0.25 * a)) < 1e-9)
    }

    @Test("the same seed and time give the same particles; another seed others; a seek needs no history")
    func determinismAndSeek() {
        let e = Self.emitter { c in
            c.velocity = 20
            c.velocityRange = 10
            c.emissionRange = 2 * .pi
            c.scaleRange = 0.5
            c.redRange = 0.5
        }
        let a = ParticleField(e, limit: 1000).particles(at: 7.3)
        #expect(ParticleField(e, limit: 1000).particles(at: 7.3) == a)
        // Evaluating other times first changes nothing (no state).
        let field = ParticleField(e, limit: 1000)
        _ = field.particles(at: 1); _ = field.particles(at: 100)
        #expect(field.particles(at: 7.3) == a)
        var other = e
        other.seed = 10
        #expect(ParticleField(other, limit: 1000).particles(at: 7.3) != a)
        // A particle keeps its random values as time moves: its speed from t to t + 0.1 is constant.
        let later = ParticleField(e, limit: 1000).particles(at: 7.4)[0].particles
        let now = a[0].particles
        let shared = now.filter { p in later.contains { abs($0.age - p.age - 0.1) < 1e-9 } }
        #expect(shared.count == 19)
    }

    @Test("a cell's timeOffset is a seek: offset by d shows what time t + d shows")
    func timeOffsetSeeks() {
        var e = Self.emitter { c in c.velocity = 5; c.emissionRange = 1 }
        let ahead = ParticleField(e, limit: 1000).particles(at: 4.5)[0].particles
        e.emitterCells[0].timeOffset = 1.5
        #expect(ParticleField(e, limit: 1000).particles(at: 3)[0].particles == ahead)
    }

    @Test("sub-cells shed from their parents' particles, from where the parent was")
    func subCells() throws {
        let e = Self.emitter { c in
            c.birthRate = 1
            c.lifetime = 10
            c.velocity = 10
            var child = EmitterCell(name: "child")
            child.birthRate = 4
            child.lifetime = 0.5
            c.emitterCells = [child]
        }
        let cells = ParticleField(e, limit: 1000).particles(at: 0.99)
        #expect(cells.map(\.path) == [[0], [0, 0]])
        // One parent (born at 0); its children born at 0, 0.25, 0.5, 0.75, the first two dead.
        #expect(cells[0].particles.count == 1)
        let children = cells[1].particles.sorted { $0.age > $1.age }
        #expect(children.count == 2)
        let first = try #require(children.first)
        #expect(abs(first.position.x - (50 + 10 * 0.5)) < 1e-9, "born where the parent was at 0.5 s")
    }

    @Test("the limit keeps the newest particles; capacity bounds what can be alive")
    func limits() {
        let e = Self.emitter { c in c.birthRate = 1000; c.lifetime = 10 }
        let cells = ParticleField(e, limit: 100).particles(at: 20)
        #expect(cells[0].particles.count == 100)
        #expect(cells[0].particles.allSatisfy { $0.age < 0.1 })
        #expect(ParticleField.capacity(of: e) == 10_001)
        var nested = Self.emitter { c in
            var child = EmitterCell(name: "x")
            child.birthRate = 10
            child.lifetime = 1
            c.emitterCells = [child]
        }
        #expect(ParticleField.capacity(of: nested) > ParticleField.capacity(of: Self.emitter()))
        nested.birthRate = 0
        #expect(ParticleField.capacity(of: nested) == 0)
    }

    @Test("emission shapes put particles on the shape")
    func shapes() {
        for (shape, mode) in [(EmitterShape.line, EmitterMode.volume), (.rectangle, .outline), (.circle, .outline), (.sphere, .surface)] {
            var e = Self.emitter()
            e.emitterShape = shape
            e.emitterMode = mode
            e.emitterSize = Size(width: 20, height: 10)
            e.preservesDepth = true
            for p in ParticleField(e, limit: 1000).particles(at: 5)[0].particles {
                let d = p.position - SIMD3(50, 40, 0)
                switch shape {
                case .line: #expect(d.y == 0 && abs(d.x) <= 10)
                case .rectangle: #expect(abs(abs(d.x) - 10) < 1e-9 || abs(abs(d.y) - 5) < 1e-9)
                case .circle: #expect(abs((d.x * d.x + d.y * d.y).squareRoot() - 10) < 1e-9)
                default: #expect(abs((d * d).sum().squareRoot() - 10) < 1e-9)
                }
            }
        }
    }

    @Test("renderMode orders a cell's particles")
    func order() {
        var e = Self.emitter()
        e.renderMode = .oldestFirst
        let ages = ParticleField(e, limit: 1000).particles(at: 5)[0].particles.map(\.age)
        #expect(ages == ages.sorted(by: >))
        e.renderMode = .oldestLast
        let last = ParticleField(e, limit: 1000).particles(at: 5)[0].particles.map(\.age)
        #expect(last == last.sorted())
    }

    /// Birth values kept from frame to frame (`ParticleMemo`) give exactly the particles made
    /// afresh: frame by frame forward, a seek back, a jump past every kept birth, a budget that
    /// keeps only the newest, a changed emitter (made again), a sub-cell (never kept), and the
    /// shapes, ranges, speeds, depth and orders that a birth's values come from.
    @Test("kept birth values give the particles made afresh, and stay within the budget")
    func memoIsExact() {
        var e = Self.emitter { c in
            c.velocity = 30
            c.velocityRange = 10
            c.emissionRange = 1.5
            c.emissionLatitude = 0.3
            c.yAcceleration = 5
            c.zAcceleration = -2
            c.scaleRange = 0.5
            c.scaleSpeed = 0.1
            c.spinRange = 1
            c.redRange = 0.3
            c.alphaSpeed = -0.2
            c.lifetimeRange = 0.5
        }
        e.emitterShape = .rectangle
        e.emitterSize = Size(width: 100, height: 60)
        e.preservesDepth = true
        e.renderMode = .oldestLast
        var child = EmitterCell(name: "spark")
        child.birthRate = 3
        child.lifetime = 0.5
        child.velocity = 5
        var withChild = e
        withChild.emitterCells.append(EmitterCell(name: "parent"))
        withChild.emitterCells[1].birthRate = 2
        withChild.emitterCells[1].lifetime = 1
        withChild.emitterCells[1].emitterCells = [child]
        var faster = e
        faster.birthRate = 3

        var memo: ParticleMemo? = ParticleMemo(emitter: e)
        var steps: [(EmitterProperties, Int, Double)] = []
        for f in 0..<90 { steps.append((e, 1000, Double(f) / 30)) }              // forward, frame by frame
        steps += [(e, 1000, 1.2), (e, 1000, 50), (e, 1000, 50.5)]                // back, then far ahead
        steps += [(e, 7, 51), (e, 1000, 51.1), (e, 12, 51.2)]                   // the budget keeps the newest
        steps += [(faster, 1000, 51.3), (withChild, 1000, 51.4), (e, 1000, 51.5)]  // changed: made again
        for (emitter, limit, t) in steps {
            let field = ParticleField(emitter, limit: limit)
            let kept = field.particles(at: t, memo: &memo)
            #expect(kept == field.particles(at: t), "at \(t), limit \(limit)")
            // At most the births within a longest life (rate × life, and two ends), and the budget.
            let c = emitter.emitterCells[0]
            let alive = Int((c.birthRate * emitter.birthRate * (c.lifetime + c.lifetimeRange)).rounded(.up)) + 2
            let held = memo?.cells.values.map { $0.count }.max() ?? 0
            #expect(held <= min(limit, alive), "\(held) records held at \(t)")
        }
        #expect(memo?.emitter == e)
    }
}
