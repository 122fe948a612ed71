import LaminaTestSupport
import Testing
import LaminaCore
import LaminaProtocol
@testable import LaminaCompositor

/// The session journal's envelope and its time rule (the restart itself is tested end to end
/// in LaminaEndToEndTests/RestartTests.swift).
@Suite("Session journal")
struct SessionJournalTests {
    static let sample: SessionJournal = {
        var slide = BasicAnimation(keyPath: "position.x", fromValue: .number(0), toValue: .number(10))
        slide.duration = 4
        slide.beginTime = 12
        return SessionJournal(clock: .real, writtenAt: 13, bootID: "boot-a", sessions: [
            SessionJournal.Session(name: "kiosk", clientName: "app", ownerUID: 1000,
                                   structure: [.create(LayerID(1)), .set(LayerID(1), .opacity, .number(0.5)),
                                               .insert(parent: .root, child: LayerID(1), index: 0)],
                                   images: [SessionJournal.Image(number: 3, width: 4, height: 2, file: "p1-7-1.rgba")],
                                   animations: [.addAnimation(LayerID(1), key: "slide", tag: 0, .basic(slide))]),
        ])
    }()

    @Test func roundTrips() throws {
        #expect(try SessionJournal.decode(Self.sample.encoded()) == Self.sample)
    }

    /// A session showing video 5 (looping, rate 2, playing, 1.25 s in at the write, volume
    /// 0.5, muted) beside the sample's.
    static let withVideo: SessionJournal = {
        var j = sample
        j.sessions[0].structure += [.set(LayerID(1), .contents, .image(5))]
        j.sessions[0].videos = [SessionJournal.Video(number: 5, uri: "/clip.webm", loops: true, rate: 2, isPlaying: true, position: 1.25,
                                                     volume: 0.5, isMuted: true),
                                SessionJournal.Video(number: 6, uri: "http://example.invalid/x.webm", loops: false, rate: 1,
                                                     isPlaying: false, position: 0)]
        return j
    }()

    @Test func videosRoundTripAndVersionOneIsStillRead() throws {
        #expect(try SessionJournal.decode(Self.withVideo.encoded()) == Self.withVideo)
        // Version 1 had no videos after each session's animations, version 2 no encoded images
        // after its videos: the same bytes less those counts, with a version and checksum of
        // their own.
        // Version 3 had no volume and mute after each video (none here: the same bytes).
        for (version, cut) in [(UInt32(1), 8), (2, 4), (3, 0)] {
            var old = Self.sample.encoded()
            old.removeLast(cut)
            let payload = Array(old[20...])
            var header = ByteWriter(capacity: 20)
            header.raw(SessionJournal.magic)
            header.u32(version)
            header.u64(UInt64(payload.count))
            header.u32(CRC32.checksum(payload))
            #expect(try SessionJournal.decode(header.bytes + payload) == Self.sample, "version \(version)")
        }
        var bad = Self.withVideo
        bad.sessions[0].videos[0].rate = 0
        #expect(throws: SessionJournal.Problem.self) { try SessionJournal.decode(bad.encoded()) }
        bad = Self.withVideo
        bad.sessions[0].videos[0].volume = 2
        #expect(throws: SessionJournal.Problem.self) { try SessionJournal.decode(bad.encoded()) }
        // Restored, volume and mute are controls again.
        #expect(Self.withVideo.sessions[0].videos[0].operations(elapsed: 0).contains(.controlVideo(image: 5, .volume(0.5))))
        #expect(Self.withVideo.sessions[0].videos[0].operations(elapsed: 0).contains(.controlVideo(image: 5, .muted(true))))
    }

    /// Version 3: a session's encoded images (an SVG and a GIF), their files named; a bad
    /// format byte or file name is refused.
    @Test func encodedImagesRoundTrip() throws {
        var j = Self.sample
        j.sessions[0].encodedImages = [SessionJournal.EncodedImage(number: 7, format: .svg, byteCount: 120, file: "p-e1.svg"),
                                       SessionJournal.EncodedImage(number: 8, format: .gif, byteCount: 3000, file: "p-e2.gif")]
        #expect(try SessionJournal.decode(j.encoded()) == j)
        var bad = j
        bad.sessions[0].encodedImages[0].file = "../etc/passwd"
        #expect(throws: SessionJournal.Problem.self) { try SessionJournal.decode(bad.encoded()) }
    }

