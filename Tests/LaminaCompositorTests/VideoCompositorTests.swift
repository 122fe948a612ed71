import LaminaTestSupport
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
    let compositor: Compositor
    let host = TestHost()
    let video = FakeVideo()
    var outbox: [ClientID: [ServerMessage]] = [:]
    var decoders: [ClientID: FrameDecoder] = [:]

    init() throws {
        var configuration = Compositor.Configuration()
        configuration.limits.maxImageBytes = 64 * 64 * 4
        configuration.maxVideos = 2
        compositor = Compositor(presenter: try HeadlessDisplay(width: 64, height: 48).presenter, clock: FrameClock(.virtual),
                                configuration: configuration, realTime: { 0 })
        compositor.videoDecoding = video
        compositor.host = host
        host.onSend = { [unowned self] id, bytes in
            var d = decoders[id] ?? FrameDecoder(limit: 1 << 30)
            d.append(bytes)
            while let f = try! d.next() { outbox[id, default: []].append(try! ServerMessage.decode(type: f.type, body: f.body)) }
            decoders[id] = d
        }
    }

    func feed(_ id: ClientID, _ message: ClientMessage) {
        message.encoded().withUnsafeBytes { compositor.receive($0, from: id) }
    }

    func hello(_ name: String, minor: UInt16 = ProtocolVersion.minor) -> ClientID {
        let id = compositor.connect()
        feed(id, .hello(Hello(minor: minor, clientName: name)))
        _ = take(id)
        return id
    }

    func take(_ id: ClientID) -> [ServerMessage] {
        defer { outbox[id] = [] }
        return outbox[id] ?? []
    }

    func videoEvents(_ id: ClientID) -> [VideoEvent] {
        take(id).compactMap { if case .video(_, let e) = $0 { e } else { nil } }
    }

    func showVideo(_ n: UInt32, layer: UInt32, uri: String = "/clip.webm") -> [Operation] {
        [.createVideo(image: n, uri: uri), .create(LayerID(layer)),
         .set(LayerID(layer), .bounds, .rect(Rect(x: 0, y: 0, width: 16, height: 16))),
         .set(LayerID(layer), .position, .point(Point(x: 8, y: 8))), .set(LayerID(layer), .contents, .image(n)),
         .insert(parent: .root, child: LayerID(layer), index: .max)]
    }

    /// A screenshot; the other messages stay in the outbox.
    func screenshot(_ id: ClientID) -> Bitmap? {
        feed(id, .request(id: 99, .screenshot))
        var shot: Bitmap?
        outbox[id] = (outbox[id] ?? []).filter { m in
            if case .reply(99, .screenshot(let b)) = m { shot = b; return false }
            return true
        }
        return shot
    }

    /// The screenshot's pixel at (8, 8), the video layer's middle, as [r, g, b, a].
    func pixel(_ id: ClientID) -> [UInt8] {
        guard let p = screenshot(id)?.pixel(x: 8, y: 8) else { return [] }
        return [p.r, p.g, p.b, p.a]
    }

    func advance(_ id: ClientID, _ seconds: Double) {
        feed(id, .request(id: 98, .advanceClock(seconds: seconds)))
        outbox[id] = (outbox[id] ?? []).filter { if case .reply(98, _) = $0 { false } else { true } }
    }

    @Test func mediaTimeFollowsPlayRateLoopAndSeek() throws {
        let a = hello("a")
        feed(a, .commit(Commit(serial: 1, operations: showVideo(5, layer: 1))))
        #expect(take(a).contains(.applied(serial: 1)))
        // The frame drawn for the screenshot pulled the first picture; the ready event went out with it.
        #expect(pixel(a) == [255, 0, 0, 255])
        #expect(videoEvents(a) == [.ready(width: 16, height: 16, duration: 3)])
        compositor.pollVideos()
        #expect(videoEvents(a).isEmpty, "ready is sent once")
        feed(a, .commit(Commit(serial: 2, operations: [.controlVideo(image: 5, .rate(2)), .controlVideo(image: 5, .loop(true)),
                                                       .controlVideo(image: 5, .play)])))
        #expect(videoEvents(a) == [.playing])
        let decoder = try #require(video.opened.first?.decoder)
        advance(a, 0.75)                       // media 1.5
        #expect(pixel(a) == [0, 255, 0, 255])
        #expect(abs((decoder.asked.last ?? -1) - 1.5) < 1e-9)
        advance(a, 1)                          // media 3.5 → 0.5
        #expect(abs((decoder.asked.last ?? -1) - 0.5) < 1e-9)
        feed(a, .commit(Commit(serial: 3, operations: [.controlVideo(image: 5, .pause), .controlVideo(image: 5, .seek(seconds: 2.25))])))
        #expect(videoEvents(a) == [.paused])
        advance(a, 5)
        #expect(pixel(a) == [0, 0, 255, 255])
        #expect(abs((decoder.asked.last ?? -1) - 2.25) < 1e-9)
        // Not looping, playing past the end: one ended event, the last frame stays.
        feed(a, .commit(Commit(serial: 4, operations: [.controlVideo(image: 5, .loop(false)), .controlVideo(image: 5, .rate(1)),
                                                       .controlVideo(image: 5, .play)])))
        advance(a, 2)
        #expect(videoEvents(a) == [.playing, .ended])
        #expect(abs((decoder.asked.last ?? -1) - 3) < 1e-9)
        // It stopped at its end: play starts it again from 0.
        feed(a, .commit(Commit(serial: 6, operations: [.controlVideo(image: 5, .play)])))
        #expect(videoEvents(a) == [.playing])
        advance(a, 0.5)
        #expect(abs((decoder.asked.last ?? -1) - 0.5) < 1e-9)
        #expect(pixel(a) == [255, 0, 0, 255])
        // destroy-image ends it: the decoder is closed, the layer draws nothing.
        feed(a, .commit(Commit(serial: 7, operations: [.destroyImage(image: 5)])))
        #expect(decoder.closed)
        #expect(pixel(a) == [0, 0, 0, 255])
        #expect(compositor.videoCount == 0)
    }

    @Test func aRefusedCommitOpensNoDecoder() {
        let a = hello("a")
        feed(a, .commit(Commit(serial: 1, operations: showVideo(5, layer: 1) + [.destroy(LayerID(77))])))
        guard case .error(let e) = take(a).first else { Issue.record("not refused"); return }
        #expect(e.code == .unknownLayer)
        #expect(video.opened.isEmpty)
        #expect(compositor.model.tree(of: a)?.videos.isEmpty == true)
        // The number is free again, and numbers are shared with images.
        feed(a, .commit(Commit(serial: 2, operations: [.createVideo(image: 5, uri: "/a.webm"), .createVideo(image: 5, uri: "/b.webm")])))
        guard case .error(let dup) = take(a).first else { Issue.record("duplicate accepted"); return }
        #expect(dup.code == .duplicateImage)
        feed(a, .commit(Commit(serial: 3, operations: [.controlVideo(image: 9, .play)])))
        guard case .error(let unknown) = take(a).first else { Issue.record("unknown accepted"); return }
        #expect(unknown.code == .unknownImage && unknown.message.contains("video 9"))
        feed(a, .commit(Commit(serial: 4, operations: [.createVideo(image: 6, uri: "/c.webm"), .updateImage(image: 6, PixelRect(x: 0, y: 0, width: 1, height: 1))])))
        guard case .error(let update) = take(a).first else { Issue.record("update accepted"); return }
        #expect(update.code == .unknownImage && update.message.contains("video"))
    }

    @Test func budgetsCapAndOldClients() throws {
        let a = hello("a")
        let old = hello("old", minor: 5)
        // Refused at open; over the cap; frames past max_image_bytes: error events, to a alone.
        video.width = 80
        video.height = 80
        feed(a, .commit(Commit(serial: 1, operations: showVideo(1, layer: 1, uri: "/refuse/fifo") + showVideo(2, layer: 2))))
        let answer = take(a)
        #expect(answer.contains(.applied(serial: 1)))
        _ = screenshot(a)
        let events = answer.compactMap { if case .video(_, let e) = $0 { e } else { nil } } + videoEvents(a)
        #expect(events.contains { if case .error(let m) = $0 { m.contains("not a regular file") } else { false } }, "\(events)")
        #expect(events.contains { if case .error(let m) = $0 { m.contains("max_image_bytes") } else { false } }, "\(events)")
        #expect(video.opened.first?.decoder.closed == true, "the over-budget decoder is stopped")
        video.width = 16
        video.height = 16
        feed(a, .commit(Commit(serial: 2, operations: showVideo(3, layer: 3) + showVideo(4, layer: 4) + showVideo(5, layer: 5))))
        let capped = videoEvents(a)
        #expect(capped.contains { if case .error(let m) = $0 { m.contains("max_videos") } else { false } }, "\(capped)")
        #expect(compositor.videoCount == 2)
        // A 1.5 client's video plays, but it is sent no video messages (it could not read them).
        feed(old, .commit(Commit(serial: 1, operations: [.destroyImage(image: 99)])))
        _ = take(old)
        feed(a, .commit(Commit(serial: 3, operations: [.destroyImage(image: 3)])))
        feed(old, .commit(Commit(serial: 2, operations: showVideo(7, layer: 7))))
        _ = screenshot(old)
        compositor.pollVideos()
        #expect(take(old).allSatisfy { if case .video = $0 { false } else { true } })
        #expect(compositor.statistics().first { $0.name == "fake" }?.value == 1)
        // Two 16×16 frames shown now: a's video 4 and old's video 7.
        #expect(compositor.statistics().first { $0.name == "videoFrameBytes" }?.value == Double(2 * 16 * 16 * 4))
    }
}
