import Foundation
import Testing
import Lamina
import LaminaCore

/// `backgroundFilters` on real laminads over the virtual clock: one tracking damage with two
/// buffers, one drawing every frame whole (`--damage off`), fed the same work. A frosted panel
/// over a rectangle that moves in and out from under it and one that moves near it: the two
/// agree at every step, the kept backdrop is drawn while nothing behind changes (stats), an input
/// animates by key path, and bad filters are refused naming the filter.
@Suite("laminad end to end: background filters", .serialized)
@MainActor
struct BackdropEndToEndTests {
    @MainActor final class Side {
        let daemon: DaemonProcess
        let c: Connection
        let mover = Layer()
        let near = Layer()
        let glass = Layer()
        let label = Layer()

        init(_ extra: [String]) throws {
            daemon = try DaemonProcess(size: "320x240", extra: extra)
            c = try Connection.connect(to: daemon.socket, name: "backdrop")
            Transaction.begin()
            Transaction.disableActions = true
            mover.frame = Rect(x: 20, y: 90, width: 60, height: 50)
            mover.backgroundColor = Color(red: 0, green: 0.8, blue: 1, alpha: 1)
            near.frame = Rect(x: 120, y: 20, width: 40, height: 20)
            near.backgroundColor = Color(red: 1, green: 0.8, blue: 0, alpha: 1)
            glass.frame = Rect(x: 100, y: 60, width: 160, height: 120)
            glass.backgroundColor = Color(red: 1, green: 1, blue: 1, alpha: 0.25)
            glass.cornerRadius = 16
            glass.backgroundFilters = [.gaussianBlur("frost", radius: 14)]
            label.frame = Rect(x: 20, y: 20, width: 60, height: 16)
            label.backgroundColor = .black
            glass.addSublayer(label)
            for l in [mover, near, glass] { c.rootLayer.addSublayer(l) }
            Transaction.commit()
        }

        func stat(_ name: String) async throws -> Double {
            try await c.stats().first { $0.name == name }?.value ?? -1
        }
    }

    @Test("a frosted panel over moving layers: damage-tracked equals --damage off, and the backdrop is kept")
    func trackedEqualsWhole() async throws {
        let tracked = try Side(["--buffers", "2"]), whole = try Side(["--damage", "off"])
        let sides = [tracked, whole]
        for step in 0..<10 {
            for s in sides {
                Transaction.begin()
                Transaction.disableActions = true
                switch step % 3 {
                case 0: s.mover.position = Point(x: 50 + Double(step) * 22, y: 115)
                case 1: s.near.position = Point(x: 140 + Double(step) * 4, y: 30 + Double(step))
                default: s.label.backgroundColor = step % 2 == 0 ? .black : Color(red: 0.5, green: 0, blue: 0, alpha: 1)
                }
                Transaction.commit()
                try await s.c.sync()
                _ = try await s.c.advanceClock(by: 0.1)
            }
            let a = try await tracked.c.screenshot(), b = try await whole.c.screenshot()
            let d = a.difference(from: b)
            #expect(d.worst <= 2, "step \(step): \(d.worst) apart at (\(d.x), \(d.y))")
        }
        #expect(try await tracked.stat("backdrop.filtered") > 0)
        #expect(try await tracked.stat("backdrop.cached") >= 2, "the label's changes drew the kept backdrop")
        // Drawn whole, the kept backdrop is as good: the label's frames draw it too.
        #expect(try await whole.stat("backdrop.cached") >= 2)
        #expect(try await tracked.stat("backdrop.skipped") == 0)
    }

    @Test("an input animates by backgroundFilters.NAME.inputRadius; bad filters are refused naming the filter")
    func keyPathsAndErrors() async throws {
        let daemon = try DaemonProcess(size: "200x120")
        let c = try Connection.connect(to: daemon.socket, name: "backdrop key paths")
        let bar = Layer()
        bar.frame = Rect(x: 95, y: 0, width: 10, height: 120)
        bar.backgroundColor = .white
        let glass = Layer()
        glass.frame = Rect(x: 50, y: 30, width: 100, height: 60)
        glass.backgroundFilters = [.gaussianBlur("frost", radius: 0)]
        c.rootLayer.addSublayer(bar)
        c.rootLayer.addSublayer(glass)
        try await c.sync()
        var shot = try await c.screenshot()
        #expect(shot.pixel(x: 90, y: 60) == (0, 0, 0, 255), "radius 0 leaves the bar sharp: \(shot.pixel(x: 90, y: 60))")
        let thicken = BasicAnimation(keyPath: "backgroundFilters.frost.inputRadius", from: .number(15), to: .number(15), duration: 10)
        glass.add(.basic(thicken), forKey: "thicken")
        try await c.sync()
        _ = try await c.advanceClock(by: 0.1)
        shot = try await c.screenshot()
        #expect(shot.pixel(x: 90, y: 60).r > 20, "the presented radius spreads the bar under the glass: \(shot.pixel(x: 90, y: 60))")
        #expect(shot.pixel(x: 90, y: 10) == (0, 0, 0, 255), "and not outside it: \(shot.pixel(x: 90, y: 10))")
        glass.backgroundFilters = [.gaussianBlur("huge", radius: 1000)]
        await #expect { try await c.sync() } throws: { "\($0)".contains("backgroundFilters.huge.inputRadius") }
        glass.backgroundFilters = [.colorMatrix("m", [1, 2])]
        await #expect { try await c.sync() } throws: { "\($0)".contains("colorMatrix") }
        c.close()
    }
}
