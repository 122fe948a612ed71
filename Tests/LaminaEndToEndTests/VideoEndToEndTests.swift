import Foundation
import Testing
import LaminaTestSupport
import Lamina
import LaminaCore
import LaminaProtocol

/// Clips for the video tests, made with gst-launch-1.0 (gstreamer1.0-tools): second k of
/// the clip is one solid colour, `colours[k]`, at 10 frames a second, 64×48, VP8 in WebM.
enum VideoClips {
    static let colours: [(Int, Int, Int)] = [(255, 0, 0), (0, 255, 0), (0, 0, 255)]

    static func webm(in directory: String, name: String = "clip.webm") throws -> String {
        try clip(in: directory, name: name, encoder: ["vp8enc", "deadline=1", "!", "webmmux"])
    }

    /// An H.264 encoder, if one is installed (x264enc is in gstreamer1.0-plugins-ugly,
    /// openh264enc in -bad; libav's avenc_h264_omx needs OpenMAX hardware).
    static let h264Encoder: String? = ["x264enc", "openh264enc"].first(where: MediaSupport.hasElement)

    /// The three-second clip through `encoder` (elements after videoconvert, ending in a muxer).
    static func clip(in directory: String, name: String, encoder: [String]) throws -> String {
        let path = directory + "/" + name
        var arguments = ["-q", "concat", "name=c", "!", "videoconvert", "!"] + encoder + ["!", "filesink", "location=\(path)"]
        for (r, g, b) in colours {
            arguments += ["videotestsrc", "pattern=solid-color", "foreground-color=" + String(format: "0xff%02x%02x%02x", r, g, b),
                          "num-buffers=10", "!", "video/x-raw,width=64,height=48,framerate=10/1", "!", "c."]
        }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/gst-launch-1.0")
        p.arguments = arguments
        try p.run()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else { throw DaemonError("gst-launch-1.0 \(arguments.joined(separator: " ")) failed") }
        return path
    }

    /// Which of `colours` the pixel is (VP8 is lossy: within 40 a channel), or nil.
    static func colour(_ shot: Bitmap, x: Int, y: Int) -> Int? {
        let p = shot.pixel(x: x, y: y)
        return colours.firstIndex { abs($0.0 - Int(p.0)) < 40 && abs($0.1 - Int(p.1)) < 40 && abs($0.2 - Int(p.2)) < 40 }
    }
}

@MainActor
func isReady(_ e: VideoEvent) -> Bool { if case .ready = e { true } else { false } }
@MainActor
func isError(_ e: VideoEvent) -> Bool { if case .error = e { true } else { false } }

/// Videos over a real laminad on the virtual clock: the frame shown at time t is the frame of
/// media time t, through contents geometry, transforms and rounded corners; play, pause, seek,
/// rate, loop, end of stream; bad input is an error event to its client alone, and leaves no
/// thread or descriptor behind.
/// (The time limit only guards against a hang: a test takes seconds alone, minutes on a
/// 2-core machine running the KMS guests beside it.)
@Suite("video end to end", .serialized, .timeLimit(.minutes(10)))
@MainActor
struct VideoEndToEndTests {
    /// Another client that keeps a white 40×40 square at (250, 10) on screen while a test's
    /// video fails: bad input must not touch it.
    func bystander(_ daemon: DaemonProcess) async throws -> Connection {
        let other = try Connection.connect(to: daemon.socket, name: "other")
        let square = Layer()
        square.frame = Rect(x: 250, y: 10, width: 40, height: 40)
        square.backgroundColor = Color(red: 1, green: 1, blue: 1, alpha: 1)
        other.rootLayer.addSublayer(square)
        try await other.sync()
        return other
    }

