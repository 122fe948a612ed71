import Foundation
import Testing
import Lamina
import LaminaCore
import LaminaProtocol

/// `DisplayLink` (`CADisplayLink`, protocol 1.7) through a real headless laminad on the virtual
/// clock: the callback count and timestamps, the callback's commit in the frame it targets, and an
/// idle screen (no frames, no wake-ups) while no link runs.
@Suite("Display links end to end", .serialized)
@MainActor
struct DisplayLinkEndToEndTests {
    func stat(_ c: Connection, _ name: String) async throws -> Double {
        try await c.stats().first { $0.name == name }?.value ?? -1
    }

    /// Lets the main actor run the frame messages' tasks the reader queued (the callbacks), then
    /// waits for their commits to be answered: no clock, no sleeping.
    func settle(_ c: Connection) async throws {
        for _ in 0..<20 { await Task.yield() }
        try await c.sync()
    }

    /// Waits until every frame message laminad has sent since `base` (`displayLink.frames`) has
    /// run its callback here (`calls`), then for the commits that answer them. The callback is a
    /// main-actor task of the client library's, so a fixed number of yields was a race a loaded
    /// machine lost: laminad then found the frame unanswered at the next advance and coalesced
    /// it, as it should for an app that falls behind (`eventually`).
    func settle(_ c: Connection, calls: () -> Int, base: Int = 0) async throws {
        let sent = Int(try await stat(c, "displayLink.frames")) - base
        if !(try await eventually { calls() >= sent }) {
            Issue.record("\(calls()) callbacks for the \(sent) frame messages laminad sent")
        }
        try await c.sync()
    }

