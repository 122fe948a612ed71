import CGStreamer
import Foundation
import LaminaCore
import LaminaCompositor
import Testing
import LaminaTestSupport
@testable import LaminaVideo

/// Makes small clips with gst-launch-1.0 (gstreamer1.0-tools): second k of a clip is one
/// solid colour, `colours[k]`, at 10 frames a second.
enum Clips {
    static let colours: [(UInt8, UInt8, UInt8)] = [(255, 0, 0), (0, 255, 0), (0, 0, 255)]

    /// A 3-second VP8/WebM clip of 64×48 (red, green, blue seconds); nil when gst-launch-1.0 or
    /// an encoder is missing.
    static func webm(in directory: String, name: String = "clip.webm", width: Int = 64, height: Int = 48) throws -> String {
        let path = directory + "/" + name
        var arguments = ["-q", "concat", "name=c", "!", "videoconvert", "!", "vp8enc", "deadline=1", "!", "webmmux", "!", "filesink", "location=\(path)"]
        for (r, g, b) in colours {
            let argb = String(format: "0xff%02x%02x%02x", r, g, b)
            arguments += ["videotestsrc", "pattern=solid-color", "foreground-color=\(argb)", "num-buffers=10", "!",
                          "video/x-raw,width=\(width),height=\(height),framerate=10/1", "!", "c."]
        }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/gst-launch-1.0")
        p.arguments = arguments
        try p.run()
        p.waitUntilExit()
        guard p.terminationStatus == 0, FileManager.default.fileExists(atPath: path) else {
            throw ClipError("gst-launch-1.0 \(arguments.joined(separator: " ")) exited with \(p.terminationStatus)")
        }
        return path
    }

    static func directory() throws -> String {
        let d = NSTemporaryDirectory() + "lamina-video-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true)
        return d
    }

    /// Which of `colours` a pixel is (VP8 is lossy: within 40 per channel), or nil.
    static func colourIndex(_ bitmap: Bitmap, x: Int, y: Int) -> Int? {
        let i = (y * bitmap.width + x) * 4
        let p = (Int(bitmap.bytes[i]), Int(bitmap.bytes[i + 1]), Int(bitmap.bytes[i + 2]))
        return colours.firstIndex { abs(Int($0.0) - p.0) < 40 && abs(Int($0.1) - p.1) < 40 && abs(Int($0.2) - p.2) < 40 }
    }
}

struct ClipError: Error, CustomStringConvertible {
    var description: String
    init(_ d: String) { description = d }
}

@Suite("GStreamer decoder", .serialized)
struct GStreamerDecoderTests {
    /// Waits for the decoder's first events, polling: at most 30 s of real time, a bound a slow,
    /// loaded machine stays within (a fast one returns as soon as they come).
    func events(_ d: any VideoDecoder, until done: ([VideoDecoderEvent]) -> Bool) -> [VideoDecoderEvent] {
        var all: [VideoDecoderEvent] = []
        let giveUp = Date().addingTimeInterval(30)
        repeat {
            all += d.takeEvents()
            if done(all) { break }
            usleep(25_000)
        } while Date() < giveUp
        return all
    }

    @Test("frames at chosen media times have the colour of that second, forwards, backwards and after a jump")
    func framesByTime() throws {
        let dir = try Clips.directory()
        let clip = try Clips.webm(in: dir)
        let video = try GStreamerVideo()
        video.planarYUV = true  // as where the renderer converts YUV: VP8's I420 comes through as it is
        let d = try video.open(uri: clip)
        defer { d.close() }
        let ready = events(d) { $0.contains { if case .ready = $0 { true } else { false } } }
        let first = try #require(ready.first { if case .ready = $0 { true } else { false } })
        guard case let .ready(w, h, duration) = first else { return }
        #expect(w == 64 && h == 48)
        #expect(abs((duration ?? 0) - 3) < 0.05)
        for (t, colour) in [(0.0, 0), (0.55, 0), (1.05, 1), (1.95, 1), (2.5, 2), (0.2, 0), (2.9, 2), (1.0, 1)] {
            let f = try #require(d.frame(at: t, wait: 30), "no frame at \(t)")
            #expect(f.time <= t + 1e-6 && f.time > t - 0.1 - 1e-6, "frame at \(t) has PTS \(f.time)")
            guard let picture = f.planar else {
                Issue.record("the frame at \(t) is not planar YUV (\(f.width)×\(f.height))")
                continue
            }
            #expect(Clips.colourIndex(picture.rgba(), x: 32, y: 24) == colour, "frame at \(t)")
        }
    }

