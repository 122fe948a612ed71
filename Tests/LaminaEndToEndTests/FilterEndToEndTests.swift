import Foundation
import Testing
import Lamina
import LaminaCore

/// `filters` on a real laminad with a virtual clock: a blur whose radius animates by key path
/// (`filters.soft.inputRadius`), and bad filters refused naming the filter.
@Suite("laminad end to end: filters", .serialized)
@MainActor
struct FilterEndToEndTests {
    @Test("a blur's radius animates by key path, and a colour filter draws")
    func blurAnimatesByKeyPath() async throws {
        let daemon = try DaemonProcess()
        let c = try Connection.connect(to: daemon.socket, name: "filters")
        let square = Layer()
        square.frame = Rect(x: 150, y: 100, width: 20, height: 20)
        square.backgroundColor = .white
        square.filters = [.gaussianBlur("soft", radius: 0)]
        let grey = Layer()
        grey.frame = Rect(x: 20, y: 20, width: 20, height: 20)
        grey.backgroundColor = Color(red: 1, green: 0, blue: 0, alpha: 1)
        grey.filters = [.amount("grey", .saturate, 0)]
        c.rootLayer.addSublayer(square)
        c.rootLayer.addSublayer(grey)
        try await c.sync()
        var shot = try await c.screenshot()
        #expect(shot.pixel(x: 146, y: 110) == (0, 0, 0, 255), "a blur of radius 0 leaves the edge sharp")
        #expect(shot.pixel(x: 160, y: 110) == (255, 255, 255, 255))
        // Red saturated to 0 is its luma, 0.2126.
        let r = Int(shot.pixel(x: 30, y: 30).r)
        #expect(abs(r - 54) <= 2 && shot.pixel(x: 30, y: 30).g == shot.pixel(x: 30, y: 30).r, "\(shot.pixel(x: 30, y: 30))")
        let widen = BasicAnimation(keyPath: "filters.soft.inputRadius", from: .number(12), to: .number(12), duration: 10)
        square.add(.basic(widen), forKey: "widen")
        try await c.sync()
        _ = try await c.advanceClock(by: 0.1)
        shot = try await c.screenshot()
        #expect(shot.pixel(x: 146, y: 110).r > 20, "the presented radius spreads the square: \(shot.pixel(x: 146, y: 110))")
        #expect(shot.pixel(x: 160, y: 110).r < 255, "and softens its middle: \(shot.pixel(x: 160, y: 110))")
        c.close()
    }

    @Test("bad filters are refused naming the filter; the layer keeps its filters")
    func badFilters() async throws {
        let daemon = try DaemonProcess()
        let c = try Connection.connect(to: daemon.socket, name: "bad filters")
        let layer = Layer()
        c.rootLayer.addSublayer(layer)
        try await c.sync()
        layer.filters = [.gaussianBlur("huge", radius: 1000)]
        await #expect { try await c.sync() } throws: { "\($0)".contains("filters.huge.inputRadius") }
        layer.filters = [.colorMatrix("m", [1, 2])]
        await #expect { try await c.sync() } throws: { "\($0)".contains("colorMatrix") }
        layer.filters = (0..<9).map { .amount("b\($0)", .brightness, 0) }
        await #expect { try await c.sync() } throws: { "\($0)".contains("limit of 8") || "\($0)".contains("at most 8 filters") }
        c.close()
    }
}
