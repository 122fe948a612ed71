import LaminaCore
@testable import LaminaCompositor
import LaminaTestSupport
import Testing

/// A `masksToBounds` clip kept only around the sublayers it cuts (`ClipPartition`): a scrolled
/// list's rows out of view are not listed, rows wholly in view are drawn unclipped, and the
/// pixels are those of the list drawn whole inside the clip.
@Suite("Clips narrowed to the sublayers they cut")
struct ClipPartitionTests {
    /// A rounded 300 × 200 list at (20, 20), scrolled 55 points down, of 40 rounded, bordered,
    /// shadowed rows 40 points tall, each with a round badge; one row turned.
    static func list(offset: Double = 55, radius: Double = 16) throws -> DrawList {
        var rows: [SceneLayer] = []
        for i in 0..<40 {
            rows.append(SceneLayer(frame: Rect(10, Double(i) * 40, 280, 36), color: rgb(40 + i * 5, 120, 250 - i * 5),
                                   sublayers: [SceneLayer(frame: Rect(6, 6, 24, 24), color: rgb(250, 250, 250)) { $0.cornerRadius = 12 }]) {
                $0.cornerRadius = 8
                $0.borderWidth = 2
                $0.borderColor = rgb(255, 255, 255)
                if i % 5 == 2 { $0.shadowOpacity = 0.7; $0.shadowRadius = 4; $0.shadowOffset = Size(width: 2, height: 3) }
                if i == 3 { $0.transform = .rotation(angle: 0.05) }
            })
        }
        let list = SceneLayer(.scroll, frame: Rect(20, 20, 300, 200), color: rgb(30, 30, 30), sublayers: rows) {
            $0.masksToBounds = true
            $0.cornerRadius = radius
            $0.bounds.origin = Point(x: 0, y: offset)
        }
        return try drawList([list], width: 340, height: 240, background: rgb(0, 0, 0))
    }

    /// `list` with every sublayer back inside one clip: what the builder listed before.
    static func wholeClip(_ list: DrawList) -> DrawList {
        var out = list
        guard let first = list.commands.firstIndex(where: { $0.kind == .pushClip }) else { return out }
        let clip = list.commands[first]
        var inner: [DrawCommand] = []
        var last = first
        var depth = 0
        for (i, c) in list.commands.enumerated().dropFirst(first) {
            if c.kind == .pushClip, c == clip, depth == 0 { last = i; continue }
            if c.kind == .popClip, depth == 0 { last = i; continue }
            // Past the list's sublayers: its border (drawn after them), if any.
            if c.kind == .layer, c.bounds == clip.bounds, c.transform == clip.transform { break }
            if c.kind == .pushClip || c.kind == .beginGroup { depth += 1 }
            if c.kind == .popClip || c.kind == .endGroup || c.kind == .endMask { depth -= 1 }
            inner.append(c)
            last = i
        }
        out.commands = Array(list.commands[..<first]) + [clip] + inner + [DrawCommand(kind: .popClip)] + Array(list.commands[(last + 1)...])
        return out
    }

    @Test("rows out of view are dropped and rows in view are unclipped; the pixels are unchanged")
    func samePixels() throws {
        let narrowed = try Self.list()
        let clips = narrowed.commands.filter { $0.kind == .pushClip }.count
        let layers = narrowed.commands.filter { $0.kind == .layer }.count
        // 200 points show 6 rows (55…255): rows 1 to 6 (a fill, a badge and a border each), of
        // which the first and the last are cut.
        #expect(layers == 1 + 6 * 3, "rows out of view are not listed (\(layers) layer draws): \(narrowed.commands.map { "\($0.kind)" }.joined(separator: " "))")
        #expect(clips == 2, "the clip is kept around the two rows it cuts (\(clips) clips)")
        let whole = Self.wholeClip(narrowed)
        #expect(whole.commands.filter { $0.kind == .pushClip }.count == 1)
        let backend = try HeadlessDisplay(width: 340, height: 240)
        backend.damageTracking = false
        try backend.present(narrowed)
        let a = try backend.screenshot()
        try backend.present(whole)
        let b = try backend.screenshot()
        let d = a.difference(from: b)
        #expect(d.worst <= 1, "largest channel difference \(d.worst) (\(d.differing) pixels differ)")
        // Something of the list shows: a row's colour in the middle, the list's corner rounded away.
        #expect(a.pixel(x: 160, y: 120).b > 100 && a.pixel(x: 21, y: 21) == (0, 0, 0, 255))
    }

    @Test("the same pixels at any offset, with and without rounded corners", arguments: [(0.0, 16.0), (55.37, 16.0), (1423.5, 16.0), (-30, 0), (97.25, 0)])
    func samePixelsAnywhere(offset: Double, radius: Double) throws {
        let narrowed = try Self.list(offset: offset, radius: radius)
        let whole = Self.wholeClip(narrowed)
        let backend = try HeadlessDisplay(width: 340, height: 240)
        backend.damageTracking = false
        try backend.present(narrowed)
        let a = try backend.screenshot()
        try backend.present(whole)
        let d = a.difference(from: try backend.screenshot())
        #expect(d.worst <= 1, "offset \(offset): largest channel difference \(d.worst) (\(d.differing) pixels differ)")
        #expect(narrowed.commands.filter { $0.kind == .layer }.count < 30, "rows out of view are not listed")
    }
}

/// The clip region's tests, without drawing.
@Suite("Clip regions")
struct ClipRegionTests {
    static func clip(_ r: Rect, radius: Double, transform: Transform3D = .identity) -> DrawCommand {
        var c = DrawCommand(kind: .pushClip, transform: transform, bounds: r)
        c.cornerRadii = CornerRadii(minXMinY: radius, maxXMinY: radius, maxXMaxY: radius, minXMaxY: radius)
        return c
    }

    @Test func insideOutsideAndCut() throws {
        let region = try #require(ClipPartition.region(of: Self.clip(Rect(0, 0, 100, 100), radius: 20)))
        #expect(region.contains(PixelBox(x0: 1, y0: 30, x1: 99, y1: 70)), "a band across the middle, clear of the corners")
        #expect(!region.contains(PixelBox(x0: 0, y0: 30, x1: 99, y1: 70)), "touching the edge: antialiased there")
        #expect(!region.contains(PixelBox(x0: 2, y0: 2, x1: 30, y1: 30)), "in the rounded-off corner")
        #expect(region.contains(PixelBox(x0: 8, y0: 8, x1: 30, y1: 30)), "inside the corner's arc")
        #expect(region.excludes(PixelBox(x0: 0, y0: 102, x1: 100, y1: 140)) && !region.excludes(PixelBox(x0: 0, y0: 100, x1: 100, y1: 140)))
        // Only axis-aligned clips are narrowed.
        #expect(ClipPartition.region(of: Self.clip(Rect(0, 0, 100, 100), radius: 0, transform: .rotation(angle: 0.1))) == nil)
        #expect(ClipPartition.region(of: Self.clip(Rect(0, 0, 100, 100), radius: 0, transform: .scale(x: 2, y: 3))) != nil)
        // A plane seen in perspective (its w varies over it).
        var perspective = Transform3D.identity
        perspective.m24 = -0.002
        #expect(ClipPartition.region(of: Self.clip(Rect(0, 0, 100, 100), radius: 0, transform: perspective)) == nil)
    }
}
