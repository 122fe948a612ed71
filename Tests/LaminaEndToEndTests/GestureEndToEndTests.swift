import Foundation
import Testing
import Lamina
import LaminaCore
import LaminaProtocol

/// docs/clients.md's gesture program over a real laminad on the virtual clock: pinch, rotation
/// and swipe from injected multi-touch (`laminactl input touch down 0 … / down 1 …`), and a
/// double tap that beats a single tap by the failure requirement. The Python
/// (clients/python/tests/test_gestures.py) and C (clients/c/tests) clients run the same program
/// with the same numbers.
@Suite("Gestures end to end", .serialized)
@MainActor
struct GestureEndToEndTests {
    func pad(_ frame: Rect, _ name: String) -> Layer {
        let l = Layer()
        l.frame = frame
        l.name = name
        l.backgroundColor = .blue
        return l
    }

    @Test func theGestureProgram() async throws {
        let daemon = try DaemonProcess(size: "640x480")
        let c = try Connection.connect(to: daemon.socket, name: "gestures")
        defer { c.close() }
        let tool = try Connection.connect(to: daemon.socket, name: "tool")
        defer { tool.close() }
        let pinchPad = pad(Rect(x: 0, y: 0, width: 320, height: 240), "pinch")
        let rotationPad = pad(Rect(x: 320, y: 0, width: 320, height: 240), "rotation")
        let swipePad = pad(Rect(x: 0, y: 240, width: 320, height: 240), "swipe")
        let tapPad = pad(Rect(x: 320, y: 240, width: 320, height: 240), "tap")
        for p in [pinchPad, rotationPad, swipePad, tapPad] { c.rootLayer.addSublayer(p) }

        var log: [String] = []
        func fmt(_ v: Double) -> String { String(format: "%.3f", v) }
        pinchPad.addGestureRecognizer(PinchRecognizer { r in
            log.append("pinch \(r.state) scale \(fmt(r.scale)) velocity \(fmt(r.velocity))")
        })
        rotationPad.addGestureRecognizer(RotationRecognizer { r in
            log.append("rotation \(r.state) \(fmt(r.rotation)) velocity \(fmt(r.velocity))")
        })
        swipePad.addGestureRecognizer(SwipeRecognizer { r in
            log.append("swipe \(r.direction) velocity \(fmt(r.velocity.x)),\(fmt(r.velocity.y))")
        })
        let single = TapRecognizer { r in log.append("single tap at \(fmt(r.location.x)),\(fmt(r.location.y))") }
        let double = TapRecognizer { _ in log.append("double tap") }
        double.numberOfTapsRequired = 2
        single.require(toFail: double)
        tapPad.addGestureRecognizer(single)
        tapPad.addGestureRecognizer(double)
        try await c.sync()

        func touch(_ phase: String, _ id: Int32, _ x: Double = 0, _ y: Double = 0) async throws {
            let p = Point(x: x, y: y)
            switch phase {
            case "down": try await tool.injectInput(.touchDown(id: id, at: p))
            case "move": try await tool.injectInput(.touchMotion(id: id, to: p))
            default: try await tool.injectInput(.touchUp(id: id))
            }
        }
        func advance(_ s: Double) async throws {
            _ = try await c.stats()      // the events so far are handled first
            try await c.advanceClock(by: s)
        }

        // Pinch: two fingers 100 apart move to 200 apart in two steps of 0.1 s.
        try await touch("down", 0, 110, 120)
        try await touch("down", 1, 210, 120)
        try await advance(0.1)
        try await touch("move", 0, 85, 120)
        try await touch("move", 1, 235, 120)
        try await advance(0.1)
        try await touch("move", 0, 60, 120)
        try await touch("move", 1, 260, 120)
        try await touch("up", 0)
        try await touch("up", 1)
        // Rotation: a quarter turn clockwise about the pad's centre in 0.1 s.
        try await touch("down", 0, 430, 120)
        try await touch("down", 1, 530, 120)
        try await advance(0.1)
        try await touch("move", 0, 480, 70)
        try await touch("move", 1, 480, 170)
        try await touch("up", 0)
        try await touch("up", 1)
        // Swipes: right, fast; left, too slow; up, fast.
        try await touch("down", 0, 40, 360)
        try await advance(0.1)
        try await touch("move", 0, 140, 365)
        try await touch("up", 0)
        try await touch("down", 0, 280, 300)
        try await touch("move", 0, 180, 300)
        try await advance(1)
        try await touch("up", 0)
        try await touch("down", 0, 160, 460)
        try await advance(0.05)
        try await touch("move", 0, 160, 300)
        try await touch("up", 0)
        // A double tap, then a lone tap that waits for the double tap's 0.3 s to pass.
        for _ in 0..<2 {
            try await touch("down", 0, 400, 300)
            try await touch("up", 0)
        }
        try await touch("down", 0, 500, 400)
        try await touch("up", 0)
        try await advance(0.2)
        let beforeInterval = log.count
        try await advance(0.2)

        #expect(log == [
            "pinch began scale 1.250 velocity 2.500",
            "pinch changed scale 1.500 velocity 5.000",
            "pinch changed scale 1.750 velocity 2.500",
            "pinch changed scale 2.000 velocity 5.000",
            "pinch ended scale 2.000 velocity 5.000",
            "rotation began 0.785 velocity 7.854",
            "rotation changed 1.571 velocity 15.708",
            "rotation ended 1.571 velocity 15.708",
            "swipe right velocity 1000.000,50.000",
            "swipe up velocity 0.000,-3200.000",
            "double tap",
            "single tap at 180.000,160.000",
        ])
        #expect(beforeInterval == log.count - 1)     // the single tap came only after 0.3 s
    }

    /// The same gestures from `laminactl input touch down 0 X Y / down 1 X Y / move … / up …`,
    /// the tool a kiosk's tests would use: several touch ids at once reach one layer.
    @Test func pinchRotationAndSwipeFromLaminactl() async throws {
        let daemon = try DaemonProcess(size: "640x480")
        let c = try Connection.connect(to: daemon.socket, name: "gestures")
        defer { c.close() }
        let pinchPad = pad(Rect(x: 0, y: 0, width: 320, height: 240), "pinch")
        let rotationPad = pad(Rect(x: 320, y: 0, width: 320, height: 240), "rotation")
        let swipePad = pad(Rect(x: 0, y: 240, width: 320, height: 240), "swipe")
        for p in [pinchPad, rotationPad, swipePad] { c.rootLayer.addSublayer(p) }
        var log: [String] = []
        func fmt(_ v: Double) -> String { String(format: "%.3f", v) }
        pinchPad.addGestureRecognizer(PinchRecognizer { log.append("pinch \($0.state) \(fmt($0.scale))") })
        rotationPad.addGestureRecognizer(RotationRecognizer { log.append("rotation \($0.state) \(fmt($0.rotation))") })
        swipePad.addGestureRecognizer(SwipeRecognizer { log.append("swipe \($0.direction)") })
        try await c.sync()
        func touch(_ words: String) throws {
            let r = try daemon.laminactl(["input", "touch"] + words.split(separator: " ").map(String.init))
            #expect(r.status == 0, "laminactl input touch \(words): \(r.output)")
        }
        func advance(_ s: Double) async throws {
            _ = try await c.stats()
            try await c.advanceClock(by: s)
        }
        try touch("down 0 110 120")
        try touch("down 1 210 120")
        try await advance(0.1)
        try touch("move 0 60 120")
        try touch("move 1 260 120")
        try touch("up 0")
        try touch("up 1")
        try touch("down 0 430 120")
        try touch("down 1 530 120")
        try await advance(0.1)
        try touch("move 1 430 220")
        try touch("up 1")
        try touch("up 0")
        try touch("down 0 40 360")
        try await advance(0.1)
        try touch("move 0 40 260")
        try touch("up 0")
        _ = try await c.stats()
        _ = try await eventually { log.count >= 6 }
        #expect(log == ["pinch began 1.500", "pinch changed 2.000", "pinch ended 2.000",
                        "rotation began 1.571", "rotation ended 1.571", "swipe up"])
    }
}
