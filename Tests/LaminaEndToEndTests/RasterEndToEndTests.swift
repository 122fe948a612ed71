import Foundation
import Testing
import Lamina
import LaminaCore
import LaminaProtocol

/// Shape and text layers drawn by a real laminad, which rasterises them on the CPU.
@Suite("Shape and text layers end to end", .serialized)
@MainActor
struct RasterEndToEndTests {
    // A stroke growing with strokeEnd: a 2 s linear animation 0 → 1 of a horizontal line's
    // strokeEnd, probed at virtual-clock times. The 100-point line runs from x = 110 to 210 on
    // screen at y = 120.
    @Test func strokeEndAnimationGrowsTheStroke() async throws {
        let daemon = try DaemonProcess(size: "320x240")
        let c = try Connection.connect(to: daemon.socket, name: "raster")
        let shape = ShapeLayer()
        shape.bounds = Rect(x: 0, y: 0, width: 100, height: 100)
        shape.position = Point(x: 160, y: 120)
        var line = Path()
        line.move(to: Point(x: 0, y: 50))
        line.addLine(to: Point(x: 100, y: 50))
        shape.path = line
        shape.fillColor = nil
        shape.strokeColor = .green
        shape.lineWidth = 10
        c.rootLayer.addSublayer(shape)
        try await c.sync()
        var grow = BasicAnimation(keyPath: "strokeEnd", fromValue: .number(0), toValue: .number(1))
        grow.duration = 2
        grow.timingFunction = .linear
        shape.add(.basic(grow), forKey: "grow")
        try await c.sync()
        let start = c.currentMediaTime

        func greenColumns() async throws -> [Int] {
            let shot = try await c.screenshot()
            return (100..<220).filter { x in shot.pixel(x: x, y: 120).g > 200 }
        }
        var ends: [Int] = []
        for t in [0.5, 1.0, 1.5] {
            try await c.advanceClock(by: start + t - c.currentMediaTime)
            let green = try await greenColumns()
            // The stroke runs from the line's start (x = 110) to 110 + 100·t/2.
            let expectedEnd = 110 + Int(100 * t / 2)
            #expect(green.first == 110, "t=\(t): stroke starts at the path's start")
            #expect(abs((green.last ?? 0) + 1 - expectedEnd) <= 1, "t=\(t): ends at \(green.last ?? -1), expected \(expectedEnd)")
            #expect(green.count == (green.last ?? 0) - 110 + 1, "t=\(t): no gaps")
            ends.append(green.last ?? 0)
        }
        #expect(ends == ends.sorted() && Set(ends).count == 3, "the stroke grows: \(ends)")
        // After the animation the model (strokeEnd 1) shows: the whole line.
        try await c.advanceClock(by: start + 2.5 - c.currentMediaTime)
        let done = try await greenColumns()
        #expect(done.first == 110 && done.last == 209)
    }

    // A text layer's string shows in its foreground colour inside its bounds, and changing the
    // string changes the pixels.
    @Test func textLayerShowsItsString() async throws {
        let daemon = try DaemonProcess(size: "320x240")
        let c = try Connection.connect(to: daemon.socket, name: "raster")
        let text = TextLayer()
        text.bounds = Rect(x: 0, y: 0, width: 200, height: 40)
        text.position = Point(x: 160, y: 120)
        text.string = "Lamina"
        text.fontSize = 24
        text.foregroundColor = .red
        c.rootLayer.addSublayer(text)
        try await c.sync()
        let shot = try await c.screenshot()
        var red = 0, outside = 0
        for y in 0..<240 {
            for x in 0..<320 {
                let p = shot.pixel(x: x, y: y)
                guard p.r > 128 else { continue }
                if x >= 60, x < 260, y >= 100, y < 140 { red += 1 } else { outside += 1 }
                #expect(p.g < 10 && p.b < 10)
            }
        }
        #expect(red > 100, "the glyphs are drawn in red")
        #expect(outside == 0, "nothing outside the bounds")
        text.string = "Lamina Lamina"
        try await c.sync()
        let longer = try await c.screenshot()
        let count = (0..<240).reduce(0) { n, y in n + (0..<320).filter { longer.pixel(x: $0, y: y).r > 128 }.count }
        #expect(count > red + red / 2, "the longer string has more ink (\(count) vs \(red))")
    }
}
