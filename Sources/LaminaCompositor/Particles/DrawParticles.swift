import LaminaCore

/// One cell's particles as one instanced draw (`DrawCommand.Kind.particles`): each particle is
/// the cell's image (its `contentsRect` part) centred on the particle, `size` × its scale,
/// turned by its rotation and multiplied by its colour.
public final class DrawParticles: Sendable, Equatable {
    /// Floats per particle in `instances`: x, y, z (layer coordinates), scale, rotation
    /// (radians), then the colour premultiplied: red, green, blue, alpha.
    public static let stride = 9
    /// The pixels.
    public let source: ImageSource
    /// The part of the image shown, in unit coordinates (y down).
    public let sourceRect: Rect
    /// A particle's size at scale 1, in the emitter layer's units.
    public let size: Size
    /// `stride` floats per particle, in draw order.
    public let instances: [Float]
    /// Added to what lies below (`renderMode` additive) instead of drawn over it.
    public let additive: Bool
    /// The particles keep their z (`preservesDepth`): their reach is not the layer's plane.
    public let preservesDepth: Bool
    public let minificationFilter: ContentsFilter
    public let magnificationFilter: ContentsFilter

    public var count: Int { instances.count / Self.stride }

    public init(source: ImageSource, sourceRect: Rect, size: Size, instances: [Float], additive: Bool,
                preservesDepth: Bool = false, minificationFilter: ContentsFilter = .linear,
                magnificationFilter: ContentsFilter = .linear) {
        self.source = source
        self.sourceRect = sourceRect
        self.size = size
        self.instances = instances
        self.additive = additive
        self.preservesDepth = preservesDepth
        self.minificationFilter = minificationFilter
        self.magnificationFilter = magnificationFilter
    }

    public static func == (a: DrawParticles, b: DrawParticles) -> Bool {
        a.source === b.source && a.sourceRect == b.sourceRect && a.size == b.size && a.additive == b.additive
            && a.preservesDepth == b.preservesDepth && a.minificationFilter == b.minificationFilter
            && a.magnificationFilter == b.magnificationFilter && a.instances == b.instances
    }

    /// The draw of `cell`'s `particles` showing `source`, and the rectangle (layer coordinates)
    /// every particle lies in, turned any way; nil when nothing would show.
    static func make(_ cell: EmitterCell, _ particles: [Particle], source: ImageSource, additive: Bool,
                     preservesDepth: Bool) -> (DrawParticles, Rect)? {
        let r = cell.contentsRect
        let scale = cell.contentsScale > 0 ? cell.contentsScale : 1
        let size = Size(width: abs(r.width) * Double(source.width) / scale, height: abs(r.height) * Double(source.height) / scale)
        guard size.width > 0, size.height > 0, !particles.isEmpty else { return nil }
        let halfDiagonal = (size.width * size.width + size.height * size.height).squareRoot() / 2
        var instances: [Float] = []
        instances.reserveCapacity(particles.count * stride)
        var minX = Double.infinity, minY = Double.infinity, maxX = -Double.infinity, maxY = -Double.infinity
        for p in particles where p.scale > 0 && p.color.alpha > 0 {
            let c = p.color
            // One append per lane: an array literal here would allocate for every particle.
            instances.append(Float(p.position.x)); instances.append(Float(p.position.y))
            instances.append(Float(p.position.z)); instances.append(Float(p.scale)); instances.append(Float(p.rotation))
            instances.append(Float(c.red * c.alpha)); instances.append(Float(c.green * c.alpha))
            instances.append(Float(c.blue * c.alpha)); instances.append(Float(c.alpha))
            let reach = halfDiagonal * p.scale
            minX = Swift.min(minX, p.position.x - reach); maxX = Swift.max(maxX, p.position.x + reach)
            minY = Swift.min(minY, p.position.y - reach); maxY = Swift.max(maxY, p.position.y + reach)
        }
        guard !instances.isEmpty, minX.isFinite, minY.isFinite, maxX.isFinite, maxY.isFinite else { return nil }
        let draw = DrawParticles(source: source, sourceRect: r, size: size, instances: instances, additive: additive,
                                 preservesDepth: preservesDepth, minificationFilter: cell.minificationFilter,
                                 magnificationFilter: cell.magnificationFilter)
        return (draw, Rect(x: minX, y: minY, width: maxX - minX, height: maxY - minY))
    }
}

/// How many particles the walk may list: per emitter layer and per client tree in a frame
/// (`[limits] max_particles_per_layer`, `max_particles_per_client`).
public struct ParticleLimits: Sendable, Equatable {
    public var perLayer: Int
    public var perClient: Int
    public init(perLayer: Int = 10_000, perClient: Int = 50_000) {
        self.perLayer = perLayer
        self.perClient = perClient
    }
}

extension RenderWalk {
    /// An emitter layer's particles at its local time, one `particles` command per cell whose
    /// image exists, above its contents and below its sublayers; each cell's particles bounded
    /// by what is left of the layer's and the client's budgets. With `particleMemos`, the
    /// layer's birth values are kept from frame to frame (`ParticleMemo`).
    mutating func appendParticles(_ id: LayerID, _ p: LayerProperties, opacity: Double, localTime: Double, toDisplay: Transform3D,
                                  into commands: inout [DrawCommand]) {
        let e = p.emitter
        guard e.emitterCells.contains(where: { $0.isEnabled && $0.birthRate > 0 }), e.birthRate > 0 else { return }
        liveEmitters += 1
        let limit = Swift.min(particleLimits.perLayer, particlesLeft)
        guard limit > 0, localTime.isFinite else { return }
        // Birth values kept from the last frame where the list is built with a cache.
        var memo = particleMemos?.take(serial, id, emitter: e)
        let cells = ParticleField(e, limit: limit).particles(at: localTime, memo: &memo)
        if let memo { particleMemos?.put(serial, id, memo) }
        for c in cells {
            particlesLeft -= c.particles.count
            guard c.cell.contents != 0, let source = tree.images[c.cell.contents],
                  let (draw, extent) = DrawParticles.make(c.cell, c.particles, source: source,
                                                          additive: e.renderMode == .additive, preservesDepth: e.preservesDepth)
            else { continue }
            var command = DrawCommand(kind: .particles, transform: toDisplay, bounds: extent, opacity: opacity)
            command.particles = draw
            commands.append(command)
        }
    }
}
