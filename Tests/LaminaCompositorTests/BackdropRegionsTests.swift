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

    @Test("damage boxes touching a read box are drawn in one pass with it; others keep passes of their own")
    func passesKeepFarDamageApart() {
        let read = PixelBox(x0: 100, y0: 100, x1: 300, y1: 250)
        let near = PixelBox(x0: 280, y0: 240, x1: 320, y1: 260)   // reaches into the read box
        let inside = PixelBox(x0: 150, y0: 150, x1: 160, y1: 160)
        let far = PixelBox(x0: 500, y0: 10, x1: 520, y1: 30)
        let farther = PixelBox(x0: 0, y0: 400, x1: 20, y1: 420)
        let passes = BackdropRegions.passes([near, far, inside, farther], reads: [read])
        #expect(passes.count == 3)
        #expect(passes.contains(far) && passes.contains(farther))
        let merged = PixelBox(x0: 100, y0: 100, x1: 320, y1: 260)
        #expect(passes.contains(merged), "\(passes)")
        // No pass but the merged one reaches the read box.
        #expect(passes.filter { $0.intersects(read) } == [merged])
        // A merged box that grows into a second read box takes that one in too.
        let second = PixelBox(x0: 310, y0: 0, x1: 400, y1: 120)
        let chained = BackdropRegions.passes([near, far], reads: [read, second])
        #expect(chained.filter { $0.intersects(read) || $0.intersects(second) }.count == 1, "\(chained)")
        #expect(chained.contains(far))
        // Without backdrops, or with one box, nothing changes.
        #expect(BackdropRegions.passes([near, far], reads: []) == [near, far])
        #expect(BackdropRegions.passes([far], reads: [read]) == [far])
    }
}
