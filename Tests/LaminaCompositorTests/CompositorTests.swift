import Testing
import LaminaTestSupport
import LaminaCore
import LaminaProtocol
@testable import LaminaCompositor

/// The server without sockets, driven byte by byte, drawing with real GLES on llvmpipe.
@Suite("Compositor sessions", .serialized)
final class CompositorTests {
    let h: CompositorHarness
    var compositor: Compositor { h.compositor }

    init() throws {
        h = try CompositorHarness(headlessWidth: 64, height: 48)
    }

    /// A display resize (hotplug, a new mode): roots follow, the next frame has the new size,
    /// stats and new clients' welcomes report it, and a layer anchored to the root's bounds
    /// through a sublayer in the root's centre moves with it.
    @Test func resizeFollowsTheDisplay() throws {
        let a = h.hello("a")
        h.feed(a, .commit(Commit(serial: 1, operations: CompositorHarness.square(1, x: 16, color: .red))))
        _ = h.take(a)
        try compositor.flushFrame()
        #expect(!compositor.resize(width: 64, height: 48), "same size: nothing to do")
        #expect(!compositor.repaintPending)
        #expect(compositor.resize(width: 32, height: 24))
        #expect(compositor.repaintPending)
        #expect(compositor.model.tree(of: a)?[.root]?.properties.bounds == Rect(x: 0, y: 0, width: 32, height: 24))
        #expect(compositor.model.tree(of: a)?[.root]?.properties.position == Point(x: 16, y: 12))
        let list = compositor.model.drawList()
        #expect(list.width == 32 && list.height == 24)
        #expect(compositor.statistics().first { $0.name == "width" }?.value == 32)
        let b = h.sayHello("b").id
        guard case .welcome(let w) = h.take(b).first else { Issue.record("no welcome"); return }
        #expect(w.displayWidth == 32 && w.displayHeight == 24)
        #expect(!compositor.resize(width: 0, height: 0), "an empty desktop keeps the last size")
    }

    @Test func helloCommitAndScreenshot() throws {
        let a = h.sayHello("a").id
        guard case .welcome(let w) = h.take(a).first else { Issue.record("no welcome"); return }
        #expect(w.displayWidth == 64 && w.clock == .virtual)
        h.feed(a, .commit(Commit(serial: 1, operations: CompositorHarness.square(1, x: 16, color: .red))))
        #expect(h.take(a) == [.applied(serial: 1)])
        #expect(compositor.repaintPending)
        h.feed(a, .request(id: 7, .screenshot))
        guard case .reply(7, .screenshot(let shot)) = h.take(a).first else { Issue.record("no screenshot"); return }
        #expect(shot.pixel(x: 16, y: 24) == (255, 0, 0, 255))
        #expect(shot.pixel(x: 40, y: 24) == (0, 0, 0, 255))
        #expect(!compositor.repaintPending)
    }

    @Test func garbageDropsOnlyThatClient() throws {
        let a = h.hello("a"), bad = h.hello("bad")
        h.feed(a, .commit(Commit(serial: 1, operations: CompositorHarness.square(1, x: 16, color: .green))))
        h.feed(bad, bytes: Array("GET / HTTP/1.1\r\nHost: lamina\r\n\r\n".utf8))
        let answer = h.take(bad)
        guard case .error(let e) = answer.first else { Issue.record("no error for garbage: \(answer)"); return }
        #expect(e.code == .frameTooLarge || e.code == .malformedFrame)
        #expect(h.closed.contains(bad))
        #expect(!h.closed.contains(a))
        h.feed(a, .request(id: 1, .screenshot))
        guard case .reply(1, .screenshot(let shot))? = h.take(a).last else { Issue.record("no screenshot"); return }
        #expect(shot.pixel(x: 16, y: 24) == (0, 255, 0, 255))
    }

