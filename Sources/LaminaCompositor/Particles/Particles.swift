import LaminaCore

/// One particle as it is at the evaluated time.
public struct Particle: Equatable, Sendable {
    /// Where it is, in the emitter layer's bounds coordinates (z along the layer's normal).
    public var position: SIMD3<Double>
    /// Its size factor (`scale`), never negative.
    public var scale: Double
    /// Its turn about its centre, radians.
    public var rotation: Double
    /// The colour multiplying its contents, straight alpha, each channel in [0, 1].
    public var color: Color
    /// Seconds since its birth, in its cell's time: orders `oldestFirst` and `oldestLast`.
    public var age: Double
}

/// The particles of one cell (a top-level cell, or a sub-cell shed from its parent's particles).
public struct CellParticles: Equatable, Sendable {
    /// The cell's indices from the layer's `emitterCells` down.
    public var path: [Int]
    /// The cell, as presented (its sub-cells included).
    public var cell: EmitterCell
    /// Its live particles, in draw order (`renderMode`).
    public var particles: [Particle]
}

/// An emitter layer's particles at one moment of its local time: a pure function of its
/// presented properties and that time, with no state kept between frames.
///
/// A top-level cell's local time is `τ = (t − beginTime) · speed + timeOffset` of the layer's
/// time `t`. At the rate `r = cell.birthRate × layer.birthRate` its k-th particle is born at
/// `τ_k = k / r` (k ≥ 0, while τ_k lies in the cell's active span) and lives
/// `(lifetime ± lifetimeRange) × layer.lifetime`; at age `a = τ − τ_k` it is at
/// `p0 + v·a + ½·acc·a²`, with scale, spin and colour linear in `a`. Its random values come from
/// `ParticleRandom` keyed by (seed, cell, k), so a seek or a `timeOffset` shows exactly the
/// particles that would be there. The rate is the presented one: an animated birth rate takes
/// effect as if it had always had its present value (births are re-timed, not integrated).
///
/// A sub-cell sheds from each of its parent's particles over the parent's life, its local time
/// `(parentAge − beginTime) · speed + timeOffset`, its particles starting where the parent
/// was when they were born.
public struct ParticleField: Sendable {
    public let emitter: EmitterProperties
    /// The most particles listed: the newest are kept when more are alive.
    public let limit: Int

    public init(_ emitter: EmitterProperties, limit: Int) {
        self.emitter = emitter
        self.limit = limit
    }

    /// The particles at the layer's local time `time`, cell by cell: a cell, then the sub-cells
    /// of its particles, in list order.
    public func particles(at time: Double) -> [CellParticles] {
        var memo: ParticleMemo? = nil
        return particles(at: time, memo: &memo)
    }

    /// The same particles, with the birth values of top-level cells without sub-cells kept in
    /// `memo` from one call to the next (made again whenever the emitter changes): each
    /// particle's random values, direction and place of birth are found once, not every frame.
    public func particles(at time: Double, memo: inout ParticleMemo?) -> [CellParticles] {
        var out: [CellParticles] = []
        var budget = limit
        let seedKey = ParticleRandom.mix(UInt64(Swift.max(0, Swift.min(emitter.seed, 4_294_967_295))))
        if memo != nil, memo?.emitter != emitter { memo = ParticleMemo(emitter: emitter) }
        for (i, cell) in emitter.emitterCells.enumerated() {
            let source = Source.shape(cellTime: cell.localTime(time))
            let key = ParticleRandom.key(seedKey, UInt64(i))
            if memo != nil, cell.emitterCells.isEmpty {
                // Taken out while it changes, so its records are not copied (copy on write).
                var births = memo!.cells.removeValue(forKey: i) ?? ParticleMemo.Births()
                shedKept(cell, index: i, key: key, cellTime: cell.localTime(time), births: &births, budget: &budget, into: &out)
                memo!.cells[i] = births
            } else {
                shed(cell, path: [i], key: key, from: [source], budget: &budget, into: &out)
            }
        }
        return out
    }

    /// Where a cell's particles come from: the emitter's shape, or a parent particle's path.
    enum Source {
        /// The emitter's shape, at the cell's local time now.
        case shape(cellTime: Double)
        /// A parent particle: born at `origin` with `velocity` and `acceleration`, living `life`,
        /// now `age` old; its key seeds its children.
        case particle(origin: SIMD3<Double>, velocity: SIMD3<Double>, acceleration: SIMD3<Double>, life: Double,
                      age: Double, key: UInt64)
    }