    @Test("the end of the stream is an event; the last frame stays")
    func endOfStream() throws {
        let dir = try Clips.directory()
        let d = try GStreamerVideo().open(uri: try Clips.webm(in: dir))
        defer { d.close() }
        let f = try #require(d.frame(at: 10, wait: 30))
        #expect(Clips.colourIndex(f.planar?.rgba() ?? f.bitmap, x: 1, y: 1) == 2)
        let e = events(d) { $0.contains(.ended) }
        #expect(e.contains(.ended))
    }

    @Test("bad input: a missing file, a FIFO, an unknown scheme are refused at once; random bytes are an error event")
    func badInput() throws {
        let dir = try Clips.directory()
        let video = try GStreamerVideo()
        #expect(throws: VideoOpenError.self) { _ = try video.open(uri: dir + "/missing.webm") }
        mkfifo(dir + "/fifo", 0o600)
        do {
            _ = try video.open(uri: dir + "/fifo")
            Issue.record("a FIFO was opened")
        } catch {
            #expect(error.message.contains("not a regular file"))
        }
        #expect(throws: VideoOpenError.self) { _ = try video.open(uri: "nosuchscheme://x/y") }
        var noise = [UInt8](repeating: 0, count: 4096)
        for i in noise.indices { noise[i] = UInt8.random(in: 0...255) }
        _ = FileManager.default.createFile(atPath: dir + "/noise.webm", contents: Data(noise))
        let d = try video.open(uri: dir + "/noise.webm")
        defer { d.close() }
        let e = events(d) { $0.contains { if case .error = $0 { true } else { false } } }
        let message = e.compactMap { if case .error(let m) = $0 { m } else { nil } }.first
        #expect(message != nil, "events: \(e)")
        #expect(d.frame(at: 0, wait: 1) == nil)
    }

    @Test("a source that never answers wakes the loop at the open timeout with an error event",
          .enabled(if: MediaSupport.hasElement("souphttpsrc"), "GStreamer has no HTTP source (souphttpsrc, gstreamer1.0-plugins-good)"))
    func openTimeout() throws {
        // A TCP listener that never accepts: the connection is made, the request sent, no answer.
        let server = try MediaSupport.silentServer()
        defer { close(server.fd) }
        let video = try GStreamerVideo()
        video.openTimeout = 0.5
        let d = try video.open(uri: "http://127.0.0.1:\(server.port)/x.webm")
        defer { d.close() }
        // Waits on the wake-up descriptor as laminad's loop does, looking at the events only
        // when woken: the silent source soon posts nothing more, so what wakes it at the
        // deadline is the decoder's own alarm (without it, the wait below runs out).
        var all: [VideoDecoderEvent] = []
        var silent = false
        while !silent, !all.contains(where: { if case .error = $0 { true } else { false } }) {
            var p = pollfd(fd: video.wakeup, events: Int16(POLLIN), revents: 0)
            guard poll(&p, 1, 30_000) > 0 else { silent = true; break }
            video.drainWakeup()
            all += d.takeEvents()
        }
        #expect(!silent, "nothing woke the loop within 30 s of the last wake-up; events \(all)")
        let message = all.compactMap { if case .error(let m) = $0 { m } else { nil } }.first
        #expect(message?.contains("open_timeout") == true, "events: \(all)")
        #expect(!all.contains { if case .ready = $0 { true } else { false } })
        #expect(d.frame(at: 0, wait: 1) == nil, "no frame, and no wait: the decoder failed")
    }
}

extension GStreamerDecoderTests {
    /// 6 s of a moving ball (64×48, 10 fps, VP8 with a key frame every half second, so WebM
    /// clusters every half second): a stream a demuxer can play part of.
    static func streamClip(in directory: String) throws -> [UInt8] {
        let path = directory + "/stream.webm"
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/gst-launch-1.0")
        p.arguments = ["-q", "videotestsrc", "pattern=ball", "num-buffers=60", "!", "video/x-raw,width=64,height=48,framerate=10/1", "!",
                       "vp8enc", "deadline=1", "keyframe-max-dist=5", "!", "webmmux", "!", "filesink", "location=\(path)"]
        try p.run()
        p.waitUntilExit()
        guard p.terminationStatus == 0, let data = FileManager.default.contents(atPath: path) else {
            throw ClipError("gst-launch-1.0 could not make \(path)")
        }
        return Array(data)
    }

