import Foundation
import Testing
import Lamina
import LaminaCore
import LaminaProtocol

/// A kept session taken over by another program: laminad reports the session's animation and
/// completion events (under the earlier client's tags and groups) to whoever holds it now.
@Suite("taking a kept session over")
@MainActor
struct SessionTakeOverTests {
    @MainActor final class Stops: AnimationDelegate {
        var stops: [Bool] = []
        func animationDidStop(_ animation: Animation, on layer: Layer, finished: Bool) { stops.append(finished) }
    }

    static func fade() -> Animation {
        var fade = BasicAnimation(keyPath: "opacity", fromValue: .number(0), toValue: .number(1))
        fade.duration = 100
        return .basic(fade)
    }

    /// The earlier program's fade (its tag 1) stops when the new program replaces it under its
    /// key; that stop is not the new program's (whose first tag was 1 too), whose fade runs on.
    @Test func anEarlierClientsAnimationEventsAreNotTheNewOnes() async throws {
        let daemon = try DaemonProcess()
        let first = try Connection.connect(to: daemon.socket, name: "first", session: "tags", keepLayers: true)
        let dot = Layer()
        dot.frame = Rect(x: 10, y: 10, width: 20, height: 20)
        first.rootLayer.addSublayer(dot)
        dot.add(Self.fade(), forKey: "fade")
        try await first.sync()
        first.close()

        let second = try Connection.connect(to: daemon.socket, name: "second", session: "tags", keepLayers: true)
        let taken = try #require(second.rootLayer.sublayers.first)
        let stops = Stops()
        taken.add(Self.fade(), forKey: "fade", delegate: stops)
        try await second.sync()
        _ = try await second.advanceClock(by: 0.5)
        try await second.sync()
        _ = try await second.stats()  // a round trip after the frame's events
        #expect(stops.stops.isEmpty, "the earlier program's stop reached the new fade: \(stops.stops)")
        #expect(taken.animation(forKey: "fade") != nil)
        second.close()
    }
}
