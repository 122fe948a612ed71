import Foundation
import Testing
import Lamina
import LaminaCore
import LaminaProtocol

/// Transactions, actions and animations on a real laminad with a virtual clock: every value is
/// checked at exact times, through `presentation()` and through pixels.
@Suite("Animations end to end", .serialized)
@MainActor
struct AnimationTests {
    /// A connected client with one 40×40 white layer at (100, 100) on a 320×240 black display.
    @MainActor final class Fixture {
        let daemon: DaemonProcess
        let c: Connection
        let layer = Layer()
        init(size: String = "320x240") throws {
            daemon = try DaemonProcess(size: size)
            c = try Connection.connect(to: daemon.socket, name: "animations")
            layer.bounds = Rect(x: 0, y: 0, width: 40, height: 40)
            layer.position = Point(x: 100, y: 100)
            layer.backgroundColor = .white
            c.rootLayer.addSublayer(layer)
        }
        /// Advances the clock to `t` seconds after `start`.
        func at(_ t: Double, after start: Double) async throws {
            let now = c.currentMediaTime
            try await c.advanceClock(by: start + t - now)
        }
    }

    static func close(_ a: Double, _ b: Double, _ tolerance: Double = 1e-4) -> Bool { abs(a - b) <= tolerance }

    // Listing 3-1: an implicit fade, 0.25 s with the default curve (semantics.md, "Transactions").
    @Test func implicitFadeUsesTheDefaultCurve() async throws {
        let f = try Fixture()
        try await f.c.sync()
        let start = f.c.currentMediaTime
        f.layer.opacity = 0
        try await f.c.sync()
        #expect(f.layer.opacity == 0)  // the model changes at once
        try await f.at(0.125, after: start)
        var p = try await f.layer.presentation()
        let expected = 1 - TimingFunction.default.value(at: 0.5)  // from 1 to 0 at half time
        #expect(Self.close(p.opacity, expected), "opacity \(p.opacity), expected \(expected)")
        let shot = try await f.c.screenshot()
        #expect(abs(Double(shot.pixel(x: 100, y: 100).r) - 255 * expected) <= 2)
        try await f.at(0.3, after: start)
        p = try await f.layer.presentation()
        #expect(p.opacity == 0)
        #expect(try await f.c.screenshot().pixel(x: 100, y: 100) == (0, 0, 0, 255))
    }

    // Listing 3-2, as Core Animation runs it on a standalone layer: the explicit 3 s fade is added
    // under "opacity", then the model change runs the implicit action for the same key, which
    // replaces it. With actions disabled for the model change, the explicit fade plays.
    @Test func explicitFadeAndTheImplicitActionForTheSameKey() async throws {
        let f = try Fixture()
        try await f.c.sync()
        @MainActor final class Stops: AnimationDelegate {
            var stops: [Bool] = []
            func animationDidStop(_ animation: Animation, on layer: Layer, finished: Bool) { stops.append(finished) }
        }
        let stops = Stops()
        var fade = BasicAnimation(keyPath: "opacity", fromValue: .number(1), toValue: .number(0))
        fade.duration = 3
        f.layer.add(.basic(fade), forKey: "opacity", delegate: stops)
        f.layer.opacity = 0
        try await f.c.sync()
        let start = f.c.currentMediaTime
        try await f.at(0.3, after: start)
        #expect(try await f.layer.presentation().opacity == 0)  // the 0.25 s implicit fade replaced it
        _ = try await eventually { !stops.stops.isEmpty }
        #expect(stops.stops == [false])

        f.layer.opacity = 1
        Transaction.begin()
        Transaction.disableActions = true
        f.layer.opacity = 0
        f.layer.add(.basic(fade), forKey: "opacity", delegate: stops)
        Transaction.commit()
        try await f.c.sync()
        let start2 = f.c.currentMediaTime
        try await f.at(1.5, after: start2)
        #expect(Self.close(try await f.layer.presentation().opacity, 0.5))  // linear: no timing function
        try await f.at(3.1, after: start2)
        #expect(try await f.layer.presentation().opacity == 0)
        _ = try await eventually { stops.stops.count >= 2 }
        #expect(stops.stops.last == true)
        #expect(f.layer.animation(forKey: "opacity") == nil)
    }

