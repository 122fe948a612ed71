import Foundation
import Testing
import Lamina

/// docs/clients.md's small program — a rounded layer, an implicit fade, an explicit fade, an
/// image, a screenshot — in Swift, against a real laminad, checked in pixels at exact virtual
/// times. The Python (clients/python/tests/test_daemon.py::test_readme_program) and C
/// (clients/c/tests) clients run the same program with the same checks.
@Suite("The clients' small program, in Swift")
@MainActor
struct SameProgramTests {
    static let orange: (UInt8, UInt8, UInt8, UInt8) = (255, 136, 0, 255)
    static let black: (UInt8, UInt8, UInt8, UInt8) = (0, 0, 0, 255)

    static func near(_ p: (r: UInt8, g: UInt8, b: UInt8, a: UInt8), _ q: (UInt8, UInt8, UInt8, UInt8)) -> Bool {
        abs(Int(p.r) - Int(q.0)) <= 2 && abs(Int(p.g) - Int(q.1)) <= 2 && abs(Int(p.b) - Int(q.2)) <= 2 && abs(Int(p.a) - Int(q.3)) <= 2
    }

    @MainActor final class Stops: AnimationDelegate {
        var events: [String] = []
        func animationDidStart(_ animation: Animation, on layer: Layer) { events.append("start") }
        func animationDidStop(_ animation: Animation, on layer: Layer, finished: Bool) { events.append("stop \(finished)") }
    }

    @Test func theSmallProgram() async throws {
        let daemon = try DaemonProcess(size: "320x240")
        let c = try Connection.connect(to: daemon.socket, name: "swift")
        defer { c.close() }
        #expect(c.displaySize == Size(width: 320, height: 240) && c.clock == .virtual)

        // A rounded layer.
        let box = Layer()
        box.bounds = Rect(x: 0, y: 0, width: 100, height: 50)
        box.position = Point(x: 100, y: 100)       // frame (50, 75, 100, 50)
        box.backgroundColor = Color(hex: "#FF8800")
        box.cornerRadius = 12
        c.rootLayer.addSublayer(box)
        try await c.sync()
        #expect(box.frame == Rect(x: 50, y: 75, width: 100, height: 50))
        var shot = try await c.screenshot()
        #expect(shot.pixel(x: 100, y: 100) == Self.orange)
        #expect(shot.pixel(x: 55, y: 100) == Self.orange)   // the left edge, away from the corners
        #expect(shot.pixel(x: 51, y: 76) == Self.black)     // the top-left corner is rounded away
        #expect(shot.pixel(x: 45, y: 100) == Self.black)

        // An implicit fade: 0.25 s with the default curve, from the presentation value 1 to 0.
        var start = c.currentMediaTime
        box.opacity = 0
        try await c.sync()
        #expect(box.opacity == 0)                            // the model changes at once
        try await c.advanceClock(by: 0.125)
        let expected = 1 - TimingFunction.default.value(at: 0.5)
        #expect(abs(try await box.presentation().opacity - expected) < 1e-4)
        #expect(Self.near(try await c.screenshot().pixel(x: 100, y: 100),
                          (UInt8((255 * expected).rounded()), UInt8((136 * expected).rounded()), 0, 255)))
        try await c.advanceClock(by: start + 0.3 - c.currentMediaTime)
        #expect(try await box.presentation().opacity == 0)
        #expect(try await c.screenshot().pixel(x: 100, y: 100) == Self.black)

        // An explicit fade over 1 s, linear; actions off for the model change so it is not replaced.
        let stops = Stops()
        Transaction.begin()
        Transaction.disableActions = true
        box.opacity = 1
        Transaction.commit()
        box.add(.basic(BasicAnimation(keyPath: "opacity", fromValue: .number(1), toValue: .number(0), timing: MediaTiming(duration: 1))),
                forKey: "fade", delegate: stops)
        #expect(box.animationKeys() == ["fade"])
        try await c.sync()
        start = c.currentMediaTime
        for (t, opacity) in [(0.25, 0.75), (0.5, 0.5), (0.75, 0.25)] {
            try await c.advanceClock(by: start + t - c.currentMediaTime)
            #expect(abs(try await box.presentation().opacity - opacity) < 1e-4)
            #expect(Self.near(try await c.screenshot().pixel(x: 100, y: 100),
                              (UInt8((255 * opacity).rounded()), UInt8((136 * opacity).rounded()), 0, 255)))
        }
        try await c.advanceClock(by: 0.5)
        try await c.sync()
        #expect(stops.events == ["start", "stop true"])
        #expect(box.animationKeys().isEmpty)
        #expect(try await c.screenshot().pixel(x: 100, y: 100) == Self.orange)   // removed on completion: the model shows

        // An image: 2 × 2 RGBA pixels scaled up to 40 × 40 with nearest filtering.
        let picture = Layer()
        picture.frame = Rect(x: 200, y: 20, width: 40, height: 40)
        picture.contents = try Image(width: 2, height: 2, pixels: [255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255, 255, 255, 255, 255],
                                     connection: c)
        picture.magnificationFilter = .nearest
        c.rootLayer.addSublayer(picture)
        try await c.sync()
        shot = try await c.screenshot()
        let corners = [(210, 30), (230, 30), (210, 50), (230, 50)].map { shot.pixel(x: $0.0, y: $0.1) }
        #expect(corners.map { [$0.r, $0.g, $0.b, $0.a] } == [[255, 0, 0, 255], [0, 255, 0, 255], [0, 0, 255, 255], [255, 255, 255, 255]])
    }
}
