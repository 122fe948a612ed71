import Testing
import LaminaTestSupport
import LaminaCore
import LaminaProtocol
@testable import LaminaCompositor

/// A decoder that answers at once: the picture for media time m has time ⌊10 m⌋ / 10 and is
/// red, green or blue by the second; it records what it was asked.
final class FakeDecoder: VideoDecoder {
    var asked: [Double] = []
    var pending: [VideoDecoderEvent]
    var closed = false
    let width: Int, height: Int
    init(width: Int, height: Int, duration: Double?) {
        self.width = width
        self.height = height
        pending = [.ready(width: width, height: height, duration: duration)]
    }
    func frame(at mediaTime: Double, wait: Double) -> VideoFrame? {
        asked.append(mediaTime)
        let t = (mediaTime * 10).rounded(.down) / 10
        let k = min(2, Int(t))
        let fill: (UInt8, UInt8, UInt8, UInt8) = [(255, 0, 0, 255), (0, 255, 0, 255), (0, 0, 255, 255)][k]
        return VideoFrame(bitmap: Bitmap(width: width, height: height, fill: fill), time: t)
    }
    func takeEvents() -> [VideoDecoderEvent] {
        defer { pending = [] }
        return pending
    }
    func close() { closed = true }
}

final class FakeVideo: VideoDecoding {
    var opened: [(uri: String, decoder: FakeDecoder)] = []
    var width = 16, height = 16
    var duration: Double? = 3
    func open(uri: String) throws(VideoOpenError) -> any VideoDecoder {
        if uri.hasPrefix("/refuse") { throw VideoOpenError("\(uri) is not a regular file") }
        let d = FakeDecoder(width: width, height: height, duration: duration)
        opened.append((uri, d))
        return d
    }
    var statistics: [(name: String, value: Double)] { [("fake", 1)] }
    var uploadPath: String { "fake" }
}

@Suite("Compositor videos", .serialized)
final class VideoCompositorTests {
    let h: CompositorHarness
    var compositor: Compositor { h.compositor }
    let video = FakeVideo()

    init() throws {
        h = try CompositorHarness(headlessWidth: 64, height: 48) {
            $0.limits.maxImageBytes = 64 * 64 * 4
            $0.maxVideos = 2
        }
        compositor.videoDecoding = video
    }

    func videoEvents(_ id: ClientID) -> [VideoEvent] {
        h.take(id).compactMap { if case .video(_, let e) = $0 { e } else { nil } }
    }

    func showVideo(_ n: UInt32, layer: UInt32, uri: String = "/clip.webm") -> [Operation] {
        [.createVideo(image: n, uri: uri), .create(LayerID(layer)),
         .set(LayerID(layer), .bounds, .rect(Rect(x: 0, y: 0, width: 16, height: 16))),
         .set(LayerID(layer), .position, .point(Point(x: 8, y: 8))), .set(LayerID(layer), .contents, .image(n)),
         .insert(parent: .root, child: LayerID(layer), index: .max)]
    }

    /// The screenshot's pixel at (8, 8), the video layer's middle, as [r, g, b, a].
    func pixel(_ id: ClientID) -> [UInt8] {
        guard let p = (try? h.screenshot(id))?.pixel(x: 8, y: 8) else { return [] }
        return [p.r, p.g, p.b, p.a]
    }

    @Test func mediaTimeFollowsPlayRateLoopAndSeek() throws {
        let a = h.hello("a")
        h.feed(a, .commit(Commit(serial: 1, operations: showVideo(5, layer: 1))))
        #expect(h.take(a).contains(.applied(serial: 1)))
        // The frame drawn for the screenshot pulled the first picture; the ready event went out with it.
        #expect(pixel(a) == [255, 0, 0, 255])
        #expect(videoEvents(a) == [.ready(width: 16, height: 16, duration: 3)])
        compositor.pollVideos()
        #expect(videoEvents(a).isEmpty, "ready is sent once")
        h.feed(a, .commit(Commit(serial: 2, operations: [.controlVideo(image: 5, .rate(2)), .controlVideo(image: 5, .loop(true)),
                                                         .controlVideo(image: 5, .play)])))
        #expect(videoEvents(a) == [.playing])
        let decoder = try #require(video.opened.first?.decoder)
        h.advance(a, 0.75)                       // media 1.5
        #expect(pixel(a) == [0, 255, 0, 255])
        #expect(abs((decoder.asked.last ?? -1) - 1.5) < 1e-9)
        h.advance(a, 1)                          // media 3.5 → 0.5
        #expect(abs((decoder.asked.last ?? -1) - 0.5) < 1e-9)
        h.feed(a, .commit(Commit(serial: 3, operations: [.controlVideo(image: 5, .pause), .controlVideo(image: 5, .seek(seconds: 2.25))])))
        #expect(videoEvents(a) == [.paused])
        h.advance(a, 5)
        #expect(pixel(a) == [0, 0, 255, 255])
        #expect(abs((decoder.asked.last ?? -1) - 2.25) < 1e-9)
        // Not looping, playing past the end: one ended event, the last frame stays.
        h.feed(a, .commit(Commit(serial: 4, operations: [.controlVideo(image: 5, .loop(false)), .controlVideo(image: 5, .rate(1)),
                                                         .controlVideo(image: 5, .play)])))
        h.advance(a, 2)
        #expect(videoEvents(a) == [.playing, .ended])
        #expect(abs((decoder.asked.last ?? -1) - 3) < 1e-9)
        // It stopped at its end: play starts it again from 0.
        h.feed(a, .commit(Commit(serial: 6, operations: [.controlVideo(image: 5, .play)])))
        #expect(videoEvents(a) == [.playing])
        h.advance(a, 0.5)
        #expect(abs((decoder.asked.last ?? -1) - 0.5) < 1e-9)
        #expect(pixel(a) == [255, 0, 0, 255])
        // destroy-image ends it: the decoder is closed, the layer draws nothing.
        h.feed(a, .commit(Commit(serial: 7, operations: [.destroyImage(image: 5)])))
        #expect(decoder.closed)
        #expect(pixel(a) == [0, 0, 0, 255])
        #expect(compositor.videoCount == 0)
    }