    // Property-Based Animations, Listing 1: position (74,74) → (566,406) over 3 s with control
    // points (0.25, 0.1, 0.25, 1). Expected values solve the curve (TimingFunction, pinned in
    // LaminaCoreTests against semantics.md).
    @Test func listing1PositionOverThreeSeconds() async throws {
        let f = try Fixture()
        f.layer.position = Point(x: 74, y: 74)
        f.layer.bounds = Rect(x: 0, y: 0, width: 10, height: 10)
        try await f.c.sync()
        var move = BasicAnimation(keyPath: "position", fromValue: .point(Point(x: 74, y: 74)), toValue: .point(Point(x: 566, y: 406)))
        move.duration = 3
        move.timingFunction = TimingFunction(controlPoints: 0.25, 0.1, 0.25, 1)
        f.layer.add(.basic(move), forKey: "move")
        try await f.c.sync()
        let start = f.c.currentMediaTime
        for t in [0.0, 0.75, 1.5, 2.25, 2.99] {
            try await f.at(t, after: start)
            let y = move.timingFunction!.value(at: t / 3)
            let p = try await f.layer.presentation().position
            #expect(Self.close(p.x, 74 + 492 * y) && Self.close(p.y, 74 + 332 * y), "t=\(t): \(p)")
            // Pixels: the 10×10 layer is centred there (on a 320×240 display, only while on screen).
            if p.x < 310, p.y < 230 {
                let shot = try await f.c.screenshot()
                #expect(shot.pixel(x: Int(p.x), y: Int(p.y)) == (255, 255, 255, 255), "t=\(t)")
            }
        }
        try await f.at(3.5, after: start)
        #expect(try await f.layer.presentation().position == Point(x: 74, y: 74))  // removed: the model shows
    }