    /// A particle's birth values.
    struct Birth {
        var origin: SIMD3<Double>
        var velocity: SIMD3<Double>
        var life: Double
        var age: Double
        var key: UInt64
    }

    private func shed(_ cell: EmitterCell, path: [Int], key: UInt64, from sources: [Source], budget: inout Int,
                      into out: inout [CellParticles]) {
        let rate = cell.birthRate * emitter.birthRate
        let maxLife = (cell.lifetime + cell.lifetimeRange) * emitter.lifetime
        guard cell.isEnabled, rate > 0, maxLife > 0, budget > 0 else { return }
        // Parents that died less than a child's life ago still have live children.
        let reach = maxLife + Self.childReach(cell, lifetime: emitter.lifetime)
        // Births that die before now matter only as parents of sub-cells' particles.
        let keepsDead = !cell.emitterCells.isEmpty
        // The emission's latitude is the cell's: its cosine and sine are the same for every birth.
        let latitude = cell.emissionLatitude
        let (cosLatitude, sinLatitude) = (_cos(latitude), _sin(latitude))
        let acceleration = SIMD3(cell.xAcceleration, cell.yAcceleration, cell.zAcceleration)
        // The births, kept only when sub-cells shed from them; otherwise each live one becomes
        // its particle at once.
        var births: [Birth] = []
        var particles: [Particle] = []
        // Births counted against the budget, the dead ones skipped included (as if listed).
        var listed = 0
        for source in sources {
            guard budget - listed > 0 else { break }
            let (time, shapeBorn): (Double, Bool)
            var parentLife = Double.infinity
            switch source {
            case .shape(let t): (time, shapeBorn) = (t, true)
            case let .particle(_, _, _, life, age, _):
                guard cell.speed > 0 else { continue }
                (time, shapeBorn) = (cell.localTime(age), false)
                parentLife = life
            }
            guard let (kMin, kMax) = Self.births(cell, at: time, rate: rate, reach: reach, budget: budget - listed) else { continue }
            // One reservation for the emitter's shape (one source); parents grow the lists as they go.
            if shapeBorn {
                if keepsDead { births.reserveCapacity(Int(kMax - kMin + 1)) } else { particles.reserveCapacity(Int(kMax - kMin + 1)) }
            }
            let sourceKey: UInt64
            if case let .particle(_, _, _, _, _, k) = source { sourceKey = k } else { sourceKey = key }
            for k in kMin...kMax {
                let born = Double(k) / rate
                // A sub-cell sheds only while its parent lives: the parent's age at the birth.
                if !shapeBorn, (born - cell.timeOffset) / cell.speed + cell.beginTime >= parentLife { break }
                listed += 1
                var random = ParticleRandom(key: ParticleRandom.key(sourceKey, UInt64(k)))
                let life = (cell.lifetime + cell.lifetimeRange * random.signed()) * emitter.lifetime
                let age = time - born
                if !keepsDead, !(age < life && age >= 0) { continue }
                let m = motion(cell, random: &random, latitude: (cosLatitude, sinLatitude))
                let origin: SIMD3<Double>
                switch source {
                case .shape: origin = EmitterShapePoint.point(emitter, m.u, m.v, m.w)
                case let .particle(o, pv, pa, _, _, _):
                    let a = (born - cell.timeOffset) / cell.speed + cell.beginTime
                    origin = o + pv * a + pa * (0.5 * a * a)
                }
                let birth = Birth(origin: origin, velocity: m.velocity, life: life, age: age, key: random.state)
                if keepsDead {
                    births.append(birth)
                } else {
                    particles.append(state(of: Record(birth, cell, emitter), age: age, cell, acceleration: acceleration))
                }
            }
        }
        if keepsDead {
            particles.reserveCapacity(births.count)
            for b in births where b.age < b.life && b.age >= 0 {
                particles.append(state(of: Record(b, cell, emitter), age: b.age, cell, acceleration: acceleration))
            }
        }
        budget -= particles.count
        out.append(CellParticles(path: path, cell: cell, particles: Self.ordered(particles, emitter.renderMode)))
        guard !cell.emitterCells.isEmpty, budget > 0 else { return }
        // Children are shed by every parent born within reach, alive or not (their own lives run on).
        let parents = births.map {
            Source.particle(origin: $0.origin, velocity: $0.velocity, acceleration: acceleration, life: $0.life, age: $0.age, key: $0.key)
        }
        for (i, child) in cell.emitterCells.enumerated() {
            shed(child, path: path + [i], key: ParticleRandom.key(key, UInt64(i)), from: parents, budget: &budget, into: &out)
        }
    }

