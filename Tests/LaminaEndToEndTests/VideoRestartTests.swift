import Foundation
import Testing
import Lamina
import LaminaCore
#if canImport(Glibc)
import Glibc
#endif

/// Videos come back with laminad: a kept session's videos from laminad's journal (URI, loop,
/// rate, playing or not, and where their media time stood), and a reconnecting client's
/// `VideoSource`s from its replay. Each is checked by the colour of the frame shown at a
/// virtual time after laminad was killed and started again.
/// (The time limit only guards against a hang: a test takes seconds alone, minutes on a
/// 2-core machine running the KMS guests beside it.)
@Suite("video restarts", .serialized, .timeLimit(.minutes(10)))
@MainActor
struct VideoRestartTests {
    /// A 64×48 layer at (x, 10) showing `video`.
    func show(_ video: VideoSource, at x: Double, on c: Connection) {
        let layer = Layer()
        layer.frame = Rect(x: x, y: 10, width: 64, height: 48)
        layer.video = video
        c.rootLayer.addSublayer(layer)
    }

    func colour(_ c: Connection, x: Int) async throws -> Int? {
        VideoClips.colour(try await c.screenshot(), x: x, y: 34)
    }

    @Test("a killed laminad brings a kept session's videos back where they were: playing, paused, looping at rate 2")
    func keptSessionVideosSurviveAKill() async throws {
        let first = try DaemonProcess()
        let clip = try VideoClips.webm(in: first.directory)
        let app = try Connection.connect(to: first.socket, name: "signage", session: "signage", keepLayers: true)
        // Left: plays at rate 1, not looping. Right: paused at 2.2 (blue), looping at rate 2.
        let playing = try VideoSource(contentsOfFile: clip, connection: app)
        let still = try VideoSource(contentsOfFile: clip, connection: app)
        still.loops = true
        still.rate = 2
        try still.seek(to: 2.2)
        show(playing, at: 10, on: app)
        show(still, at: 100, on: app)
        try await app.sync()
        _ = await playing.nextEvent(where: isReady)
        playing.play()
        try await app.sync()
        _ = try await app.advanceClock(by: 1.5)
        #expect(try await colour(app, x: 42) == 1, "media 1.5: green")
        #expect(try await colour(app, x: 132) == 2, "paused at 2.2: blue")
        app.close()
        // The clock's move is journalled (the playing video's media time moved with it).
        #expect(try RestartTests().waitForJournal(first), "the journal was not written: \(first.logText)")
        first.kill(SIGKILL)

        let second = try DaemonProcess(directory: first.directory)
        #expect(second.logText.contains("restored session 'signage' of uid 0: 3 layers, 0 images, 0 animations, 2 videos"), "\(second.logText)")
        let observer = try Connection.connect(to: second.socket, name: "observer")
        #expect(try await colour(observer, x: 42) == 1, "after the restart, still media 1.5: green")
        #expect(try await colour(observer, x: 132) == 2, "still paused at 2.2: blue")
        #expect(try await observer.stats().first { $0.name == "videosPlaying" }?.value == 1)
        _ = try await observer.advanceClock(by: 1)
        #expect(try await colour(observer, x: 42) == 2, "played on one second: media 2.5, blue")
        #expect(try await colour(observer, x: 132) == 2, "the paused one stays")
        // The app comes back and plays the still one: rate 2 and loop came back with it.
        let back = try Connection.connect(to: second.socket, name: "signage", session: "signage", keepLayers: true)
        let right = try #require(back.rootLayer.sublayers.last)
        guard case .image(let n) = right.value(forKey: .contents) else { Issue.record("no contents"); return }
        let resumed = VideoSource(existing: n, connection: back)
        resumed.play()
        try await back.sync()
        _ = try await back.advanceClock(by: 0.5)
        // 2.2 + 2 × 0.5 = 3.2, wrapped at 3: 0.2, red.
        #expect(try await colour(back, x: 132) == 0, "looping at rate 2 from 2.2: red")
        back.close()
        observer.close()
    }