    @Test func aRefusedCommitOpensNoDecoder() {
        let a = h.hello("a")
        h.feed(a, .commit(Commit(serial: 1, operations: showVideo(5, layer: 1) + [.destroy(LayerID(77))])))
        guard case .error(let e) = h.take(a).first else { Issue.record("not refused"); return }
        #expect(e.code == .unknownLayer)
        #expect(video.opened.isEmpty)
        #expect(compositor.model.tree(of: a)?.videos.isEmpty == true)
        // The number is free again, and numbers are shared with images.
        h.feed(a, .commit(Commit(serial: 2, operations: [.createVideo(image: 5, uri: "/a.webm"), .createVideo(image: 5, uri: "/b.webm")])))
        guard case .error(let dup) = h.take(a).first else { Issue.record("duplicate accepted"); return }
        #expect(dup.code == .duplicateImage)
        h.feed(a, .commit(Commit(serial: 3, operations: [.controlVideo(image: 9, .play)])))
        guard case .error(let unknown) = h.take(a).first else { Issue.record("unknown accepted"); return }
        #expect(unknown.code == .unknownImage && unknown.message.contains("video 9"))
        h.feed(a, .commit(Commit(serial: 4, operations: [.createVideo(image: 6, uri: "/c.webm"), .updateImage(image: 6, PixelRect(x: 0, y: 0, width: 1, height: 1))])))
        guard case .error(let update) = h.take(a).first else { Issue.record("update accepted"); return }
        #expect(update.code == .unknownImage && update.message.contains("video"))
    }

    @Test func budgetsCapAndOldClients() throws {
        let a = h.hello("a")
        let old = h.hello("old", minor: 5)
        // Refused at open; over the cap; frames past max_image_bytes: error events, to a alone.
        video.width = 80
        video.height = 80
        h.feed(a, .commit(Commit(serial: 1, operations: showVideo(1, layer: 1, uri: "/refuse/fifo") + showVideo(2, layer: 2))))
        let answer = h.take(a)
        #expect(answer.contains(.applied(serial: 1)))
        _ = try? h.screenshot(a)
        let events = answer.compactMap { if case .video(_, let e) = $0 { e } else { nil } } + videoEvents(a)
        #expect(events.contains { if case .error(let m) = $0 { m.contains("not a regular file") } else { false } }, "\(events)")
        #expect(events.contains { if case .error(let m) = $0 { m.contains("max_image_bytes") } else { false } }, "\(events)")
        #expect(video.opened.first?.decoder.closed == true, "the over-budget decoder is stopped")
        video.width = 16
        video.height = 16
        h.feed(a, .commit(Commit(serial: 2, operations: showVideo(3, layer: 3) + showVideo(4, layer: 4) + showVideo(5, layer: 5))))
        let capped = videoEvents(a)
        #expect(capped.contains { if case .error(let m) = $0 { m.contains("max_videos") } else { false } }, "\(capped)")
        #expect(compositor.videoCount == 2)
        // A 1.5 client's video plays, but it is sent no video messages (it could not read them).
        h.feed(old, .commit(Commit(serial: 1, operations: [.destroyImage(image: 99)])))
        _ = h.take(old)
        h.feed(a, .commit(Commit(serial: 3, operations: [.destroyImage(image: 3)])))
        h.feed(old, .commit(Commit(serial: 2, operations: showVideo(7, layer: 7))))
        _ = try? h.screenshot(old)
        compositor.pollVideos()
        #expect(h.take(old).allSatisfy { if case .video = $0 { false } else { true } })
        #expect(compositor.statistics().first { $0.name == "fake" }?.value == 1)
        // Two 16×16 frames shown now: a's video 4 and old's video 7.
        #expect(compositor.statistics().first { $0.name == "videoFrameBytes" }?.value == Double(2 * 16 * 16 * 4))
    }
}