    @Test func oneSecondAtSixtyHertzIsSixtyCallbacksAndEachCommitIsInItsTargetFrame() async throws {
        let daemon = try DaemonProcess(size: "320x240")
        let c = try Connection.connect(to: daemon.socket, name: "link")
        let dot = Layer()
        dot.bounds = Rect(x: 0, y: 0, width: 10, height: 10)
        dot.backgroundColor = .red
        c.rootLayer.addSublayer(dot)
        try await c.sync()
        var targets: [Double] = []
        var stamps: [(Double, Double, Double)] = []
        let link = DisplayLink(connection: c) { link in
            targets.append(link.targetTimestamp)
            stamps.append((link.timestamp, link.targetTimestamp, link.duration))
            Transaction.disableActions = true
            dot.position = Point(x: 5 + Double(targets.count), y: 5)
        }
        #expect(!link.isPaused && link.preferredFrameRateRange == .default && link.output == "")
        try await settle(c)
        for step in 1...60 {
            try await c.advanceClock(by: 1.0 / 60)
            try await settle(c, calls: { targets.count })
            #expect(targets.count == step, "step \(step)")
        }
        #expect(targets.count == 60 && link.frameCount == 60)
        for (a, b) in zip(targets, targets.dropFirst()) { #expect(abs(b - a - 1.0 / 60) < 1e-9) }
        for (t, target, d) in stamps { #expect(abs(target - t - 1.0 / 60) < 1e-9 && abs(d - 1.0 / 60) < 1e-12) }
        #expect(abs((stamps.first?.0 ?? 0) - 1.0 / 60) < 1e-9)
        // The last callback's commit is on screen at the frame it targeted: the dot at x 65.
        try await c.advanceClock(by: 1.0 / 60)
        try await settle(c, calls: { targets.count })
        let shot = try await c.screenshot()
        #expect(shot.pixel(x: 5 + 60, y: 5).r == 255, "the dot where the 60th callback put it")
        #expect(try await stat(c, "displayLink.frames") >= 61)
        link.invalidate()
        try await settle(c)
        #expect(try await stat(c, "displayLink.links") == 0)
        c.close()
    }

    /// The same small program in Swift, Python and C (docs/clients.md, "A display link"): a
    /// sparkline whose path a display link sets at every refresh from a sample taken at the
    /// frame's `targetTimestamp`. After sixty refreshes the screen shows each sample where its
    /// target time puts it: column 2·i, row 40 − 30·sin(2π·tᵢ) — checked by pixels.
    @Test func aSparklineFedByADisplayLinkShowsEverySample() async throws {
        let daemon = try DaemonProcess(size: "320x240")
        let c = try Connection.connect(to: daemon.socket, name: "sparkline")
        let back = Layer()
        back.frame = Rect(x: 0, y: 0, width: 240, height: 80)
        back.backgroundColor = .black
        let spark = ShapeLayer()
        spark.frame = back.frame
        spark.fillColor = nil
        spark.strokeColor = .green
        spark.lineWidth = 2
        c.rootLayer.addSublayer(back)
        c.rootLayer.addSublayer(spark)
        try await c.sync()
        var samples: [Double] = []
        let link = DisplayLink(connection: c) { link in
            samples.append(link.targetTimestamp)
            var line = Path()
            for (i, t) in samples.suffix(120).enumerated() {
                let p = Point(x: 2 * Double(i), y: 40 - 30 * sin(2 * .pi * t))
                if i == 0 { line.move(to: p) } else { line.addLine(to: p) }
            }
            Transaction.disableActions = true
            spark.path = line
        }
        try await settle(c)
        for _ in 0..<60 {
            try await c.advanceClock(by: 1.0 / 60)
            try await settle(c, calls: { samples.count })
        }
        link.invalidate()
        try await c.advanceClock(by: 1.0 / 60)   // the last callback's target frame
        try await settle(c)   // (a frame message laminad may still send goes to no callback)
        #expect(samples.count == 60)
        let shot = try await c.screenshot()
        for i in stride(from: 2, to: 58, by: 4) {
            let expected = 40 - 30 * sin(2 * .pi * samples[i])
            let rows = (0..<80).filter { y in
                let p = shot.pixel(x: 2 * i, y: y)
                return p.g > 120 && p.r < 100 && p.b < 100
            }
            let middle = rows.isEmpty ? -100 : Double(rows.reduce(0, +)) / Double(rows.count)
            #expect(abs(middle + 0.5 - expected) <= 2.5, "sample \(i) at t \(samples[i]): ink at rows \(rows), expected about \(expected)")
            #expect(rows.allSatisfy { abs(Double($0) + 0.5 - expected) <= 6 }, "sample \(i): stray ink \(rows)")
        }
        // Nothing right of the sixtieth sample: the line ends where the samples do.
        #expect((122..<240).allSatisfy { x in (0..<80).allSatisfy { shot.pixel(x: x, y: $0).g < 60 } })
        c.close()
    }

    @Test func withNoLinkRunningTheScreenStaysIdle() async throws {
        let daemon = try DaemonProcess(size: "320x240")
        let c = try Connection.connect(to: daemon.socket, name: "idle")
        try await c.sync()
        let link = DisplayLink(connection: c, paused: true) { _ in Issue.record("a paused link was called") }
        try await settle(c)
        let frames = try await stat(c, "framesRendered"), wakeups = try await stat(c, "repaint.wakeups")
        for _ in 0..<60 { try await c.advanceClock(by: 1.0 / 60) }
        try await settle(c)
        #expect(try await stat(c, "framesRendered") == frames)
        #expect(try await stat(c, "repaint.wakeups") == wakeups)
        link.isPaused = false
        try await settle(c)
        // Not called while paused, so the closure above must not run now: replace the link.
        link.invalidate()
        var count = 0
        let running = DisplayLink(connection: c) { _ in count += 1 }
        try await settle(c)
        let base = Int(try await stat(c, "displayLink.frames"))
        for _ in 0..<6 { try await c.advanceClock(by: 1.0 / 60); try await settle(c, calls: { count }, base: base) }
        #expect(count == 6)
        running.invalidate()
        c.close()
    }

    @Test func aReconnectingClientMakesItsLinksAgain() async throws {
        let first = try DaemonProcess()
        let c = try Connection.connect(to: first.socket, name: "link-app", reconnect: .init(initialDelay: 0.02, maximumDelay: 0.2))
        var count = 0
        let link = DisplayLink(connection: c) { _ in count += 1 }
        link.preferredFrameRateRange = FrameRateRange(minimum: 15, maximum: 30, preferred: 30)
        try await settle(c)
        first.kill(SIGKILL)
        for _ in 0..<2000 where c.isConnected { try await Task.sleep(nanoseconds: 10_000_000) }  // waits for the loss, not a timing assertion
        #expect(!c.isConnected, "the client did not notice laminad going away")
        let second = try DaemonProcess(directory: first.directory)
        try await c.sync()
        try await settle(c)
        #expect(try await stat(c, "displayLink.running") == 1)
        for _ in 0..<4 { try await c.advanceClock(by: 1.0 / 60); try await settle(c, calls: { count }) }
        #expect(count == 2, "30 Hz on the new laminad: every other refresh")
        link.invalidate()
        _ = second
        c.close()
    }
}
