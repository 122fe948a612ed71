import Foundation
import Testing
import Lamina
import LaminaCore
import LaminaProtocol

/// A 1,000-row list in a scroll layer with `scrollsOnTouch`, made by a Swift client and scrolled
/// by touches `laminactl input touch …` injects into a real laminad on the virtual clock: drag,
/// fling, rubber band and paging, checked by the pixels of screenshots at virtual times, and the
/// client's model following laminad's scroll events.
@Suite("Scrolling end to end", .serialized)
@MainActor
struct ScrollEndToEndTests {
    static let rows = 1_000
    static let rowHeight = 40.0
    /// The list fills the 320 × 240 display.
    static let viewport = Size(width: 320, height: 240)
    static let background: (UInt8, UInt8, UInt8) = (128, 128, 128)
    /// UIScrollView's deceleration as an exponential rate per second.
    static let k = -1000 * log(0.998)

    /// Row i's colour: unique for each row, and far from its neighbours'.
    static func color(_ i: Int) -> (UInt8, UInt8, UInt8) {
        (UInt8((i * 97) & 0xFF), UInt8(40 + (i / 256) * 50), UInt8(i % 2 == 0 ? 220 : 20))
    }

    let daemon: DaemonProcess
    let client: Connection
    let list: ScrollLayer

    init() throws {
        daemon = try DaemonProcess()
        client = try Connection.connect(to: daemon.socket, name: "list")
        list = ScrollLayer()
        list.frame = Rect(origin: .zero, size: Self.viewport)
        list.scrollMode = .vertically
        list.scrollsOnTouch = true
        list.masksToBounds = true
        list.backgroundColor = Color(red: 128.0 / 255, green: 128.0 / 255, blue: 128.0 / 255, alpha: 1)
        for i in 0..<Self.rows {
            let row = Layer()
            row.frame = Rect(x: 0, y: Double(i) * Self.rowHeight, width: Self.viewport.width, height: Self.rowHeight)
            let c = Self.color(i)
            row.backgroundColor = Color(red: Double(c.0) / 255, green: Double(c.1) / 255, blue: Double(c.2) / 255, alpha: 1)
            list.addSublayer(row)
        }
        client.rootLayer.addSublayer(list)
    }

    /// Runs `laminactl` with `arguments`; a failure is the test's.
    func ctl(_ arguments: String...) throws {
        let r = try daemon.laminactl(arguments)
        guard r.status == 0 else { throw DaemonError("laminactl \(arguments.joined(separator: " ")): \(r.status) \(r.output)") }
    }

    /// Touch 1 goes down at (160, y0) and moves to (160, y1) in `steps` equal moves, the clock
    /// moving 1/60 s before each.
    func drag(from y0: Double, to y1: Double, steps: Int) throws {
        try ctl("input", "touch", "down", "1", "160", "\(y0)")
        for i in 1...steps {
            try ctl("advance", "\(1.0 / 60)")
            try ctl("input", "touch", "move", "1", "160", "\(y0 + (y1 - y0) * Double(i) / Double(steps))")
        }
    }

    /// A round trip on the client's socket: the scroll events laminad sent before it are handled.
    func settle() async throws {
        _ = try await client.stats()
        await Task.yield()
    }

    /// The screenshot shows the list scrolled to `offset`: every pixel of column 160 more than 2
    /// points from a row's edge has its row's colour, the background above row 0.
    func expectShows(_ offset: Double, _ why: String, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let shot = try await client.screenshot()
        var wrong: [String] = []
        for y in 0..<Int(Self.viewport.height) {
            let content = offset + Double(y) + 0.5
            let inRow = content - (content / Self.rowHeight).rounded(.down) * Self.rowHeight
            guard abs(content) > 2, inRow > 2, inRow < Self.rowHeight - 2 else { continue }
            let want = content < 0 ? Self.background : Self.color(Int(content / Self.rowHeight))
            let p = shot.pixel(x: 160, y: y)
            if abs(Int(p.r) - Int(want.0)) > 2 || abs(Int(p.g) - Int(want.1)) > 2 || abs(Int(p.b) - Int(want.2)) > 2 {
                wrong.append("y \(y): \(p.r),\(p.g),\(p.b) not \(want)")
            }
        }
        #expect(wrong.isEmpty, "\(why): at offset \(offset), \(wrong.prefix(4))", sourceLocation: sourceLocation)
    }