    /// A birth's values after its life (drawn first from `random`): its velocity, and the three
    /// values that place it on the emitter's shape.
    private func motion(_ cell: EmitterCell, random: inout ParticleRandom, latitude: (cos: Double, sin: Double))
        -> (velocity: SIMD3<Double>, u: Double, v: Double, w: Double) {
        let speed = (cell.velocity + cell.velocityRange * random.signed()) * emitter.velocity
        let longitude = cell.emissionLongitude + (random.unit() - 0.5) * cell.emissionRange
        let direction = SIMD3(latitude.cos * _cos(longitude), latitude.cos * _sin(longitude), latitude.sin)
        let u = random.unit(), v = random.unit(), w = random.unit()
        return (direction * speed, u, v, w)
    }

    /// `shed` for a top-level cell without sub-cells, each birth's `Record` made once and kept
    /// in `births` while it may be alive.
    private func shedKept(_ cell: EmitterCell, index: Int, key: UInt64, cellTime time: Double,
                          births: inout ParticleMemo.Births, budget: inout Int, into out: inout [CellParticles]) {
        let rate = cell.birthRate * emitter.birthRate
        let maxLife = (cell.lifetime + cell.lifetimeRange) * emitter.lifetime
        guard cell.isEnabled, rate > 0, maxLife > 0, budget > 0 else { return }
        var particles: [Particle] = []
        if let (kMin, kMax) = Self.births(cell, at: time, rate: rate, reach: maxLife, budget: budget) {
            let latitude = (_cos(cell.emissionLatitude), _sin(cell.emissionLatitude))
            births.keep(kMin...kMax) { k in
                var random = ParticleRandom(key: ParticleRandom.key(key, UInt64(k)))
                let life = (cell.lifetime + cell.lifetimeRange * random.signed()) * emitter.lifetime
                let m = motion(cell, random: &random, latitude: latitude)
                let b = Birth(origin: EmitterShapePoint.point(emitter, m.u, m.v, m.w), velocity: m.velocity,
                              life: life, age: 0, key: random.state)
                return Record(b, cell, emitter)
            }
            let acceleration = SIMD3(cell.xAcceleration, cell.yAcceleration, cell.zAcceleration)
            particles.reserveCapacity(Int(kMax - kMin + 1))
            for k in kMin...kMax {
                let r = births[k]
                let age = time - Double(k) / rate
                guard age < r.life && age >= 0 else { continue }
                particles.append(state(of: r, age: age, cell, acceleration: acceleration))
            }
        }
        budget -= particles.count
        out.append(CellParticles(path: [index], cell: cell, particles: Self.ordered(particles, emitter.renderMode)))
    }

    /// The births k (at τ_k = k / `rate`) with τ − `reach` < τ_k ≤ min(τ, the cell's end) for the
    /// cell's local time τ = `time`, the newest `budget` of them; nil when there are none.
    private static func births(_ cell: EmitterCell, at time: Double, rate: Double, reach: Double, budget: Int)
        -> (first: Int64, last: Int64)? {
        let last = Swift.min(time, cell.activeEnd.nextDown)
        guard last >= 0, (last * rate).isFinite, last * rate < 1e15 else { return nil }
        let kMax = Int64((last * rate).rounded(.down))
        let kMin = Swift.max(0, Int64(((time - reach) * rate).rounded(.down)), kMax - Int64(budget) + 1)
        return kMin <= kMax ? (kMin, kMax) : nil
    }

    /// What a particle is at birth, all but its age: where and how fast it goes, how long it
    /// lives, its scale and spin, and its colour (straight, each channel in [0, 1]).
    struct Record {
        var origin: SIMD3<Double>
        var velocity: SIMD3<Double>
        var life: Double
        var scale: Double
        var spin: Double
        var color: SIMD4<Double>

        init(_ b: Birth, _ cell: EmitterCell, _ emitter: EmitterProperties) {
            var random = ParticleRandom(key: b.key)
            origin = b.origin
            velocity = b.velocity
            life = b.life
            scale = cell.scale + cell.scaleRange * random.signed()
            spin = (cell.spin + cell.spinRange * random.signed()) * emitter.spin
            func channel(_ base: Double, _ range: Double) -> Double { Swift.min(1, Swift.max(0, base + range * random.signed())) }
            let c = cell.color
            let r = channel(c.red, cell.redRange), g = channel(c.green, cell.greenRange)
            let bl = channel(c.blue, cell.blueRange), a = channel(c.alpha, cell.alphaRange)
            color = SIMD4(r, g, bl, a)
        }
    }

