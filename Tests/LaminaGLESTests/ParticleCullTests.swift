import LaminaCore
import LaminaCompositor
import LaminaTestSupport
import Testing

/// Particles out of view left out of their draw (`ParticleCull`): the pixels are those of the
/// same draw list with every particle in it, turned, scaled and spinning particles at the
/// view's edges included, and with a shadow of the emitter's group (which the renderer draws
/// within the display, so particles out of view cast nothing into it either way).
@Suite("Particles out of view")
struct ParticleCullTests {
    /// Moving, turning, scaled particles of a 4 × 4 image with soft alpha over 512 × 256, on a
    /// display of `width` × `height`; with `shadow`, their superlayer casts a shadow of its
    /// pixels 100 points left and 60 up.
    static func list(width: Int, height: Int, shadow: Bool) throws -> DrawList {
        var outer = LayerProperties()
        outer.frame = Rect(x: 0, y: 0, width: 512, height: 256)
        if shadow {
            outer.shadowOpacity = 1
            outer.shadowColor = rgb(250, 40, 40)
            outer.shadowOffset = Size(width: -100, height: -60)
        }
        var p = LayerProperties(kind: .emitter)
        p.frame = Rect(x: 0, y: 0, width: 512, height: 256)
        p.emitter.emitterPosition = Point(x: 256, y: 128)
        p.emitter.emitterSize = Size(width: 512, height: 256)
        p.emitter.emitterShape = .rectangle
        p.emitter.seed = 11
        var cell = EmitterCell(name: "flake")
        cell.birthRate = 150
        cell.lifetime = 4
        cell.velocity = 30
        cell.velocityRange = 20
        cell.emissionRange = .pi
        cell.spin = 1
        cell.spinRange = 2
        cell.scale = 2
        cell.scaleRange = 1
        cell.color = Color(red: 0.9, green: 0.8, blue: 1, alpha: 0.9)
        cell.contents = 1
        p.emitter.emitterCells = [cell]
        // Premultiplied RGBA: a colour ramp whose alpha falls towards the corners.
        var pixels: [UInt8] = []
        for y in 0..<4 {
            for x in 0..<4 {
                let a = [255, 200, 120][min(2, abs(2 * x - 3) / 2 + abs(2 * y - 3) / 2)]
                pixels += [UInt8(a * (60 + 60 * x) / 255), UInt8(a * (250 - 50 * y) / 255), UInt8(a / 2), UInt8(a)]
            }
        }
        return try emitterDrawList(width: width, height: height, background: rgb(10, 20, 30), imageWidth: 4, imageHeight: 4,
                                   pixels: pixels, holder: outer, emitter: p, at: 3.3)
    }

    /// `culled` with each particle draw's particles (and extent) those of `whole`: the same
    /// emitter with nothing left out, drawn on `culled`'s display.
    static func uncut(_ culled: DrawList, _ whole: DrawList) -> DrawList {
        var l = culled
        #expect(culled.commands.map(\.kind) == whole.commands.map(\.kind))
        for (i, c) in whole.commands.enumerated() where c.kind == .particles {
            l.commands[i].particles = c.particles
            l.commands[i].bounds = c.bounds
        }
        return l
    }

    @Test("the view shows what the emitter with nothing left out shows there", arguments: [false, true])
    func sameAsWhole(shadow: Bool) throws {
        let view = try Self.list(width: 256, height: 128, shadow: shadow)
        let whole = try Self.list(width: 512, height: 256, shadow: shadow)
        // About a quarter of the particles are in view.
        let (shown, all) = (view.particlesDrawn, whole.particlesDrawn)
        #expect(all > 400)
        #expect(shown < all / 2 && shown > all / 8, "\(shown) of \(all)")

        let display = try HeadlessDisplay(width: 256, height: 128)
        display.damageTracking = false
        try display.present(view)
        let a = try display.screenshot()
        try display.present(Self.uncut(view, whole))
        let d = a.difference(from: try display.screenshot())
        #expect(d.worst == 0, "largest channel difference \(d.worst) (\(d.differing) pixels differ)")
        // Particles (and with the shadow, red shadows) do show in view.
        #expect(a.ink(x: 0..<256, y: 0..<128, channel: shadow ? 0 : 1) > 200)
    }
}