    @Test("drag, fling, rubber band and paging, by injected touches, checked by pixels at virtual times")
    func dragFlingRubberBandAndPaging() async throws {
        var events: [ScrollEvent] = []
        list.onScroll = { events.append($0) }
        try await client.sync()
        try await expectShows(0, "at rest")

        // Drag: 8 moves of 20 points up. The scroll takes the touch at the first (past the 10-point
        // threshold) and follows the finger from there: 140 points.
        try drag(from: 200, to: 40, steps: 8)
        try await settle()
        try await expectShows(140, "dragged")
        #expect(list.bounds.origin == Point(x: 0, y: 140), "the client's model follows laminad's scroll events")
        #expect(events.first?.phase == .began && events.last?.phase == .moved && events.last?.offset == Point(x: 0, y: 140))
        // Held still for half a second, then lifted: no momentum.
        try ctl("advance", "0.5")
        try ctl("input", "touch", "up", "1")
        try ctl("advance", "0.1")
        try await settle()
        try await expectShows(140, "lifted after holding still")
        #expect(events.last?.phase == .ended)

        // Fling: 6 moves of 30 points a frame (1,800 points a second), lifted at once.
        try drag(from: 220, to: 40, steps: 6)
        try ctl("input", "touch", "up", "1")
        let released = 140.0 + 150
        try await expectShows(released, "flung")
        try ctl("advance", "0.25")
        let coasted = released + 1_800 * (1 - exp(-Self.k * 0.25)) / Self.k
        try await expectShows(coasted, "0.25 s of momentum")
        try ctl("advance", "5")
        let rest = released + 1_790 / Self.k
        try await expectShows(rest, "at rest where the speed fell to 10 points a second")
        try await settle()
        #expect(abs(list.bounds.origin.y - rest) < 1e-6 && events.last?.phase == .ended)

        // The client scrolls back to the top itself (no animation).
        Transaction.begin()
        Transaction.disableActions = true
        list.scroll(to: Point.zero)
        Transaction.commit()
        try await client.sync()
        try await expectShows(0, "scrolled to the top by the client")

        // Rubber band: pulled 160 points down from the top, shown (1 − 1/(x·c/d + 1))·d past it.
        try drag(from: 40, to: 200, steps: 8)
        let pulled = -(1 - 1 / (140 * 0.55 / 240 + 1)) * 240
        try await expectShows(pulled, "rubber-banded past the top")
        try ctl("advance", "0.5")
        try ctl("input", "touch", "up", "1")
        try ctl("advance", "0.1")
        let springing = try #require(try await presentedOffset())
        #expect(springing < 0 && springing > pulled, "springing back: \(springing)")
        try ctl("advance", "1")
        try await expectShows(0, "sprung back to the top")

        // Paging: a flick of 90 points settles on the next page, 240 points (the bounds) down.
        list.isPagingEnabled = true
        try await client.sync()
        try drag(from: 200, to: 80, steps: 4)
        try ctl("input", "touch", "up", "1")
        try ctl("advance", "2")
        try await expectShows(240, "paged")
        try await settle()
        #expect(list.bounds.origin == Point(x: 0, y: 240) && events.last?.phase == .ended)
    }

    /// The list's offset as laminad holds it (`laminactl tree`).
    func presentedOffset() async throws -> Double? {
        let json = try await client.treeJSON()
        guard let tree = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any],
              let clients = tree["clients"] as? [[String: Any]],
              let root = clients.first?["root"] as? [String: Any],
              let list = (root["sublayers"] as? [[String: Any]])?.first,
              let bounds = list["bounds"] as? [Double] else { return nil }
        return bounds[1]
    }

    @Test("a tap on a row reaches the row; a wheel scrolls the list; a client's set interrupts")
    func tapsWheelsAndInterruptions() async throws {
        let row = list.sublayers[2]
        var taps = 0
        row.addGestureRecognizer(TapRecognizer { _ in taps += 1 })
        var phases: [ScrollEvent.Phase] = []
        list.onScroll = { phases.append($0.phase) }
        try await client.sync()
        try ctl("input", "touch", "down", "1", "100", "100")
        try ctl("input", "touch", "move", "1", "104", "96")
        try ctl("input", "touch", "up", "1")
        try await settle()
        #expect(taps == 1 && phases.isEmpty, "under the threshold: the row's tap")
        // The wheel over the list scrolls it, within its extent.
        try ctl("input", "pointer", "move", "160", "120")
        try ctl("input", "pointer", "scroll", "0", "100")
        try ctl("advance", "0.5")
        try await expectShows(100, "wheeled")
        try await settle()
        #expect(phases == [.began, .ended] && list.bounds.origin.y == 100)
        // A fling the client interrupts by setting the origin: the scroll ends where it says.
        try drag(from: 220, to: 40, steps: 6)
        try ctl("input", "touch", "up", "1")
        try ctl("advance", "0.1")
        Transaction.begin()
        Transaction.disableActions = true
        list.scroll(to: Point(x: 0, y: 400))
        Transaction.commit()
        try await client.sync()
        try ctl("advance", "1")
        try await expectShows(400, "where the client put it")
        try await settle()
        #expect(phases.last == .interrupted && list.bounds.origin.y == 400)
        #expect(taps == 1, "the drag cancelled the row's touch: no second tap")
    }
}