    @Test func errorsNameTheOperationAndKeepTheConnection() {
        let a = h.hello("a")
        h.feed(a, .commit(Commit(serial: 3, operations: [.create(LayerID(1)), .insert(parent: LayerID(1), child: LayerID(1), index: 0)])))
        #expect(h.take(a) == [.error(ErrorMessage(code: .cycle, subject: .commit, serial: 3, operationIndex: 1,
                                                  message: "inserting #1 into #1 would make #1 its own ancestor"))])
        // Layer #1 was never created: the commit was all-or-nothing.
        h.feed(a, .commit(Commit(serial: 4, operations: [.create(LayerID(1))])))
        #expect(h.take(a) == [.applied(serial: 4)])
        #expect(!h.closed.contains(a))
    }

    @Test func messagesBeforeHelloAreRefused() {
        let c = compositor.connect()
        h.feed(c, .request(id: 1, .tree))
        guard case .error(let e) = h.take(c).first else { Issue.record("no error"); return }
        #expect(e.code == .notHello)
        #expect(h.closed.contains(c))
        let v = compositor.connect()
        h.feed(v, .hello(Hello(major: 9, clientName: "future")))
        guard case .error(let f) = h.take(v).first else { Issue.record("no error"); return }
        #expect(f.code == .unsupportedVersion)
    }

    @Test func clientsCannotReachEachOthersLayers() {
        let a = h.hello("a"), b = h.hello("b")
        h.feed(a, .commit(Commit(serial: 1, operations: CompositorHarness.square(5, x: 8, color: .red))))
        // b names layer #5, which is a's: in b's own namespace it does not exist.
        h.feed(b, .commit(Commit(serial: 1, operations: [.set(LayerID(5), .opacity, .number(0))])))
        guard case .error(let e) = h.take(b).first else { Issue.record("expected an error"); return }
        #expect(e.code == .unknownLayer && e.operationIndex == 0)
        #expect(compositor.model.tree(of: a)?[LayerID(5)]?.properties.opacity == 1)
    }

    @Test func keptSessionsOutliveTheirClient() {
        let a = h.hello("scene", session: "s", flags: .keepLayers)
        h.feed(a, .commit(Commit(serial: 1, operations: CompositorHarness.square(1, x: 8, color: .blue))))
        compositor.disconnected(a)
        let b = h.sayHello("scene again", session: "s", flags: .keepLayers).id
        guard case .welcome(let w) = h.take(b).first else { Issue.record("no welcome"); return }
        #expect(w.snapshot.contains(.create(LayerID(1))))
        let c = h.sayHello("intruder", session: "s").id
        guard case .error(let e) = h.take(c).first else { Issue.record("expected session-in-use"); return }
        #expect(e.code == .sessionInUse)
    }

    @Test func virtualClockRendersOnlyWhenSomethingChanged() throws {
        let a = h.hello("a")
        h.feed(a, .commit(Commit(serial: 1, operations: CompositorHarness.square(1, x: 8, color: .blue))))
        h.feed(a, .request(id: 1, .advanceClock(seconds: 0.5)))
        h.feed(a, .request(id: 2, .advanceClock(seconds: 0.5)))
        let replies = h.take(a).compactMap { m -> (Double, UInt64)? in
            if case let .reply(_, .advanced(t, f)) = m { return (t, f) }
            return nil
        }
        #expect(replies.map(\.0) == [0.5, 1.0])
        #expect(replies.map(\.1) == [1, 1])  // the second advance had nothing new to draw
        h.feed(a, .request(id: 3, .advanceClock(seconds: -1)))
        guard case .error(let e) = h.take(a).first else { Issue.record("expected an error"); return }
        #expect(e.code == .invalidRequest)
    }

    // MARK: Descriptors

    @Test func descriptorsBelongToTheFrameStartingInTheBytesTheyCameWith() throws {
        let a = h.hello("a")
        let plain = ClientMessage.commit(Commit(serial: 1, operations: CompositorHarness.square(1, x: 0, color: .red))).encoded()
        let create = ClientMessage.commit(Commit(serial: 2, operations: [
            .createImage(image: 1, ImageFormat(width: 2, height: 2)), .set(LayerID(1), .contents, .image(1)),
        ])).encoded()
        let memory = HeapPixelMemory([UInt8](repeating: 255, count: 16))
        // One read holds the tail of a frame without images and the image commit with its descriptor.
        h.feed(a, bytes: Array(plain[0..<10]))
        h.feed(a, bytes: Array(plain[10...]) + create, attachments: [.memory(memory)])
        #expect(h.take(a) == [.applied(serial: 1), .applied(serial: 2)])
        #expect(compositor.model.tree(of: a)?.images[1] != nil)

        // A descriptor whose read ended inside a frame that takes none is closed and reported.
        h.feed(a, .request(id: 5, .tree), attachments: [.memory(memory)])
        let answers = h.take(a)
        #expect(answers.count == 2)
        #expect(answers.contains { if case .error(let e) = $0 { e.code == .invalidImage && e.message.contains("takes none") } else { false } })
        // …and is not taken by the next commit, which then lacks its own.
        let create2 = ClientMessage.commit(Commit(serial: 3, operations: [.createImage(image: 2, ImageFormat(width: 2, height: 2))])).encoded()
        h.feed(a, bytes: create2)
        guard case .error(let e) = h.take(a).first else { Issue.record("expected an error"); return }
        #expect(e.code == .invalidImage && e.message.contains("carried 0 file descriptors"), "\(e)")

        // Disconnecting destroys the client's images.
        let source = compositor.model.tree(of: a)!.images[1]!
        compositor.disconnected(a)
        #expect(source.isDestroyed)
    }
}

/// The real clock's frames are drawn for the refresh they aim at: the compositor's clock reads
/// that target while it draws (`FrameClock.frameTarget`), and the real time again after.
@Suite("Frame clock")
struct FrameClockTests {
    @Test func aFrameIsDrawnAtItsTarget() throws {
        let compositor = Compositor(presenter: try HeadlessDisplay(width: 16, height: 16).presenter, clock: FrameClock(.real(refreshRate: 60)),
                                    realTime: { 100 })
        #expect(compositor.now == 100)
        try compositor.produce(RepaintLoop.Frame(outputs: nil, target: 100.016, reasons: []))
        #expect(compositor.lastFrameTime == 100.016, "the frame's animations were evaluated at its target")
        #expect(compositor.now == 100 && compositor.clock.frameTarget == nil, "the target holds for the frame only")
        var virtual = FrameClock(.virtual)
        virtual.beginFrame(at: 5)
        #expect(virtual.frameTarget == nil && virtual.now(realTime: 7) == 0, "the virtual clock's frames show its own time")
    }
}