    @Test("a stream that stops sending mid-way is an error event once playing has starved stall_timeout seconds",
          .enabled(if: MediaSupport.hasElement("souphttpsrc"), "GStreamer has no HTTP source (souphttpsrc, gstreamer1.0-plugins-good)"))
    func stalledStream() throws {
        let dir = try Clips.directory()
        let clip = try Self.streamClip(in: dir)
        try #require(clip.count > 1000)
        // Half the clip, then silence: the first second or so decodes, then nothing comes.
        let server = try MediaSupport.StallingServer(body: clip, sent: clip.count / 2)
        defer { server.stop() }
        let video = try GStreamerVideo()
        video.stallTimeout = 0.5
        let d = try video.open(uri: "http://127.0.0.1:\(server.port)/clip.webm")
        defer { d.close() }
        // Plays as laminad's loop does (the media time moving a tenth of a second a call, each
        // call waiting at most that long for its picture), until an error or 30 s of real time.
        var all: [VideoDecoderEvent] = []
        var t = 0.0, lastShown = -1.0
        let giveUp = Date().addingTimeInterval(30)
        while !all.contains(where: { if case .error = $0 { true } else { false } }), Date() < giveUp {
            if let f = d.frame(at: t, wait: 0.1) { lastShown = f.time }
            all += d.takeEvents()
            t += 0.1
        }
        let message = all.compactMap { if case .error(let m) = $0 { m } else { nil } }.first
        #expect(message?.contains("stall_timeout") == true, "events: \(all)")
        #expect(all.contains { if case .ready = $0 { true } else { false } }, "it played first: \(all)")
        #expect(lastShown > 0 && lastShown < 5.5, "pictures from the half that came, not the end (last \(lastShown))")
        #expect(!all.contains { $0 == .ended })
    }

    /// With a real clock laminad waits for no picture (it shows the newest it has): at a
    /// loop's wrap the decoder seeks back to 0 and, while that seek is in flight, must not seek
    /// again at every frame (a flushing seek each frame let no picture through, and the stall
    /// watch then failed a healthy looping video).
    @Test("a loop's wrap on a real clock reaches the start's pictures and is no stall")
    func loopWrapOnARealClock() throws {
        let dir = try Clips.directory()
        let video = try GStreamerVideo()
        // Real time, so with room for a slow, loaded machine: a healthy wrap's seek lands in
        // milliseconds, seconds at worst there. A wrap that seeks again at every frame never
        // lands: the start's picture does not show within giveUp, however long that is.
        video.stallTimeout = 10
        let d = try video.open(uri: try Clips.webm(in: dir))
        defer { d.close() }
        let end = try #require(d.frame(at: 2.95, wait: 30))
        #expect(end.time > 2.5)
        // Frames every 16 ms of real time (laminad's pace at 60 Hz; no wait), the media time
        // starting again from 0, until the start's picture shows or 30 s pass.
        var t = 0.0, shown = end.time
        let giveUp = Date().addingTimeInterval(30)
        var all: [VideoDecoderEvent] = []
        while shown > 1, Date() < giveUp {
            usleep(16_000)
            t += 0.016
            if let f = d.frame(at: t, wait: 0) { shown = f.time }
            all += d.takeEvents()
        }
        #expect(shown < 1, "the wrap never showed the start (still \(shown) at media time \(t))")
        #expect(!all.contains { if case .error = $0 { true } else { false } }, "\(all)")
    }