    @Test("a playing video shows the frame of the clock's time; it ends with an event and keeps its last frame")
    func playsOnTheVirtualClock() async throws {
        let daemon = try DaemonProcess()
        let clip = try VideoClips.webm(in: daemon.directory)
        let c = try Connection.connect(to: daemon.socket, name: "video")
        let video = try VideoSource(contentsOfFile: clip, connection: c)
        let layer = Layer()
        layer.frame = Rect(x: 10, y: 10, width: 64, height: 48)
        layer.video = video
        c.rootLayer.addSublayer(layer)
        try await c.sync()
        let ready = await video.nextEvent(where: isReady)
        #expect(ready == .ready(width: 64, height: 48, duration: 3))
        #expect(VideoClips.colour(try await c.screenshot(), x: 42, y: 34) == 0, "paused at 0: red")
        // Paused: the clock moves, the picture does not.
        _ = try await c.advanceClock(by: 1.5)
        #expect(VideoClips.colour(try await c.screenshot(), x: 42, y: 34) == 0, "still paused at 0")
        video.play()
        try await c.sync()
        #expect(await video.nextEvent { $0 == .playing } == .playing)
        for (step, colour) in [(0.5, 0), (0.6, 1), (0.8, 1), (0.2, 2), (0.85, 2)] {
            _ = try await c.advanceClock(by: step)
            #expect(VideoClips.colour(try await c.screenshot(), x: 42, y: 34) == colour, "after \(step) more seconds")
        }
        // Outside the layer: the background.
        #expect(try await c.screenshot().pixel(x: 5, y: 5) == (0, 0, 0, 255))
        _ = try await c.advanceClock(by: 1)
        #expect(await video.nextEvent { $0 == .ended } == .ended)
        #expect(VideoClips.colour(try await c.screenshot(), x: 42, y: 34) == 2, "the last frame stays")
        #expect(try await c.stats().first { $0.name == "videos" }?.value == 1)
        // A software decoder's frames come in system memory: copied and uploaded, none imported.
        #expect(try await c.stats().first { $0.name == "video.framesSystemMemory" }?.value ?? 0 > 0)
        #expect(try await c.stats().first { $0.name == "video.framesDMABuf" }?.value == 0)
        // VP8 decodes to I420; on llvmpipe ([video] yuv = "auto") videoconvert makes it RGBA,
        // which costs less CPU than the renderer's shader would there.
        let stats = try await c.stats()
        #expect(stats.first { $0.name == "video.framesYUV" }?.value == 0 && stats.first { $0.name == "video.yuvConversions" }?.value == 0,
                "\(stats.filter { $0.name.hasPrefix("video.") })")
        video.destroy()
        try await c.sync()
        #expect(try await c.stats().first { $0.name == "videos" }?.value == 0)
        #expect(try await c.screenshot().pixel(x: 42, y: 34) == (0, 0, 0, 255), "a destroyed video shows nothing")
        c.close()
    }

    @Test("seek, rate and loop, through a transform, rounded corners and resize gravity")
    func seekRateLoopThroughGeometry() async throws {
        let daemon = try DaemonProcess()
        let clip = try VideoClips.webm(in: daemon.directory)
        let c = try Connection.connect(to: daemon.socket, name: "video")
        let video = try VideoSource(contentsOfFile: clip, connection: c)
        // 100×100 at (160, 120), scaled 2× by its transform: 200×200 on screen from (60, 20),
        // a 100-point corner radius makes it a circle; the video is stretched over it.
        let layer = Layer()
        layer.bounds = Rect(x: 0, y: 0, width: 100, height: 100)
        layer.position = Point(x: 160, y: 120)
        layer.transform = Transform3D.scale(x: 2, y: 2)
        layer.cornerRadius = 50
        layer.masksToBounds = true
        layer.contentsGravity = .resize
        layer.video = video
        c.rootLayer.addSublayer(layer)
        try await c.sync()
        _ = await video.nextEvent(where: isReady)
        try video.seek(to: 1.5)
        try await c.sync()
        var shot = try await c.screenshot()
        #expect(VideoClips.colour(shot, x: 160, y: 120) == 1, "seek to 1.5: green at the centre")
        #expect(VideoClips.colour(shot, x: 70, y: 120) == 1, "inside the circle at the left edge")
        #expect(shot.pixel(x: 64, y: 24) == (0, 0, 0, 255), "the rounded corner is cut away")
        try video.seek(to: 2.2)
        try await c.sync()
        #expect(VideoClips.colour(try await c.screenshot(), x: 160, y: 120) == 2, "seek forward to 2.2: blue")
        try video.seek(to: 0.1)
        try await c.sync()
        #expect(VideoClips.colour(try await c.screenshot(), x: 160, y: 120) == 0, "seek back to 0.1: red")
        // Rate 2 and loop: media time 0.1 + 2 × clock seconds, wrapped at 3.
        video.rate = 2
        video.loops = true
        video.play()
        try await c.sync()
        for (step, colour) in [(0.5, 1), (0.5, 2), (0.5, 0), (0.5, 1)] {
            _ = try await c.advanceClock(by: step)
            shot = try await c.screenshot()
            #expect(VideoClips.colour(shot, x: 160, y: 120) == colour, "after \(step) s more at rate 2, looping")
        }
        #expect(!video.events.contains(.ended), "a looping video does not end")
        video.pause()
        try await c.sync()
        #expect(await video.nextEvent { $0 == .paused } == .paused)
        let paused = try await c.screenshot()
        _ = try await c.advanceClock(by: 0.7)
        #expect(VideoClips.colour(try await c.screenshot(), x: 160, y: 120) == VideoClips.colour(paused, x: 160, y: 120))
        c.close()
    }

    func counts(_ pid: Int32) -> (threads: Int, descriptors: Int) {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task").count) ?? -1
        let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count) ?? -1
        return (tasks, fds)
    }

    /// The counts once they have stood still for a second (GStreamer's threads finish exiting
    /// a moment after a pipeline stops): a wait for a condition, bounded at 10 s.
    func settledCounts(_ pid: Int32) -> (threads: Int, descriptors: Int) {
        var last = counts(pid), same = 0
        for _ in 0..<200 where same < 20 {
            usleep(50_000)
            let now = counts(pid)
            if now == last { same += 1 } else { same = 0; last = now }
        }
        return last
    }

    @Test("bad input: a missing file, random bytes, a text file, a refused URL, a FIFO — error events to that client alone, no leaks")
    func badInput() async throws {
        let daemon = try DaemonProcess()
        let dir = daemon.directory
        let clip = try VideoClips.webm(in: dir)
        let pid = daemon.process.processIdentifier
        // Another client keeps drawing a white square throughout.
        let other = try await bystander(daemon)

        let c = try Connection.connect(to: daemon.socket, name: "video")
        var noise = [UInt8](repeating: 0, count: 8192)
        for i in noise.indices { noise[i] = UInt8.random(in: 0...255) }
        _ = FileManager.default.createFile(atPath: dir + "/noise.webm", contents: Data(noise))
        _ = FileManager.default.createFile(atPath: dir + "/notes.txt", contents: Data(String(repeating: "just some text\n", count: 200).utf8))
        #expect(mkfifo(dir + "/fifo.webm", 0o600) == 0)
        let sources = [clip, dir + "/missing.webm", dir + "/noise.webm", dir + "/notes.txt", "http://127.0.0.1:9/x.webm", dir + "/fifo.webm"]
        // Two rounds: the first pays GStreamer's and its plugins' once-only set-up (the HTTP
        // source's libraries keep threads and descriptors of their own); after the second,
        // threads and descriptors are what they were after the first.
        var settled: [(threads: Int, descriptors: Int)] = []
        for round in 1...2 {
            // One at a time: a bad one's decoder is gone once its error arrives, so the next
            // fits under max_videos (4) beside the good one.
            var videos: [VideoSource] = []
            for (k, s) in sources.enumerated() {
                let v = try VideoSource(uri: s, connection: c)
                let l = Layer()
                l.frame = Rect(x: 10, y: 10, width: 64, height: 48)
                l.video = v
                c.rootLayer.addSublayer(l)
                videos.append(v)
                try await c.sync()
                if k == 0 {
                    #expect(await v.nextEvent(where: isReady) == .ready(width: 64, height: 48, duration: 3))
                } else {
                    guard case .error(let message) = await v.nextEvent(where: isError) else { Issue.record("no error for \(s)"); continue }
                    #expect(!message.isEmpty, "\(s)")
                }
            }
            if case .error(let m) = videos[1].events.last { #expect(m.contains("No such file"), "missing file: \(m)") }
            if case .error(let m) = videos[5].events.last { #expect(m.contains("not a regular file"), "FIFO: \(m)") }
            // Controls on a failed video are harmless; the client stays connected.
            videos[2].play()
            try await c.sync()
            let shot = try await other.screenshot()
            #expect(shot.pixel(x: 270, y: 30) == (255, 255, 255, 255), "round \(round): the other client still draws")
            for v in videos { v.destroy() }
            for l in c.rootLayer.sublayers { l.removeFromSuperlayer() }
            try await c.sync()
            #expect(try await c.stats().first { $0.name == "videos" }?.value == 0)
            settled.append(settledCounts(pid))
        }
        #expect(settled[1].threads == settled[0].threads, "threads: \(settled[0].threads) after round 1, \(settled[1].threads) after round 2")
        #expect(settled[1].descriptors == settled[0].descriptors, "descriptors: \(settled[0].descriptors) after round 1, \(settled[1].descriptors) after round 2")
        let shot = try await other.screenshot()
        #expect(shot.pixel(x: 270, y: 30) == (255, 255, 255, 255))
        #expect(shot.pixel(x: 42, y: 34) == (0, 0, 0, 255))
        #expect(daemon.process.isRunning)
        c.close()
        other.close()
    }

    @Test("a URI that connects and never answers is an error event within [video] open_timeout, leaving no thread or descriptor",
          .enabled(if: MediaSupport.hasElement("souphttpsrc"), "GStreamer has no HTTP source (souphttpsrc, gstreamer1.0-plugins-good)"))
    func silentSource() async throws {
        let config = NSTemporaryDirectory() + "lamina-video-timeout-\(UUID().uuidString.prefix(8)).toml"
        try "[video]\nopen_timeout = 1\n".write(toFile: config, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: config) }
        let daemon = try DaemonProcess(extra: ["--config", config])
        let server = try MediaSupport.silentServer()
        defer { close(server.fd) }
        let pid = daemon.process.processIdentifier
        let other = try await bystander(daemon)
        let c = try Connection.connect(to: daemon.socket, name: "video")
        // Two rounds: the first pays GStreamer's and the HTTP source's once-only set-up; after
        // the second, threads and descriptors are what they were after the first.
        var settled: [(threads: Int, descriptors: Int)] = []
        for round in 1...2 {
            let video = try VideoSource(uri: "http://127.0.0.1:\(server.port)/x.webm", connection: c)
            let layer = Layer()
            layer.frame = Rect(x: 10, y: 10, width: 64, height: 48)
            layer.video = video
            c.rootLayer.addSublayer(layer)
            try await c.sync()
            // Other clients keep drawing meanwhile (a frame waits for the picture at most until
            // the open timeout).
            #expect(try await other.screenshot().pixel(x: 270, y: 30) == (255, 255, 255, 255), "round \(round)")
            // Polled with a deadline: the error is due after 1 s; 30 s is far past it (and past
            // GStreamer's own HTTP timeout of 15 s, whose message would not name open_timeout).
            for _ in 0..<3000 where video.error == nil { try await Task.sleep(nanoseconds: 10_000_000) }
            let message = try #require(video.error, "round \(round): no error event; events \(video.events)")
            #expect(message.contains("open_timeout") && message.contains("127.0.0.1"), "\(message)")
            #expect(try await c.stats().first { $0.name == "videos" }?.value == 0, "the decoder was stopped")
            video.destroy()
            layer.removeFromSuperlayer()
            try await c.sync()
            settled.append(settledCounts(pid))
        }
        #expect(settled[1].threads == settled[0].threads, "threads: \(settled[0].threads) after round 1, \(settled[1].threads) after round 2")
        #expect(settled[1].descriptors == settled[0].descriptors, "descriptors: \(settled[0].descriptors) after round 1, \(settled[1].descriptors) after round 2")
        #expect(try await other.screenshot().pixel(x: 270, y: 30) == (255, 255, 255, 255))
        #expect(daemon.process.isRunning)
        c.close()
        other.close()
    }

    @Test("at most max_videos decoders: the next is an error event, and a destroyed one frees its place")
    func decoderCap() async throws {
        let daemon = try DaemonProcess()
        let clip = try VideoClips.webm(in: daemon.directory)
        let c = try Connection.connect(to: daemon.socket, name: "video")
        var videos: [VideoSource] = []
        for _ in 0..<4 { videos.append(try VideoSource(contentsOfFile: clip, connection: c)) }
        try await c.sync()
        for v in videos { _ = await v.nextEvent(where: isReady) }
        let fifth = try VideoSource(contentsOfFile: clip, connection: c)
        try await c.sync()
        guard case .error(let m) = await fifth.nextEvent(where: isError) else { return }
        #expect(m.contains("max_videos"), "\(m)")
        videos[0].destroy()
        try await c.sync()
        let sixth = try VideoSource(contentsOfFile: clip, connection: c)
        try await c.sync()
        #expect(await sixth.nextEvent { isReady($0) || isError($0) } == .ready(width: 64, height: 48, duration: 3))
        c.close()
    }

    @Test("a scene's \"video\" with loop, playing and rate; laminactl video NAME play, pause, seek")
    func sceneAndLaminactl() async throws {
        let daemon = try DaemonProcess()
        _ = try VideoClips.webm(in: daemon.directory, name: "clip.webm")
        let scene = daemon.directory + "/scene.json"
        try """
        {"sublayers": [
          {"name": "still", "frame": [10, 10, 64, 48], "video": "clip.webm"},
          {"name": "fast", "frame": [100, 10, 64, 48], "video": "clip.webm", "playing": true, "loop": true, "rate": 2}
        ]}
        """.write(toFile: scene, atomically: true, encoding: .utf8)
        let applied = try daemon.laminactl(["apply", scene])
        #expect(applied.status == 0, "\(applied.output)")
        let c = try Connection.connect(to: daemon.socket, name: "look")
        // The apply's frame drew both first pictures (a virtual clock waits for them).
        var shot = try await c.screenshot()
        #expect(VideoClips.colour(shot, x: 42, y: 34) == 0 && VideoClips.colour(shot, x: 132, y: 34) == 0)
        _ = try await c.advanceClock(by: 1)
        shot = try await c.screenshot()
        #expect(VideoClips.colour(shot, x: 42, y: 34) == 0, "not playing: still red")
        #expect(VideoClips.colour(shot, x: 132, y: 34) == 2, "rate 2, one second: media time 2, blue")
        _ = try await c.advanceClock(by: 0.75)
        #expect(VideoClips.colour(try await c.screenshot(), x: 132, y: 34) == 0, "looped: media time 3.5 → 0.5, red")

        var r = try daemon.laminactl(["video", "still", "seek", "1.5"])
        #expect(r.status == 0, "\(r.output)")
        #expect(VideoClips.colour(try await c.screenshot(), x: 42, y: 34) == 1, "seek 1.5: green")
        r = try daemon.laminactl(["video", "still", "play"])
        #expect(r.status == 0, "\(r.output)")
        _ = try await c.advanceClock(by: 1)
        #expect(VideoClips.colour(try await c.screenshot(), x: 42, y: 34) == 2, "played one second from 1.5: blue")
        r = try daemon.laminactl(["video", "still", "pause"])
        #expect(r.status == 0, "\(r.output)")
        _ = try await c.advanceClock(by: 5)
        #expect(VideoClips.colour(try await c.screenshot(), x: 42, y: 34) == 2, "paused")
        #expect(try await c.stats().first { $0.name == "videos" }?.value == 2, "the controls' clients made no videos")
        r = try daemon.laminactl(["video", "nobody", "play"])
        #expect(r.status != 0 && r.output.contains("no layer named 'nobody'"), "\(r.output)")
        r = try daemon.laminactl(["video", "still", "rewind"])
        #expect(r.status != 0 && r.output.contains("play, pause, seek, volume, mute or unmute"), "\(r.output)")
        // Applying the scene again makes new videos and stops the old ones.
        #expect(try daemon.laminactl(["apply", scene]).status == 0)
        #expect(try await c.stats().first { $0.name == "videos" }?.value == 2)
        c.close()
    }

    /// Plays `path` far enough to see all three colours, paused, by seeking.
    /// `path` shown by a 64×48 layer at (10, 10) on a new connection, with the video's first
    /// `ready` or `error` event.
    func show(_ path: String, on daemon: DaemonProcess, name: String) async throws -> (Connection, VideoSource, VideoEvent) {
        let c = try Connection.connect(to: daemon.socket, name: name)
        let video = try VideoSource(contentsOfFile: path, connection: c)
        let layer = Layer()
        layer.frame = Rect(x: 10, y: 10, width: 64, height: 48)
        layer.video = video
        c.rootLayer.addSublayer(layer)
        try await c.sync()
        return (c, video, await video.nextEvent { isReady($0) || isError($0) })
    }

    func checkColours(_ path: String, on daemon: DaemonProcess) async throws {
        let (c, video, ready) = try await show(path, on: daemon, name: "formats")
        guard case .ready(let w, let h, let d) = ready else { Issue.record("\(path): \(ready)"); return }
        #expect(w == 64 && h == 48 && abs((d ?? 0) - 3) < 0.1, "\(path): \(ready)")
        for (t, colour) in [(0.5, 0), (1.5, 1), (2.5, 2), (0.2, 0)] {
            try video.seek(to: t)
            try await c.sync()
            #expect(VideoClips.colour(try await c.screenshot(), x: 42, y: 34) == colour, "\(path) at \(t)")
        }
        c.close()
    }

    // (MPEG-4 Part 2 from avenc_mpeg4 into mp4mux came out with every timestamp 0 in
    // gst-launch-1.0 itself, so MP4 is covered only by the H.264 test, when an encoder exists.)
    @Test("other containers and codecs: VP9 in WebM, Theora in Ogg")
    func otherFormats() async throws {
        let daemon = try DaemonProcess()
        let dir = daemon.directory
        try await checkColours(try VideoClips.clip(in: dir, name: "vp9.webm", encoder: ["vp9enc", "deadline=1", "!", "webmmux"]), on: daemon)
        try await checkColours(try VideoClips.clip(in: dir, name: "clip.ogv", encoder: ["theoraenc", "!", "oggmux"]), on: daemon)
    }

    @Test("[video] yuv = \"renderer\": planar YUV pictures come through as they are and the renderer's shader converts them, for every codec")
    func yuvInTheRenderer() async throws {
        let config = NSTemporaryDirectory() + "lamina-video-yuv-\(UUID().uuidString.prefix(8)).toml"
        try "[video]\nyuv = \"renderer\"\n".write(toFile: config, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: config) }
        let daemon = try DaemonProcess(extra: ["--config", config])
        let dir = daemon.directory
        try await checkColours(try VideoClips.webm(in: dir), on: daemon)
        try await checkColours(try VideoClips.clip(in: dir, name: "clip.ogv", encoder: ["theoraenc", "!", "oggmux"]), on: daemon)
        if let encoder = VideoClips.h264Encoder, encoder == "x264enc" {
            try await checkColours(try VideoClips.clip(in: dir, name: "h264.mp4", encoder: [encoder, "tune=zerolatency", "!", "mp4mux"]), on: daemon)
        }
        let c = try Connection.connect(to: daemon.socket, name: "stats")
        let stats = try await c.stats()
        // (Frames decoded ahead and never shown are counted, not converted.)
        #expect(stats.first { $0.name == "video.framesYUV" }?.value ?? 0 >= 8 && stats.first { $0.name == "video.yuvConversions" }?.value ?? 0 >= 3,
                "\(stats.filter { $0.name.hasPrefix("video.") })")
        c.close()
        let log = daemon.logText
        #expect(log.contains("converted to RGB in the renderer's shader") && log.contains("([video] yuv = renderer)"), "the choice is logged")
    }

    /// A BT.2020 stream (VP9 tagged so in the bitstream): the renderer's shader converts it with
    /// BT.2020's matrix, so it shows what GStreamer's videoconvert shows (the default on
    /// llvmpipe); with BT.601's, saturated colours were ~10 off.
    @Test("a BT.2020 stream converted in the renderer's shader matches videoconvert's conversion")
    func bt2020InTheShader() async throws {
        let config = NSTemporaryDirectory() + "lamina-video-2020-\(UUID().uuidString.prefix(8)).toml"
        try "[video]\nyuv = \"renderer\"\n".write(toFile: config, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: config) }
        let shader = try DaemonProcess(extra: ["--config", config])
        let reference = try DaemonProcess()
        let clip = try VideoClips.clip(in: shader.directory, name: "bt2020.webm",
                                       encoder: ["video/x-raw,format=I420,colorimetry=bt2020", "!", "vp9enc", "deadline=1", "!", "webmmux"])
        func pixels(on daemon: DaemonProcess) async throws -> [(UInt8, UInt8, UInt8, UInt8)] {
            let (c, video, ready) = try await show(clip, on: daemon, name: "bt2020")
            defer { c.close() }
            guard case .ready = ready else { Issue.record("\(ready)"); return [] }
            var out: [(UInt8, UInt8, UInt8, UInt8)] = []
            for t in [0.5, 1.5, 2.5] {
                try video.seek(to: t)
                try await c.sync()
                out.append(try await c.screenshot().pixel(x: 42, y: 34))
            }
            return out
        }
        let converted = try await pixels(on: shader), expected = try await pixels(on: reference)
        #expect(converted.count == 3 && expected.count == 3)
        for (a, b) in zip(converted, expected) {
            #expect(abs(Int(a.0) - Int(b.0)) <= 4 && abs(Int(a.1) - Int(b.1)) <= 4 && abs(Int(a.2) - Int(b.2)) <= 4,
                    "shader \(a), videoconvert \(b)")
        }
        let c = try Connection.connect(to: shader.socket, name: "stats")
        #expect(try await c.stats().first { $0.name == "video.yuvConversions" }?.value ?? 0 >= 3, "the shader converted them")
        c.close()
    }

    /// (No h264parse between them: it is in -bad; mp4mux takes x264enc's AVC stream as it is.
    /// x264enc without B-frames or look-ahead, `tune=zerolatency`: with them mp4mux, unparsed,
    /// wrote a 3.2-second clip whose frames showed 0.2 s late.)
    @Test("H.264 in MP4 (decoded by libav's avdec_h264)",
          .enabled(if: VideoClips.h264Encoder != nil, "no H.264 encoder to make the clip: x264enc (gstreamer1.0-plugins-ugly) or openh264enc (-bad) is not installed"))
    func h264() async throws {
        let daemon = try DaemonProcess()
        let encoder = try #require(VideoClips.h264Encoder)
        try await checkColours(try VideoClips.clip(in: daemon.directory, name: "h264.mp4", encoder: encoder == "x264enc" ? [encoder, "tune=zerolatency", "!", "mp4mux"] : [encoder, "!", "mp4mux"]), on: daemon)
    }

    @Test("on a real clock a playing video moves on by itself; a client that disconnects stops its videos")
    func realClock() async throws {
        let daemon = try DaemonProcess(extra: ["--clock", "real"])
        let clip = try VideoClips.webm(in: daemon.directory)
        let c = try Connection.connect(to: daemon.socket, name: "real")
        let video = try VideoSource(contentsOfFile: clip, connection: c)
        video.loops = true
        video.play()
        let layer = Layer()
        layer.frame = Rect(x: 10, y: 10, width: 64, height: 48)
        layer.video = video
        c.rootLayer.addSublayer(layer)
        try await c.sync()
        _ = await video.nextEvent(where: isReady)
        // Wait (bounded, 20 s) for each colour to come round: nothing but the clock moves it.
        var seen = Set<Int>()
        for _ in 0..<400 where seen.count < 3 {
            if let k = VideoClips.colour(try await c.screenshot(), x: 42, y: 34) { seen.insert(k) }
            usleep(50_000)
        }
        #expect(seen == [0, 1, 2], "colours seen: \(seen.sorted())")
        let watcher = try Connection.connect(to: daemon.socket, name: "watcher")
        #expect(try await watcher.stats().first { $0.name == "videosPlaying" }?.value == 1)
        c.close()
        var left = 1.0
        for _ in 0..<200 where left != 0 {
            left = try await watcher.stats().first { $0.name == "videos" }?.value ?? -1
            if left != 0 { usleep(25_000) }
        }
        #expect(left == 0, "the disconnected client's video was stopped")
        watcher.close()
    }
}