    // Listing 3-3: the two-arc bounce path, 5 s, paced by the path's own parameter (linear mode).
    // Segment boundary at 2.5 s is (320, 74); the midpoint of the first arc at 1.25 s is
    // B(0.5) = (74+3·74+3·320+320)/8, (74+3·500+3·500+74)/8 = (197, 393.5).
    @Test func listing3_3BouncePath() async throws {
        let f = try Fixture(size: "640x480")
        f.layer.position = Point(x: 74, y: 74)
        try await f.c.sync()
        var path = Path()
        path.move(to: Point(x: 74, y: 74))
        path.addCurve(to: Point(x: 320, y: 74), control1: Point(x: 74, y: 500), control2: Point(x: 320, y: 500))
        path.addCurve(to: Point(x: 566, y: 74), control1: Point(x: 320, y: 500), control2: Point(x: 566, y: 500))
        var bounce = KeyframeAnimation(keyPath: "position", path: path)
        bounce.duration = 5
        f.layer.add(.keyframe(bounce), forKey: "position")
        try await f.c.sync()
        let start = f.c.currentMediaTime
        let expected: [(Double, Point)] = [(0, Point(x: 74, y: 74)), (1.25, Point(x: 197, y: 393.5)),
                                          (2.5, Point(x: 320, y: 74)), (3.75, Point(x: 443, y: 393.5))]
        for (t, e) in expected {
            try await f.at(t, after: start)
            let p = try await f.layer.presentation().position
            #expect(Self.close(p.x, e.x) && Self.close(p.y, e.y), "t=\(t): \(p), expected \(e)")
            // Pixels: the 40×40 white layer is centred on the computed point, and gone from the start.
            let shot = try await f.c.screenshot()
            #expect(shot.pixel(x: Int(e.x), y: Int(e.y)) == (255, 255, 255, 255), "t=\(t)")
            if t > 0 { #expect(shot.pixel(x: 74, y: 74) == (0, 0, 0, 255), "t=\(t)") }
        }
    }

    // Listing 3-4: a 5 s group of paced borderWidth keyframes (1, 10, 5, 30, 0.5, 15, 2, 50, 0)
    // and paced border colours. Expected widths are hand-derived from equal speed over the
    // total variation 232.5: at 1 s 29.8, at 2 s 9.6, at 2.5 s 3, at 4 s 38.8 (see
    // AnimationKeyframeTests for the derivation).
    @Test func listing3_4PacedGroup() async throws {
        let f = try Fixture()
        try await f.c.sync()
        var widths = KeyframeAnimation(keyPath: "borderWidth", values: [1, 10, 5, 30, 0.5, 15, 2, 50, 0].map { .number($0) })
        widths.calculationMode = .paced
        var colours = KeyframeAnimation(keyPath: "borderColor", values: [Color.green, .red, .blue].map { .color($0) })
        colours.calculationMode = .paced
        var group = AnimationGroup(animations: [.keyframe(widths), .keyframe(colours)])
        group.duration = 5
        f.layer.add(.group(group), forKey: "BorderChanges")
        try await f.c.sync()
        let start = f.c.currentMediaTime
        for (t, w) in [(1.0, 29.8), (2.0, 9.6), (2.5, 3.0), (4.0, 38.8)] {
            try await f.at(t, after: start)
            let p = try await f.layer.presentation()
            #expect(Self.close(p.borderWidth, w, 1e-3), "t=\(t): \(p.borderWidth)")
            if t == 2.5 {
                // Colours: green → red → blue at constant speed; red at half time.
                let c = p.borderColor
                #expect(Self.close(c.red, 1) && Self.close(c.green, 0) && Self.close(c.blue, 0), "\(c)")
                // Pixels: a 3-wide red border inside the white 40×40 layer whose left edge is x = 80.
                let shot = try await f.c.screenshot()
                #expect(shot.pixel(x: 81, y: 100) == (255, 0, 0, 255))
                #expect(shot.pixel(x: 84, y: 100) == (255, 255, 255, 255))
            }
        }
    }

    // Listing 3-5's idea: an implicit opacity change and an explicit position animation of a
    // different duration, both at once, each on its own clock.
    @Test func implicitAndExplicitTogether() async throws {
        let f = try Fixture()
        try await f.c.sync()
        Transaction.begin()
        Transaction.animationDuration = 1
        Transaction.animationTimingFunction = .linear
        f.layer.opacity = 0
        var move = BasicAnimation(keyPath: "position.x", toValue: .number(200))
        move.duration = 2
        f.layer.add(.basic(move), forKey: "slide")
        Transaction.commit()
        try await f.c.sync()
        let start = f.c.currentMediaTime
        try await f.at(0.5, after: start)
        var p = try await f.layer.presentation()
        #expect(Self.close(p.opacity, 0.5) && Self.close(p.position.x, 125))
        try await f.at(1.5, after: start)
        p = try await f.layer.presentation()
        #expect(p.opacity == 0 && Self.close(p.position.x, 175))
    }

    @Test func nestedSettingsInheritAndDoNotLeak() async throws {
        let f = try Fixture()
        let b = Layer(), c = Layer()
        for l in [b, c] {
            l.bounds = Rect(x: 0, y: 0, width: 10, height: 10)
            f.c.rootLayer.addSublayer(l)
        }
        try await f.c.sync()
        Transaction.begin()
        Transaction.animationDuration = 2
        Transaction.animationTimingFunction = .linear
        Transaction.begin()
        f.layer.opacity = 0            // inherits 2 s
        Transaction.animationDuration = 1
        b.opacity = 0                  // 1 s
        Transaction.commit()
        c.opacity = 0                  // 2 s again: the inner setting did not leak
        Transaction.commit()
        try await f.c.sync()
        let start = f.c.currentMediaTime
        try await f.at(0.5, after: start)
        #expect(Self.close(try await f.layer.presentation().opacity, 0.75))
        #expect(Self.close(try await b.presentation().opacity, 0.5))
        #expect(Self.close(try await c.presentation().opacity, 0.75))
        #expect(Transaction.animationDuration == 0.25)  // nothing leaked out of the outer transaction either
    }

    @Test func completionBlocksRunOnceAfterTheirAnimations() async throws {
        let f = try Fixture()
        try await f.c.sync()
        var log: [String] = []
        Transaction.begin()
        Transaction.animationDuration = 1
        Transaction.completionBlock = { log.append("outer") }
        Transaction.completionBlock = { log.append("outer, added") }  // a second block adds to the first
        f.layer.opacity = 0
        Transaction.begin()
        Transaction.animationDuration = 0.5
        Transaction.completionBlock = { log.append("inner") }
        f.layer.position = Point(x: 50, y: 50)
        Transaction.commit()
        #expect(log.isEmpty)  // never inside commit
        Transaction.commit()
        #expect(log.isEmpty)
        try await f.c.sync()
        let start = f.c.currentMediaTime
        try await f.at(0.6, after: start)
        try await f.c.sync()
        _ = try await eventually { !log.isEmpty }
        #expect(log == ["inner"])
        try await f.at(1.1, after: start)
        try await f.c.sync()
        _ = try await eventually { log.count >= 3 }
        #expect(log == ["inner", "outer", "outer, added"])

        // A transaction with no animations still completes, after commit returns.
        Transaction.begin()
        Transaction.disableActions = true
        Transaction.completionBlock = { log.append("empty") }
        f.layer.opacity = 1
        Transaction.commit()
        #expect(log.last != "empty")
        try await f.c.sync()
        _ = try await f.c.stats()  // a round trip after the completion message
        _ = try await eventually { log.last == "empty" }
        #expect(log.last == "empty")
        #expect(try await f.layer.presentation().opacity == 1)  // disableActions: no animation
    }

    @Test func actionsStyleAndNullActions() async throws {
        let f = try Fixture()
        try await f.c.sync()
        var slow = BasicAnimation(keyPath: "")
        slow.duration = 4
        slow.timingFunction = .linear
        f.layer.actions = ["opacity": .animation(.basic(slow)), "position": .noAnimation]
        f.layer.styleActions = ["bounds": .animation(.basic(slow))]
        try await f.c.sync()
        f.layer.opacity = 0
        f.layer.position = Point(x: 10, y: 10)
        f.layer.bounds = Rect(x: 0, y: 0, width: 80, height: 80)
        try await f.c.sync()
        let start = f.c.currentMediaTime
        try await f.at(1, after: start)
        let p = try await f.layer.presentation()
        #expect(Self.close(p.opacity, 0.75))                 // the layer's own action: 4 s, linear
        #expect(p.position == Point(x: 10, y: 10))           // a null action: no animation
        #expect(Self.close(p.bounds.width, 50))              // from the style: 40 → 80 over 4 s
    }

    @Test func onOrderOutKeepsTheLayerUntilItsAnimationEnds() async throws {
        let f = try Fixture()
        var fadeOut = BasicAnimation(keyPath: "opacity", toValue: .number(0))
        fadeOut.duration = 1
        fadeOut.timingFunction = .linear
        f.layer.actions = ["onOrderOut": .animation(.basic(fadeOut))]
        try await f.c.sync()
        let start = f.c.currentMediaTime
        f.layer.removeFromSuperlayer()
        try await f.c.sync()
        try await f.at(0.5, after: start)
        var shot = try await f.c.screenshot()
        #expect(abs(Int(shot.pixel(x: 100, y: 100).r) - 128) <= 2)  // still there, half faded
        try await f.at(1.1, after: start)
        shot = try await f.c.screenshot()
        #expect(shot.pixel(x: 100, y: 100) == (0, 0, 0, 255))  // gone once the animation ended
    }

    @Test func stoppingEarlyPausingAndChaining() async throws {
        let f = try Fixture()
        try await f.c.sync()
        var spin = BasicAnimation(keyPath: "position.x", fromValue: .number(0), toValue: .number(100))
        spin.duration = 10
        f.layer.add(.basic(spin), forKey: "x")
        try await f.c.sync()
        let start = f.c.currentMediaTime
        try await f.at(2, after: start)
        #expect(Self.close(try await f.layer.presentation().position.x, 20))

        // Pause (Listing 5-4): speed 0, timeOffset = the layer's time now.
        let paused = f.layer.convertTime(f.c.currentMediaTime, from: nil)
        f.layer.speed = 0
        f.layer.timeOffset = paused
        try await f.at(5, after: start)
        #expect(Self.close(try await f.layer.presentation().position.x, 20))
        // Resume: speed 1, timeOffset 0, beginTime = time spent paused.
        f.layer.speed = 1
        f.layer.timeOffset = 0
        f.layer.beginTime = 0
        f.layer.beginTime = f.layer.convertTime(f.c.currentMediaTime, from: nil) - paused
        try await f.at(6, after: start)
        #expect(Self.close(try await f.layer.presentation().position.x, 30))

        // Stop early: the model value shows again.
        f.layer.removeAnimation(forKey: "x")
        try await f.c.sync()
        #expect(try await f.layer.presentation().position.x == 100)

        // Chain: the second animation begins when the first ends (beginTime in layer time).
        let now = f.layer.convertTime(f.c.currentMediaTime, from: nil)
        var first = BasicAnimation(keyPath: "opacity", fromValue: .number(1), toValue: .number(0.5))
        first.duration = 1
        var second = BasicAnimation(keyPath: "opacity", fromValue: .number(0.5), toValue: .number(0))
        second.duration = 1
        second.beginTime = now + 1
        f.layer.add(.basic(first), forKey: "first")
        f.layer.add(.basic(second), forKey: "second")
        try await f.c.sync()
        let chain = f.c.currentMediaTime
        try await f.at(0.5, after: chain)
        #expect(Self.close(try await f.layer.presentation().opacity, 0.75))
        try await f.at(1.5, after: chain)
        #expect(Self.close(try await f.layer.presentation().opacity, 0.25))
    }

    @Test func twoClientsAnimateIndependentlyAndDisconnectsCleanUp() async throws {
        let f = try Fixture()
        let other = try Connection.connect(to: f.daemon.socket, name: "other")
        let l2 = Layer()
        l2.bounds = Rect(x: 0, y: 0, width: 20, height: 20)
        l2.position = Point(x: 250, y: 50)
        l2.backgroundColor = .red
        other.rootLayer.addSublayer(l2)
        try await other.sync()
        try await f.c.sync()
        Transaction.begin()
        Transaction.animationDuration = 2
        Transaction.animationTimingFunction = .linear
        f.layer.opacity = 0
        l2.position = Point(x: 250, y: 150)
        Transaction.commit()
        try await f.c.sync()
        try await other.sync()
        let start = f.c.currentMediaTime
        try await f.at(1, after: start)
        #expect(Self.close(try await f.layer.presentation().opacity, 0.5))
        #expect(Self.close(try await l2.presentation().position.y, 100))
        other.close()
        var layers = 99.0
        for _ in 0..<200 where layers != 2 {
            layers = try await f.c.stats().first { $0.name == "layers" }?.value ?? 0
            if layers != 2 { try await Task.sleep(for: .milliseconds(10)) }  // waits for the hang-up to be read
        }
        #expect(layers == 2)  // f's root and layer only
        try await f.at(1.5, after: start)
        let stats = Dictionary(uniqueKeysWithValues: try await f.c.stats().map { ($0.name, $0.value) })
        #expect(stats["animations"] == 1)  // f's own fade, still running
        #expect(Self.close(try await f.layer.presentation().opacity, 0.25))
    }
}