    @Test("a paused video, or one whose stall_timeout is 0, never stalls",
          .enabled(if: MediaSupport.hasElement("souphttpsrc"), "GStreamer has no HTTP source (souphttpsrc, gstreamer1.0-plugins-good)"))
    func pausedOrUnwatchedNeverStalls() throws {
        let dir = try Clips.directory()
        let clip = try Self.streamClip(in: dir)
        let server = try MediaSupport.StallingServer(body: clip, sent: clip.count / 2)
        defer { server.stop() }
        for timeout in [0.3, 0] {
            let video = try GStreamerVideo()
            video.stallTimeout = timeout
            let d = try video.open(uri: "http://127.0.0.1:\(server.port)/clip.webm")
            defer { d.close() }
            var all: [VideoDecoderEvent] = []
            // Paused at 0.25 s (between two pictures), then inside the gap where no picture
            // came (the same time asked again and again), a second of real time each...
            for paused in [0.25, 4.5] {
                let pausedUntil = Date().addingTimeInterval(1)
                while Date() < pausedUntil { _ = d.frame(at: paused, wait: 0.1); all += d.takeEvents() }
                #expect(!all.contains { if case .error = $0 { true } else { false } }, "paused at \(paused) (timeout \(timeout)): \(all)")
            }
            if timeout == 0 {
                // ...and with no timeout, playing into the gap for a second errs nothing either.
                let playingUntil = Date().addingTimeInterval(1)
                var t = 0.2
                while Date() < playingUntil { _ = d.frame(at: t, wait: 0.1); all += d.takeEvents(); t += 0.5 }
                #expect(!all.contains { if case .error = $0 { true } else { false } }, "stall_timeout 0: \(all)")
            }
        }
    }
}

/// The packed RGB layouts the sink takes, copied into the premultiplied RGBA the renderer wants.
@Suite("Packed video layouts")
struct PackedLayoutTests {
    @Test func bgrxBecomesOpaqueRGBAAndBGRAIsPremultiplied() throws {
        // Two pixels a row, a padded row of 12 bytes: blue-green-red-x and B,G,R,A 50 %.
        let rows: [UInt8] = [10, 20, 30, 0, 40, 50, 60, 7, 0xEE, 0xEE, 0xEE, 0xEE,
                             200, 100, 0, 128, 0, 0, 255, 255, 0xEE, 0xEE, 0xEE, 0xEE]
        let bgrx = try #require(PackedLayout(GST_VIDEO_FORMAT_BGRx))
        #expect(bgrx.fourcc == DRMFourCC.xrgb8888 && !bgrx.hasAlpha)
        let opaque = rows.withUnsafeBytes { bgrx.bitmapAndOpacity($0.baseAddress!, width: 2, height: 2, rowBytes: 12) }
        #expect(opaque.bitmap.bytes == [30, 20, 10, 255, 60, 50, 40, 255, 0, 100, 200, 255, 255, 0, 0, 255])
        #expect(opaque.opaque, "a padded layout is opaque whatever its fourth byte")
        let bgra = try #require(PackedLayout(GST_VIDEO_FORMAT_BGRA))
        #expect(bgra.fourcc == DRMFourCC.argb8888 && bgra.hasAlpha)
        let straight = rows.withUnsafeBytes { bgra.bitmapAndOpacity($0.baseAddress!, width: 2, height: 2, rowBytes: 12) }
        #expect(Array(straight.bitmap.bytes[8..<12]) == [0, 50, 100, 128], "premultiplied by 128/255")
        #expect(Array(straight.bitmap.bytes[4..<8]) == [2, 1, 1, 7], "R 60, G 50, B 40 at alpha 7, rounded")
        #expect(!straight.opaque)
        // A camera's alpha byte is not image data: its layouts are taken as padded.
        #expect(try #require(PackedLayout(GST_VIDEO_FORMAT_RGBA)).opaque.fourcc == DRMFourCC.xbgr8888)
        #expect(bgra.opaque.fourcc == DRMFourCC.xrgb8888 && !bgra.opaque.hasAlpha)
        #expect(PackedLayout(GST_VIDEO_FORMAT_I420) == nil)
    }
}

extension PackedLayoutTests {
    @Test func theOpacityScanFindsAnyTranslucentPixel() {
        for count in [0, 1, 2, 3, 17] {
            var pixels = [UInt8](repeating: 255, count: count * 4)
            #expect(pixels.withUnsafeBytes { PackedPixels.allOpaque($0) }, "\(count) opaque pixels")
            for p in 0..<count {
                pixels[p * 4 + 3] = 254
                #expect(!pixels.withUnsafeBytes { PackedPixels.allOpaque($0) }, "pixel \(p) of \(count) translucent")
                pixels[p * 4 + 3] = 255
                pixels[p * 4] = 0  // colour bytes do not matter
                #expect(pixels.withUnsafeBytes { PackedPixels.allOpaque($0) })
            }
        }
    }
}

