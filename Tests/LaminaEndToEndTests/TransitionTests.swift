import Foundation
import Testing
import Lamina
import LaminaCore
import LaminaProtocol

/// `CATransition` on a real laminad: the old rendering (kept when the transition is added) and
/// the new one, placed and mixed at exact virtual-clock times, checked by pixels.
@Suite("Transitions end to end", .serialized)
@MainActor
struct TransitionTests {
    /// A 100×60 red panel at (50, 50) on a 320×240 black display.
    @MainActor final class Fixture {
        let daemon: DaemonProcess
        let c: Connection
        let panel = Layer()
        var start = 0.0
        init() throws {
            daemon = try DaemonProcess(size: "320x240")
            c = try Connection.connect(to: daemon.socket, name: "transitions")
            panel.frame = Rect(x: 50, y: 50, width: 100, height: 60)
            panel.backgroundColor = .red
            c.rootLayer.addSublayer(panel)
        }

        /// Adds a one-second linear transition and turns the panel blue in the same commit
        /// (the colour change itself without an implicit animation).
        func transition(_ type: Transition.Kind, _ subtype: Transition.Direction? = nil) async throws {
            try await c.sync()
            start = c.currentMediaTime
            Transaction.begin()
            Transaction.disableActions = true
            panel.add(.transition(Transition(type: type, subtype: subtype, timing: MediaTiming(duration: 1))), forKey: "transition")
            panel.backgroundColor = .blue
            Transaction.commit()
            try await c.sync()
        }

        /// Expects the pixel at (x, y) at `t` seconds into the transition to be `colour` (± 2).
        func expectPixel(_ x: Int, _ y: Int, at t: Double, _ colour: (UInt8, UInt8, UInt8, UInt8),
                         sourceLocation: SourceLocation = #_sourceLocation) async throws {
            let p = try await pixel(x, y, at: t)
            #expect(TransitionTests.near(p, colour), "pixel (\(x), \(y)) at \(t) s is \(p), expected \(colour); time \(c.currentMediaTime), start \(start)",
                    sourceLocation: sourceLocation)
        }

        /// The pixel at display point (x, y) at `t` seconds into the transition.
        func pixel(_ x: Int, _ y: Int, at t: Double) async throws -> (r: UInt8, g: UInt8, b: UInt8, a: UInt8) {
            let now = c.currentMediaTime
            if start + t > now { try await c.advanceClock(by: start + t - now) }
            return try await c.screenshot().pixel(x: x, y: y)
        }
    }

    static let red: (UInt8, UInt8, UInt8, UInt8) = (255, 0, 0, 255)
    static let blue: (UInt8, UInt8, UInt8, UInt8) = (0, 0, 255, 255)
    static let black: (UInt8, UInt8, UInt8, UInt8) = (0, 0, 0, 255)

    static func near(_ p: (r: UInt8, g: UInt8, b: UInt8, a: UInt8), _ q: (UInt8, UInt8, UInt8, UInt8), _ tol: Int = 2) -> Bool {
        abs(Int(p.r) - Int(q.0)) <= tol && abs(Int(p.g) - Int(q.1)) <= tol && abs(Int(p.b) - Int(q.2)) <= tol && abs(Int(p.a) - Int(q.3)) <= tol
    }

    @Test func pushFromLeftSlidesBothRenderings() async throws {
        let f = try Fixture()
        try await f.transition(.push, .fromLeft)
        // A quarter in: new spans display x −25…75, old 75…175.
        try await f.expectPixel(70, 80, at: 0.25, Self.blue)
        try await f.expectPixel(80, 80, at: 0.25, Self.red)
        // Half way (display x 50…150 is the panel): the new (blue) rendering spans 0…100, the old
        // (red) one 100…200 — both partly past the bounds (transitions are not clipped).
        try await f.expectPixel(75, 80, at: 0.5, Self.blue)
        try await f.expectPixel(25, 80, at: 0.5, Self.blue)
        try await f.expectPixel(125, 80, at: 0.5, Self.red)
        try await f.expectPixel(175, 80, at: 0.5, Self.red)
        try await f.expectPixel(225, 80, at: 0.5, Self.black)
        // Done: only the new rendering, in place.
        try await f.expectPixel(125, 80, at: 1.1, Self.blue)
        try await f.expectPixel(175, 80, at: 1.1, Self.black)
    }

    @Test func fadeCrossDissolves() async throws {
        let f = try Fixture()
        try await f.transition(.fade)
        try await f.expectPixel(100, 80, at: 0, Self.red)
        // old × 0.75 + new × 0.25, composited once over the black display.
        try await f.expectPixel(100, 80, at: 0.25, (191, 0, 64, 255))
        try await f.expectPixel(100, 80, at: 0.75, (64, 0, 191, 255))
        try await f.expectPixel(100, 80, at: 1.5, Self.blue)
    }

    @Test func moveInFromBottomCoversTheOldRendering() async throws {
        let f = try Fixture()
        try await f.transition(.moveIn, .fromBottom)
        // The new rendering has risen half way: the panel's lower half is new, the upper old,
        // and the rest of the new one hangs below the bounds.
        try await f.expectPixel(100, 65, at: 0.5, Self.red)
        try await f.expectPixel(100, 95, at: 0.5, Self.blue)
        try await f.expectPixel(100, 125, at: 0.5, Self.blue)
        try await f.expectPixel(100, 125, at: 1.2, Self.black)
    }

    @Test func revealFromRightUncoversTheNewRendering() async throws {
        let f = try Fixture()
        try await f.transition(.reveal, .fromRight)
        try await f.expectPixel(75, 80, at: 0.5, Self.red)
        try await f.expectPixel(125, 80, at: 0.5, Self.blue)
        try await f.expectPixel(25, 80, at: 0.5, Self.red)
    }

    /// `replaceSublayer(_:with:)` runs the superlayer's `transition` action.
    @Test func replacingASublayerRunsTheTransitionAction() async throws {
        let f = try Fixture()
        f.panel.backgroundColor = nil
        let old = Layer(), new = Layer()
        for (l, colour) in [(old, Color.red), (new, Color.blue)] {
            l.frame = Rect(x: 0, y: 0, width: 100, height: 60)
            l.backgroundColor = colour
        }
        f.panel.addSublayer(old)
        f.panel.actions = ["transition": .animation(.transition(Transition(type: .fade, timing: MediaTiming(duration: 1))))]
        try await f.c.sync()
        f.start = f.c.currentMediaTime
        f.panel.replaceSublayer(old, with: new)
        try await f.c.sync()
        try await f.expectPixel(100, 80, at: 0.5, (128, 0, 128, 255))
        try await f.expectPixel(100, 80, at: 1.1, Self.blue)
        #expect(f.panel.sublayers.count == 1)
    }
}