    @Test("a laminactl scene's playing video comes back after a kill, and laminactl video still controls it")
    func sceneVideoSurvivesAKill() async throws {
        let first = try DaemonProcess()
        _ = try VideoClips.webm(in: first.directory, name: "clip.webm")
        let scene = first.directory + "/scene.json"
        try """
        {"sublayers": [{"name": "screen", "frame": [10, 10, 64, 48], "video": "clip.webm", "playing": true, "loop": true}]}
        """.write(toFile: scene, atomically: true, encoding: .utf8)
        let applied = try first.laminactl(["apply", scene])
        #expect(applied.status == 0, "\(applied.output)")
        #expect(try first.laminactl(["advance", "1.5"]).status == 0)
        #expect(try RestartTests().waitForJournal(first))
        first.kill(SIGKILL)

        let second = try DaemonProcess(directory: first.directory)
        let observer = try Connection.connect(to: second.socket, name: "observer")
        #expect(try await colour(observer, x: 42) == 1, "media 1.5 after the restart: green")
        _ = try await observer.advanceClock(by: 2)
        #expect(try await colour(observer, x: 42) == 0, "looping: media 3.5 → 0.5, red")
        let paused = try second.laminactl(["video", "screen", "pause"])
        #expect(paused.status == 0, "\(paused.output)")
        _ = try await observer.advanceClock(by: 1)
        #expect(try await colour(observer, x: 42) == 0, "paused at 0.5: still red")
        let seek = try second.laminactl(["video", "screen", "seek", "2.5"])
        #expect(seek.status == 0, "\(seek.output)")
        #expect(try await colour(observer, x: 42) == 2, "seek 2.5: blue")
        observer.close()
    }

    @Test("a reconnecting client makes its videos again on the restarted laminad, where they stood", arguments: [false, true])
    func reconnectingClientReplaysItsVideos(keptSession: Bool) async throws {
        let first = try DaemonProcess()
        let clip = try VideoClips.webm(in: first.directory)
        let c = try Connection.connect(to: first.socket, name: "app", session: keptSession ? "app" : "", keepLayers: keptSession,
                                       reconnect: .init(initialDelay: 0.02, maximumDelay: 0.2))
        let video = try VideoSource(contentsOfFile: clip, connection: c)
        video.loops = true
        show(video, at: 10, on: c)
        try await c.sync()
        _ = await video.nextEvent(where: isReady)
        video.play()
        try await c.sync()
        _ = try await c.advanceClock(by: 1.5)
        #expect(try await colour(c, x: 42) == 1, "media 1.5: green")
        if keptSession { #expect(try RestartTests().waitForJournal(first)) }
        first.kill(SIGKILL)
        for _ in 0..<2000 where c.isConnected { try await Task.sleep(nanoseconds: 10_000_000) }
        #expect(!c.isConnected, "the client did not notice laminad going away")
        let readyBefore = video.events.filter(isReady).count

        let second = try DaemonProcess(directory: first.directory)
        try await c.sync()
        #expect(c.isConnected)
        // One video (a journalled copy was replaced, not doubled), at media 1.5 on the new clock.
        #expect(try await c.stats().first { $0.name == "videos" }?.value == 1)
        #expect(try await colour(c, x: 42) == 1, "after the reconnection, media 1.5: green")
        _ = try await c.advanceClock(by: 1)
        #expect(try await colour(c, x: 42) == 2, "played on: media 2.5, blue")
        _ = try await c.advanceClock(by: 1)
        #expect(try await colour(c, x: 42) == 0, "looped: media 3.5 → 0.5, red")
        // Events come from the new decoder, and controls keep working.
        for _ in 0..<2000 where video.events.filter(isReady).count == readyBefore { try await Task.sleep(nanoseconds: 10_000_000) }
        #expect(video.events.filter(isReady).count == readyBefore + 1, "ready again from the new laminad: \(video.events)")
        video.pause()
        try video.seek(to: 1.2)
        try await c.sync()
        #expect(await video.nextEvent { $0 == .paused } == .paused)
        _ = try await c.advanceClock(by: 3)
        #expect(try await colour(c, x: 42) == 1, "paused at 1.2: green")
        _ = second
        c.close()
    }
}
