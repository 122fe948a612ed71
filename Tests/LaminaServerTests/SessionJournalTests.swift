import Testing
import LaminaCore
import LaminaProtocol
@testable import LaminaServer
import LaminaHeadless

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
        let compositor = Compositor(backend: try HeadlessBackend(width: 32, height: 32), clock: FrameClock(.virtual), realTime: { 0 })
        let pixels = { (_: SessionJournal.Image) -> (any PixelMemory)? in HeapPixelMemory([UInt8](repeating: 9, count: 32)) }
        let report = compositor.restore(Self.sample, bootID: "boot-a", pixels: pixels)
        #expect(report == ["session 'kiosk' of uid 1000: 2 layers, 1 images, 1 animations"])
        #expect(compositor.restore(Self.sample, bootID: "boot-a", pixels: pixels) == ["session 'kiosk': skipped (already present)"])
        let entry = try #require(compositor.display.entries.first)
        #expect(compositor.display.entries.count == 1 && entry.client == nil && entry.isKept && entry.ownerUID == 1000)
        // Written at 13 with the animation begun at 12; restored on a virtual clock at 0: it
        // is 1 s in, so it began at -1.
        #expect(entry.animations[LayerID(1)]?.animations.animation(forKey: "slide")?.timing.beginTime == -1)
        #expect(entry.tree.images[3]?.width == 4)
        let (again, files) = compositor.journal(bootID: "boot-a", filePrefix: "x")
        #expect(again.sessions.map(\.name) == ["kiosk"] && files.count == 1 && files[0].pixels() == [UInt8](repeating: 9, count: 32))
    }
}