/// A camera URI must name a character device: v4l2src opens it during a state change on
/// laminad's loop thread, where a FIFO would block every client.
@Suite("Camera URIs")
struct CameraURITests {
    @Test func onlyACharacterDeviceIsOpenedAsACamera() throws {
        let dir = try Clips.directory()
        let fifo = dir + "/camera.fifo", file = dir + "/camera.txt"
        #expect(mkfifo(fifo, 0o600) == 0)
        _ = FileManager.default.createFile(atPath: file, contents: Data("not a camera".utf8))
        for (path, words) in [(fifo, "is not a V4L2 device"), (file, "is not a V4L2 device"), (dir + "/missing", "No such file")] {
            do {
                _ = try VideoSourcePolicy.resolve("v4l2://" + path)
                Issue.record("v4l2://\(path) was accepted")
            } catch {
                #expect(error.message.contains(words), "\(error.message)")
            }
        }
        // /dev/null is a character device: accepted here (v4l2src then reports it is no camera).
        #expect(try VideoSourcePolicy.resolve("v4l2:///dev/null") == "v4l2:///dev/null")
    }
}

/// The planar YUV layouts the sink takes where the renderer converts YUV, copied into separate
/// packed planes; the decoder's offsets and strides are checked against the buffer.
@Suite("Planar video layouts")
struct PlanarLayoutTests {
    /// A 3×3 picture (2×2 chroma) with padded rows: luma rows of 4, chroma rows of 4 (NV12's
    /// interleaved pairs) or 3 (I420), after an 8-byte header.
    @Test func nv12AndI420BecomeSeparatePackedPlanes() throws {
        var nv12: [UInt8] = Array(repeating: 0xEE, count: 8)
        nv12 += [1, 2, 3, 0xEE, 4, 5, 6, 0xEE, 7, 8, 9, 0xEE]          // Y, stride 4
        nv12 += [10, 20, 11, 21, 12, 22, 13, 23]                        // CbCr pairs, stride 4
        let n = try #require(nv12.withUnsafeBytes {
            PlanarLayout.nv12.picture($0, width: 3, height: 3, offsets: [8, 20], strides: [4, 4], matrix: .bt709, fullRange: true)
        })
        #expect(n.luma == [1, 2, 3, 4, 5, 6, 7, 8, 9] && n.cb == [10, 11, 12, 13] && n.cr == [20, 21, 22, 23])
        #expect(n.matrix == .bt709 && n.fullRange)
        var i420: [UInt8] = [1, 2, 3, 0, 4, 5, 6, 0, 7, 8, 9, 0]        // Y, stride 4
        i420 += [10, 11, 0, 12, 13, 0]                                  // Cb, stride 3
        i420 += [20, 21, 0, 22, 23, 0]                                  // Cr, stride 3
        let i = try #require(i420.withUnsafeBytes {
            PlanarLayout.i420.picture($0, width: 3, height: 3, offsets: [0, 12, 18], strides: [4, 3, 3], matrix: .bt601, fullRange: false)
        })
        #expect(i.luma == n.luma && i.cb == n.cb && i.cr == n.cr)
    }

    @Test func planesOutsideTheBufferOrShortStridesAreRefused() {
        let bytes = [UInt8](repeating: 7, count: 24)
        func picture(_ offsets: [Int], _ strides: [Int]) -> PlanarPicture? {
            bytes.withUnsafeBytes { PlanarLayout.nv12.picture($0, width: 3, height: 3, offsets: offsets, strides: strides, matrix: .bt601, fullRange: false) }
        }
        #expect(picture([0, 12], [4, 4]) != nil)
        #expect(picture([0, 20], [4, 4]) == nil, "the chroma plane reaches past the buffer")
        #expect(picture([0, 12], [2, 4]) == nil, "a luma stride shorter than a row")
        #expect(picture([-1, 12], [4, 4]) == nil, "an offset the decoder could not have")
        #expect(picture([0, 12], [Int.max / 2, 4]) == nil, "a stride that would overflow")
        #expect(picture([0], [4]) == nil, "too few planes")
    }
}
