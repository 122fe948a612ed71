import LaminaCore
@testable import LaminaCompositor
import LaminaTestSupport
import Testing

/// Sublayers out of a `masksToBounds` clip's view left out before they are walked
/// (ClipCull.swift): a scrolled list lists and draws what the same list holding only the rows
/// that can show does, whatever its rows carry (shadows, a turned row, a sublayer reaching out
/// of its row, a clipped row whose sublayer reaches into view).
@Suite("Sublayers out of a clip's view")
struct ClipCullTests {
    /// A rounded 300 × 200 list at (20, 20) scrolled `offset` points down, of 40 bordered rows
    /// 40 points tall, each with a round badge, holding only the rows `keep` admits. Row 3 is
    /// turned, every fifth casts a shadow; with `reaching`, row 9's badge hangs 60 points
    /// below it, past the rows' right edge (out of its row, not clipped) and row 11 masks to its bounds around a sublayer
    /// 200 points tall.
    static func list(offset: Double, reaching: Bool = false, keep: (Int) -> Bool = { _ in true }) throws -> DrawList {
        var rows: [SceneLayer] = []
        for i in 0..<40 where keep(i) {
            var badge = SceneLayer(frame: Rect(6, 6, 24, 24), color: rgb(250, 250, 250)) { $0.cornerRadius = 12 }
            if reaching, i == 9 { badge.properties.frame = Rect(282, 96, 24, 24) }
            if reaching, i == 11 { badge.properties.frame = Rect(40, -100, 30, 200) }
            rows.append(SceneLayer(frame: Rect(10, Double(i) * 40, 280, 36), color: rgb(40 + i * 5, 120, 250 - i * 5),
                                   sublayers: [badge]) {
                $0.cornerRadius = 8
                $0.borderWidth = 2
                $0.borderColor = rgb(255, 255, 255)
                if i % 5 == 2 { $0.shadowOpacity = 0.7; $0.shadowRadius = 4; $0.shadowOffset = Size(width: 2, height: 3) }
                if i == 3 { $0.transform = .rotation(angle: 0.05) }
                if reaching, i == 11 { $0.masksToBounds = true }
            })
        }
        let list = SceneLayer(.scroll, frame: Rect(20, 20, 300, 200), color: rgb(30, 30, 30), sublayers: rows) {
            $0.masksToBounds = true
            $0.cornerRadius = 16
            $0.bounds.origin = Point(x: 0, y: offset)
        }
        return try drawList([list], width: 340, height: 240, background: rgb(0, 0, 0))
    }

    /// Whether row `i` lies (with a generous 30 points for shadows and the turn) near enough the
    /// view at `offset` to show: the reference lists only these.
    static func nearView(_ i: Int, offset: Double) -> Bool {
        let top = Double(i) * 40, bottom = top + 36
        return bottom > offset - 30 && top < offset + 200 + 30
    }

    @Test("the list is that of the rows that can show", arguments: [0.0, 55.37, 97.25, 640, 1423.5, -30])
    func sameList(offset: Double) throws {
        let culled = try Self.list(offset: offset)
        let reference = try Self.list(offset: offset) { Self.nearView($0, offset: offset) }
        #expect(culled.commands == reference.commands,
                "offset \(offset): \(culled.commands.count) commands against \(reference.commands.count)")
    }

    @Test("sublayers reaching into view from rows out of it are drawn; the pixels are the reference's",
          arguments: [110.0, 190, 300, 420])
    func reachingSublayers(offset: Double) throws {
        let culled = try Self.list(offset: offset, reaching: true)
        // Rows 9 and 11 kept whatever the offset: what they hold may show.
        let reference = try Self.list(offset: offset, reaching: true) { Self.nearView($0, offset: offset) || $0 == 9 || $0 == 11 }
        let backend = try HeadlessDisplay(width: 340, height: 240)
        backend.damageTracking = false
        try backend.present(culled)
        let a = try backend.screenshot()
        try backend.present(reference)
        let d = a.difference(from: try backend.screenshot())
        #expect(d.worst == 0, "offset \(offset): largest channel difference \(d.worst) (\(d.differing) pixels differ)")
        // Row 9's badge (list x 292…316, y 456…480) shows at offset 420 (view 420…620) right of
        // the rows, where its row (y 360…396) does not.
        if offset == 420 {
            #expect(a.pixel(x: 20 + 295, y: 20 + 468 - 420) == (250, 250, 250, 255))
        }
    }
}
