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
    /// every particle lies in, turned any way; nil when nothing would show. Particles wholly
    /// outside `cull`'s view are left out.
    static func make(_ cell: EmitterCell, _ particles: [Particle], source: ImageSource, additive: Bool,
                     preservesDepth: Bool, cull: ParticleCull? = nil) -> (DrawParticles, Rect)? {
        let r = cell.contentsRect
        let scale = cell.contentsScale > 0 ? cell.contentsScale : 1
        let size = Size(width: abs(r.width) * Double(source.width) / scale, height: abs(r.height) * Double(source.height) / scale)
        guard size.width > 0, size.height > 0, !particles.isEmpty else { return nil }
        let halfDiagonal = (size.width * size.width + size.height * size.height).squareRoot() / 2
        var instances: [Float] = []
        instances.reserveCapacity(particles.count * stride)
        var minX = Double.infinity, minY = Double.infinity, maxX = -Double.infinity, maxY = -Double.infinity
        for p in particles where p.scale > 0 && p.color.alpha > 0 {
            let reach = halfDiagonal * p.scale
            if let cull, cull.excludes(p.position, reach: reach) { continue }
            let c = p.color
            // One append per lane: an array literal here would allocate for every particle.
            instances.append(Float(p.position.x)); instances.append(Float(p.position.y))
            instances.append(Float(p.position.z)); instances.append(Float(p.scale)); instances.append(Float(p.rotation))
            instances.append(Float(c.red * c.alpha)); instances.append(Float(c.green * c.alpha))
            instances.append(Float(c.blue * c.alpha)); instances.append(Float(c.alpha))
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

/// The display's part that particles must reach to be drawn: a particle whose square, turned
/// any way, lies wholly outside it is left out of the draw before it costs a vertex. Snow falls
/// off the bottom of the screen and lives on there; a third of a 10-second fall's particles are
/// below the display at any time.
///
/// Only on an affine transform: a particle's corners then lie within its half-diagonal, times
/// the transform's largest stretch, of its centre. Inside a group that blurs or casts a shadow
/// of its pixels too: the renderer draws groups within the display (their targets are its
/// size), so nothing out of view shows through them either.
struct ParticleCull {
    let toDisplay: Transform3D
    /// Display points.
    let view: Rect
    /// The longest a layer-plane vector of length 1 becomes on the display: the largest
    /// singular value of the transform's 2 × 2 part.
    let stretch: Double

    init?(toDisplay t: Transform3D, view: Rect) {
        guard view.width > 0, view.height > 0, t.m14 == 0, t.m24 == 0, t.m34 == 0, t.m44 == 1 else { return nil }
        let squares = t.m11 * t.m11 + t.m12 * t.m12 + t.m21 * t.m21 + t.m22 * t.m22
        let det = t.m11 * t.m22 - t.m12 * t.m21
        let stretch = ((squares + Swift.max(0, squares * squares - 4 * det * det).squareRoot()) / 2).squareRoot() * (1 + 1e-9)
        guard stretch.isFinite else { return nil }
        toDisplay = t
        self.view = view
        self.stretch = stretch
    }

    /// Whether everything within `reach` (layer units) of `position` lands outside the view.
    /// A position that is not finite is kept (drawn as before: nothing).
    @inline(__always)
    func excludes(_ position: SIMD3<Double>, reach: Double) -> Bool {
        let t = toDisplay
        let x = position.x * t.m11 + position.y * t.m21 + position.z * t.m31 + t.m41
        let y = position.x * t.m12 + position.y * t.m22 + position.z * t.m32 + t.m42
        // A pixel more, for the raster's rounding.
        let r = reach * stretch + 1
        return x + r < view.minX || x - r > view.maxX || y + r < view.minY || y - r > view.maxY
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
        // Particles out of view (the display, narrowed by `masksToBounds` clips) are left out.
        let cull = ParticleCull(toDisplay: toDisplay, view: viewport)
        for c in cells {
            particlesLeft -= c.particles.count
            guard c.cell.contents != 0, let source = tree.images[c.cell.contents],
                  let (draw, extent) = DrawParticles.make(c.cell, c.particles, source: source,
                                                          additive: e.renderMode == .additive, preservesDepth: e.preservesDepth,
                                                          cull: cull)
            else { continue }
            var command = DrawCommand(kind: .particles, transform: toDisplay, bounds: extent, opacity: opacity)
            command.particles = draw
            commands.append(command)
        }
    }
}