    /// A particle's state at its age: position by the closed form, scale, spin and colour linear.
    private func state(of r: Record, age a: Double, _ cell: EmitterCell, acceleration: SIMD3<Double>) -> Particle {
        let scale = Swift.max(0, (r.scale + cell.scaleSpeed * a) * emitter.scale)
        func channel(_ born: Double, _ speed: Double) -> Double { Swift.min(1, Swift.max(0, born + speed * a)) }
        let color = Color(red: channel(r.color.x, cell.redSpeed), green: channel(r.color.y, cell.greenSpeed),
                          blue: channel(r.color.z, cell.blueSpeed), alpha: channel(r.color.w, cell.alphaSpeed))
        var p = r.origin + r.velocity * a + acceleration * (0.5 * a * a)
        if !emitter.preservesDepth { p.z = 0 }
        return Particle(position: p, scale: scale, rotation: r.spin * a, color: color, age: a)
    }

    /// How long after a particle's death its sub-cells' particles may still live, in its time.
    static func childReach(_ cell: EmitterCell, lifetime: Double) -> Double {
        var reach = 0.0
        for child in cell.emitterCells where child.speed > 0 {
            let life = (child.lifetime + child.lifetimeRange) * lifetime
            reach = Swift.max(reach, (life + childReach(child, lifetime: lifetime)) / child.speed)
        }
        return reach
    }

    /// `particles` (in birth order) in `mode`'s draw order.
    static func ordered(_ particles: [Particle], _ mode: EmitterRenderMode) -> [Particle] {
        switch mode {
        case .unordered, .additive, .oldestFirst: particles
        case .oldestLast: particles.reversed()
        case .backToFront: particles.sorted { $0.position.z < $1.position.z }
        }
    }
}

extension ParticleField {
    /// An upper bound on the particles `emitter` can have alive at once, from its model values:
    /// each cell's `rate × longest life + 1` per source, a sub-cell's sources being its parent's
    /// particles within reach. What a commit is checked against before anything is drawn.
    public static func capacity(of emitter: EmitterProperties) -> Double {
        func count(_ cells: [EmitterCell], sources: Double) -> Double {
            var total = 0.0
            for cell in cells where cell.isEnabled {
                let rate = cell.birthRate * emitter.birthRate
                let life = (cell.lifetime + cell.lifetimeRange) * emitter.lifetime
                guard rate > 0, life > 0 else { continue }
                total += sources * ((rate * life).rounded(.up) + 1)
                let parents = sources * ((rate * (life + childReach(cell, lifetime: emitter.lifetime))).rounded(.up) + 1)
                total += count(cell.emitterCells, sources: parents)
            }
            return total
        }
        return count(emitter.emitterCells, sources: 1)
    }
}

/// Birth values an emitter layer keeps between frames (`ParticleField.particles(at:memo:)`):
/// per top-level cell without sub-cells, the `Record` of each birth that may still be alive, made
/// once instead of every frame. Bounded by the cell's budget (the births listed in a frame);
/// made again from nothing whenever the emitter's presented values differ from `emitter`.
public struct ParticleMemo: Sendable {
    public let emitter: EmitterProperties
    var cells: [Int: Births] = [:]

    public init(emitter: EmitterProperties) { self.emitter = emitter }

    /// The records of births `first`, `first + 1`, … (from `records[head]`).
    struct Births: Sendable {
        var first: Int64 = 0
        var head = 0
        var records: [ParticleField.Record] = []

        var count: Int { records.count - head }

        /// Holds the records of `range`, made by `make` where missing; those before it go.
        mutating func keep(_ range: ClosedRange<Int64>, make: (Int64) -> ParticleField.Record) {
            let end = first + Int64(count)
            if count == 0 || range.lowerBound < first || range.lowerBound > end {
                records.removeAll(keepingCapacity: true)
                head = 0
                first = range.lowerBound
            } else {
                head += Int(range.lowerBound - first)
                first = range.lowerBound
                if head >= 1024, head * 2 >= records.count {
                    records.removeFirst(head)
                    head = 0
                }
            }
            var next = first + Int64(count)
            while next <= range.upperBound {
                records.append(make(next))
                next += 1
            }
        }

        subscript(k: Int64) -> ParticleField.Record { records[head + Int(k - first)] }
    }
}