    @Test func restoredVideosPlayOnFromWhereTheyStood() throws {
        // The real clock of the same boot kept running 1 s since the write: media time 1.25 + 2 × 1.
        let video = FakeVideo()
        let real = Compositor(presenter: try HeadlessDisplay(width: 32, height: 32).presenter, clock: FrameClock(.real(refreshRate: 60)),
                              realTime: { 14 })
        real.videoDecoding = video
        let report = real.restore(Self.withVideo, bootID: "boot-a", pixels: { _ in HeapPixelMemory([UInt8](repeating: 9, count: 32)) })
        #expect(report == ["session 'kiosk' of uid 1000: 2 layers, 1 images, 1 animations, 2 videos"])
        let tree = try #require(real.model.entries.first?.tree)
        let v = try #require(tree.videos[5])
        #expect(v.isPlaying && v.loops && v.rate == 2 && v.uri == "/clip.webm" && v.volume == 0.5 && v.isMuted)
        #expect(v.mediaTime(at: real.now) == 3.25)
        #expect(tree.videos[6].map { !$0.isPlaying && $0.mediaTime(at: real.now) == 0 } == true)
        #expect(video.opened.map(\.uri) == ["/clip.webm", "http://example.invalid/x.webm"])
        // Written again: the same videos, where they stand now.
        let (again, _) = real.journal(bootID: "boot-a", filePrefix: "x")
        #expect(again.sessions.first?.videos.first == SessionJournal.Video(number: 5, uri: "/clip.webm", loops: true, rate: 2,
                                                                             isPlaying: true, position: 3.25, volume: 0.5, isMuted: true))
        // A virtual clock (or another boot): the media time stands where it was written.
        let virtual = Compositor(presenter: try HeadlessDisplay(width: 32, height: 32).presenter, clock: FrameClock(.virtual), realTime: { 0 })
        virtual.videoDecoding = FakeVideo()
        virtual.restore(Self.withVideo, bootID: "boot-a", pixels: { _ in nil })
        #expect(virtual.model.entries.first?.tree.videos[5]?.mediaTime(at: virtual.now) == 1.25)
    }

    @Test func everyTornPrefixAndEveryFlippedByteIsRefused() {
        let bytes = Self.sample.encoded()
        for n in 0..<bytes.count {
            #expect(throws: SessionJournal.Problem.self) { try SessionJournal.decode(Array(bytes[0..<n])) }
        }
        for i in stride(from: 0, to: bytes.count, by: 3) {
            var damaged = bytes
            damaged[i] ^= 0x41
            #expect(throws: SessionJournal.Problem.self) { try SessionJournal.decode(damaged) }
        }
    }

    @Test func imageFileNamesCannotLeaveTheJournalFolder() {
        var j = Self.sample
        j.sessions[0].images[0].file = "../../etc/passwd"
        #expect(throws: SessionJournal.Problem.self) { try SessionJournal.decode(j.encoded()) }
    }

    @Test func timesShiftUnlessTheMonotonicClockKeptRunning() {
        let j = Self.sample
        #expect(j.shift(to: .real, now: 20, bootID: "boot-a") == 0)
        #expect(j.shift(to: .real, now: 20, bootID: "boot-b") == 7)
        #expect(j.shift(to: .virtual, now: 0, bootID: "boot-a") == -13)
    }

    @Test func restoringTwiceKeepsOneSessionAndAnimationsFollowTheShift() throws {
        let compositor = Compositor(presenter: try HeadlessDisplay(width: 32, height: 32).presenter, clock: FrameClock(.virtual), realTime: { 0 })
        let pixels = { (_: SessionJournal.Image) -> (any PixelMemory)? in HeapPixelMemory([UInt8](repeating: 9, count: 32)) }
        let report = compositor.restore(Self.sample, bootID: "boot-a", pixels: pixels)
        #expect(report == ["session 'kiosk' of uid 1000: 2 layers, 1 images, 1 animations"])
        #expect(compositor.restore(Self.sample, bootID: "boot-a", pixels: pixels) == ["session 'kiosk': skipped (already present)"])
        let entry = try #require(compositor.model.entries.first)
        #expect(compositor.model.entries.count == 1 && entry.client == nil && entry.isKept && entry.ownerUID == 1000)
        // Written at 13 with the animation begun at 12; restored on a virtual clock at 0: it
        // is 1 s in, so it began at -1.
        #expect(compositor.animationState(entry: 0)?.animated[LayerID(1)]?.animations.animation(forKey: "slide")?.timing.beginTime == -1)
        #expect(entry.tree.images[3]?.width == 4)
        let (again, files) = compositor.journal(bootID: "boot-a", filePrefix: "x")
        #expect(again.sessions.map(\.name) == ["kiosk"] && files.count == 1 && files[0].pixels() == [UInt8](repeating: 9, count: 32))
    }

    /// A layer that showed an app window comes back without it: the window was the last
    /// laminad's, and its number may name another app's window now. The layer's other values stay.
    @Test func appSurfacesAreNotRestored() throws {
        let compositor = Compositor(presenter: try HeadlessDisplay(width: 32, height: 32).presenter, clock: FrameClock(.virtual), realTime: { 0 })
        var journal = Self.sample
        journal.sessions[0].structure += [.set(LayerID(1), .appSurface, .number(7)), .set(LayerID(1), .appSizing, .string("app"))]
        _ = compositor.restore(journal, bootID: "boot-a", pixels: { _ in HeapPixelMemory([UInt8](repeating: 9, count: 32)) })
        let p = try #require(compositor.model.entries.first?.tree[LayerID(1)]?.properties)
        #expect(p.appSurface == 0 && p.appSizing == .app && p.opacity == 0.5)
    }

    /// An implicit animation runs from the presentation before its change, which the model does
    /// not hold: the journal writes that value as the animation's fromValue, so a restored
    /// session carries on from where it was instead of jumping to the model value.
    @Test func implicitAnimationsCarryOnAfterARestore() throws {
        let h = try CompositorHarness(headlessWidth: 32, height: 32)
        let a = h.compositor
        let app = h.hello("app", session: "kiosk", flags: .keepLayers)
        let l = LayerID(1)
        h.feed(app, .commit(Commit(serial: 1, operations: [.create(l), .set(l, .position, .point(Point(x: 0, y: 0))),
                                                             .insert(parent: .root, child: l, index: 0)])))
        h.feed(app, .request(id: 1, .advanceClock(seconds: 1)))
        // Implicit: opacity 1 → 0.2 and x 0 → 100 over 2 s, linear; then 0.5 s in.
        h.feed(app, .commit(Commit(serial: 2, operations: [
            .settings(TransactionSettings(duration: 2, timingFunction: .linear)),
            .set(l, .opacity, .number(0.2)), .set(l, .position, .point(Point(x: 100, y: 0)))])))
        h.feed(app, .request(id: 2, .advanceClock(seconds: 0.5)))
        let i = try #require(a.model.entries.firstIndex { $0.session == "kiosk" })
        let shown = try #require(a.presentation(of: l, entry: i, at: a.now))
        #expect(abs(shown.opacity - 0.8) < 1e-9 && abs(shown.position.x - 25) < 1e-9, "a quarter of the way")
        let (journal, _) = a.journal(bootID: "boot-a", filePrefix: "x")

        // A new laminad on a virtual clock at 0 (so times shift by -1.5 s).
        let restored = try CompositorHarness(headlessWidth: 32, height: 32)
        let b = restored.compositor
        #expect(b.restore(journal, bootID: "boot-b", pixels: { _ in nil }) == ["session 'kiosk' of uid 0: 2 layers, 0 images, 2 animations"])
        let j = try #require(b.model.entries.firstIndex { $0.session == "kiosk" })
        for step in [0.0, 0.75, 1.0] {
            let ctl = restored.hello("ctl")
            restored.feed(ctl, .request(id: 1, .advanceClock(seconds: step)))
            let there = try #require(b.presentation(of: l, entry: j, at: b.now))
            let progress = min(1, (0.5 + b.now) / 2)
            #expect(abs(there.opacity - (1 - 0.8 * progress)) < 1e-9, "opacity at \(b.now) s after the restore")
            #expect(abs(there.position.x - 100 * progress) < 1e-9, "x at \(b.now) s after the restore")
        }
    }

    /// Acknowledged means kept: a commit to a kept session asks the host to hold the client's
    /// output until the journal holds the commit's generation, before its `applied` reply is
    /// sent (laminad's group commit, LaminaDaemon's `JournalAcknowledgements`); so does an
    /// advance of the virtual clock that moved a kept animation. A commit to an unnamed
    /// session, or to a named one that does not keep its layers, is not held.
    @Test func aKeptSessionsAcknowledgementAwaitsTheJournalBeforeItIsSent() throws {
        let h = try CompositorHarness(headlessWidth: 32, height: 32)
        let plain = h.hello("plain")
        let named = h.hello("named", session: "n")
        let kept = h.hello("kept", session: "k", flags: .keepLayers)
        #expect(h.commit(plain, CompositorHarness.square(1, x: 0, color: .red)) == .applied(serial: 1))
        #expect(h.commit(named, CompositorHarness.square(1, x: 0, color: .red)) == .applied(serial: 1))
        #expect(h.journalAwaits.isEmpty)
        let before = h.sentMessages(kept)
        let generation = h.compositor.journalGeneration
        #expect(h.commit(kept, CompositorHarness.square(1, x: 0, color: .red)) == .applied(serial: 1))
        #expect(h.journalAwaits.count == 1)
        let wait = try #require(h.journalAwaits.first)
        #expect(wait.client == kept && wait.generation > generation && wait.generation == h.compositor.journalGeneration)
        #expect(wait.sentBefore == before, "the hold comes before the applied reply is sent")
        // A refused commit changes nothing kept: nothing to wait for.
        h.feed(kept, .commit(Commit(serial: 2, operations: [.set(LayerID(99), .opacity, .number(0))])))
        #expect(h.journalAwaits.count == 1)
        // An advance that moves a kept animation: its reply waits too.
        var slide = BasicAnimation(keyPath: "position.x", fromValue: .number(0), toValue: .number(10))
        slide.duration = 4
        #expect(h.commit(kept, [.addAnimation(LayerID(1), key: "slide", tag: 0, .basic(slide))], serial: 3) == .applied(serial: 3))
        #expect(h.journalAwaits.count == 2)
        let sent = h.sentMessages(kept)
        h.advance(kept, 1)
        #expect(h.journalAwaits.count == 3 && h.journalAwaits.last?.sentBefore == sent)
    }
}
