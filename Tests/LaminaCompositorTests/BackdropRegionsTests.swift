import Testing
import LaminaCore
@testable import LaminaCompositor

/// What a background-filtered layer reads, the damage it grows, and what its kept result
/// depends on, without drawing.
@Suite("Backdrop regions")
struct BackdropRegionsTests {
    func square(x: Double, y: Double = 10, size: Double = 20, color: Color = .red) -> DrawCommand {
        DrawCommand(transform: .translation(x: x, y: y), bounds: Rect(x: 0, y: 0, width: size, height: size), color: color, opacity: 1)
    }

    /// A 40×40 glass at (100, 30) with a blur of `radius` points.
    func glass(radius: Double = 10) -> DrawCommand {
        var c = DrawCommand(kind: .backdrop, transform: .translation(x: 100, y: 30), bounds: Rect(x: 0, y: 0, width: 40, height: 40))
        c.filters = DrawFilters([.gaussianBlur("frost", radius: radius)])
        return c
    }

    func list(_ commands: [DrawCommand]) -> DrawList {
        DrawList(width: 300, height: 200, background: .black, commands: commands)
    }

    @Test("the read box is the glass's box grown by the blur's reach, within the output")
    func readBox() {
        var extents = CommandExtents()
        let viewport = PixelBox(width: 300, height: 200)
        extents.measure([glass()], within: viewport)
        // The box 98…142 × 28…72 (the 2-pixel antialiasing margin), grown by 10 + 2 + 10.
        #expect(BackdropRegions.readBox(glass(), box: extents.boxes[0], within: viewport) == PixelBox(x0: 76, y0: 6, x1: 164, y1: 94))
        var colour = glass()
        colour.filters = DrawFilters([.amount("s", .saturate, 0)])
        #expect(BackdropRegions.readBox(colour, box: extents.boxes[0], within: viewport) == PixelBox(x0: 98, y0: 28, x1: 142, y1: 72))
        #expect(BackdropRegions.readBox(square(x: 0), box: extents.boxes[0], within: viewport).isEmpty)
    }

    @Test("a change within the blur's reach of the glass damages all the glass reads; one beyond it does not")
    func damageGrows() throws {
        var tracker = DamageTracker()
        tracker.record(list([square(x: 60, y: 40), square(x: 200, y: 150, color: .blue), glass()]))
        // Moved 60 → 66: the square's box 58…88 reaches the read box 76…164.
        let nearDamage = tracker.record(list([square(x: 66, y: 40), square(x: 200, y: 150, color: .blue), glass()]))
        let near = try #require(nearDamage)
        #expect(near.boxes.contains { $0.contains(PixelBox(x0: 76, y0: 6, x1: 164, y1: 94)) }, "\(near)")
        // The far square: its own box only.
        let farDamage = tracker.record(list([square(x: 66, y: 40), square(x: 204, y: 150, color: .blue), glass()]))
        let far = try #require(farDamage)
        #expect(far.boxes == [PixelBox(x0: 198, y0: 148, x1: 226, y1: 172)], "\(far)")
    }

    @Test("a backdrop depends on the draws before it that reach its read box, and on whole groups that do")
    func dependencies() {
        let viewport = PixelBox(width: 300, height: 200)
        let commands = [square(x: 60, y: 40), square(x: 250, y: 150),
                        DrawCommand(kind: .beginGroup, opacity: 0.5), square(x: 10, y: 10), square(x: 90, y: 40), DrawCommand(kind: .endGroup),
                        glass(), square(x: 110, y: 40)]
        var extents = CommandExtents()
        extents.measure(commands, within: viewport)
        let read = BackdropRegions.readBox(commands[6], box: extents.boxes[6], within: viewport)
        var out: [Int] = []
        BackdropRegions.dependencies(of: 6, commands, extents, read: read, into: &out)
        // Not the far square (1), the whole group (2…5) for the part that reaches, nothing after.
        #expect(out == [0, 2, 3, 4, 5])
    }
}
