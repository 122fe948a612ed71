import Testing
import LaminaCore
import LaminaProtocol
import LaminaTestSupport
@testable import LaminaCompositor

/// The boot handoff without KMS: `BootHandoff` decides when the picture found on a display at
/// start shows, where it lies in the frame and how opaque it is at each clock time; the
/// compositor draws it with every frame (fakes for the outputs and renderer, the virtual clock).
@Suite("boot handoff")
struct BootHandoffTests {
    static func picture(_ name: String = "A", width: Int = 64, height: Int = 48) -> BootPicture {
        BootPicture(output: name, rect: Rect(x: 0, y: 0, width: Double(width), height: Double(height)),
                    source: ImageSource(bitmap: Bitmap(width: width, height: height, fill: (200, 30, 40, 255))), origin: "test")
    }

    @Test("off, or no picture, hands nothing over; the fade's length is bounded")
    func nothingToHandOver() throws {
        #expect(BootHandoff(settings: BootSettings(handoff: .off), pictures: [Self.picture()]) == nil)
        #expect(BootHandoff(settings: BootSettings(handoff: .fade), pictures: []) == nil)
        #expect(try #require(BootHandoff(settings: BootSettings(fadeSeconds: 100), pictures: [Self.picture()])).fadeSeconds == 10)
        #expect(try #require(BootHandoff(settings: BootSettings(fadeSeconds: -1), pictures: [Self.picture()])).fadeSeconds == 0)
        #expect(try #require(BootHandoff(settings: BootSettings(fadeSeconds: .nan), pictures: [Self.picture()])).fadeSeconds == 0.5)
    }

    @Test("fade: the background until a client draws, then over the scene, opacity falling linearly, then freed")
    func fade() throws {
        let picture = Self.picture()
        var h = try #require(BootHandoff(settings: BootSettings(handoff: .fade, fadeSeconds: 0.5), pictures: [picture]))
        h.advance(sceneDraws: false, at: 3)
        #expect(h.phase == .waiting && h.opacity(at: 3) == 1 && !h.isFading)
        var list = DrawList(width: 64, height: 48, commands: [DrawCommand(transform: .identity, bounds: Rect(x: 0, y: 0, width: 8, height: 8), color: .blue, opacity: 1)])
        h.decorate(&list, at: 3)
        #expect(list.commands.map(\.kind) == [.contents, .layer], "under everything while it is the background")
        #expect(list.commands[0].contents?.source === picture.source && list.commands[0].opacity == 1)
        h.advance(sceneDraws: true, at: 10)
        #expect(h.phase == .fading(since: 10) && h.isFading)
        for (t, alpha) in [(10.0, 1.0), (10.1, 0.8), (10.25, 0.5), (10.4, 0.2), (9.0, 1.0)] {
            #expect(abs(h.opacity(at: t) - alpha) < 1e-9, "opacity at \(t)")
        }
        var fading = DrawList(width: 64, height: 48, commands: [DrawCommand(transform: .identity, bounds: Rect(x: 0, y: 0, width: 8, height: 8), color: .blue, opacity: 1)])
        h.decorate(&fading, at: 10.25)
        #expect(fading.commands.map(\.kind) == [.layer, .contents], "over the scene while it fades: a crossfade")
        #expect(abs(fading.commands[1].opacity - 0.5) < 1e-9)
        #expect(h.fadeState(at: 10.25) == "fading: 0.25 of 0.5 s")
        h.advance(sceneDraws: true, at: 10.49)
        #expect(h.isFading)
        h.advance(sceneDraws: true, at: 10.5)
        #expect(h.isFinished && h.opacity(at: 10.5) == 0 && h.pictures.isEmpty && h.pictureCount == 1)
        #expect(picture.source.isDestroyed, "the texture is let go")
        var after = DrawList(width: 64, height: 48)
        h.decorate(&after, at: 11)
        #expect(after.commands.isEmpty)
    }

    @Test("the fade counts from when the frame that began it was drawn: a slow first frame does not use it up")
    func fadeCountsFromTheDrawnFrame() throws {
        var h = try #require(BootHandoff(settings: BootSettings(handoff: .fade, fadeSeconds: 6), pictures: [Self.picture()]))
        h.advance(sceneDraws: true, at: 10)
        #expect(h.phase == .fading(since: 10))
        // The first frame with the scene took 8 s to draw (shaders compiled on a slow board).
        h.frameDrawn(at: 18)
        #expect(h.phase == .fading(since: 18))
        h.advance(sceneDraws: true, at: 18.02)
        #expect(h.isFading, "not finished: 6 s had passed since the frame was built, not since it was drawn")
        #expect(abs(h.opacity(at: 21) - 0.5) < 1e-9)
        // Later frames move nothing.
        h.frameDrawn(at: 21)
        #expect(h.phase == .fading(since: 18))
        h.advance(sceneDraws: true, at: 24)
        #expect(h.isFinished)
        // On a virtual clock the frame is drawn at the time it was built: the fade starts there.
        var v = try #require(BootHandoff(settings: BootSettings(handoff: .fade, fadeSeconds: 6), pictures: [Self.picture()]))
        v.frameDrawn(at: 5)
        #expect(v.phase == .waiting, "nothing to anchor before the fade")
        v.advance(sceneDraws: true, at: 10)
        v.frameDrawn(at: 10)
        #expect(v.phase == .fading(since: 10) && abs(v.opacity(at: 11.5) - 0.75) < 1e-9)
    }

    @Test("keep: stays under the scene for good; a zero-length fade cuts at once")
    func keepAndCut() throws {
        var keep = try #require(BootHandoff(settings: BootSettings(handoff: .keep), pictures: [Self.picture()]))
        keep.advance(sceneDraws: true, at: 1)
        keep.advance(sceneDraws: true, at: 1000)
        #expect(keep.phase == .kept && keep.opacity(at: 1000) == 1 && !keep.isFading)
        var list = DrawList(width: 64, height: 48, commands: [DrawCommand(transform: .identity, bounds: Rect(x: 0, y: 0, width: 8, height: 8), color: .blue, opacity: 1)])
        keep.decorate(&list, at: 1000)
        #expect(list.commands.map(\.kind) == [.contents, .layer])
        var cut = try #require(BootHandoff(settings: BootSettings(handoff: .fade, fadeSeconds: 0), pictures: [Self.picture()]))
        cut.advance(sceneDraws: true, at: 1)
        #expect(cut.isFinished)
    }

    func value(_ name: String, _ c: Compositor) -> Double? { c.statistics().first { $0.name == name }?.value }

    /// Through the compositor, on the virtual clock: the first frame is the picture alone (no
    /// black), a client's first frame starts the fade, advancing the clock steps it, and once
    /// it ends the frames are the scene alone.
    @Test("the compositor draws the picture, fades it on its clock, and reports it in stats")
    func throughTheCompositor() throws {
        let backend = FakeBackend()
        let output = FakeOutput("A", Rect(x: 0, y: 0, width: 64, height: 48), journal: backend.journal)
        output.bootPicture = Bitmap(width: 64, height: 48, fill: (200, 30, 40, 255))
        backend.fakes.append(output)
        var configuration = Compositor.Configuration()
        configuration.boot = BootSettings(handoff: .fade, fadeSeconds: 0.5)
        let h = CompositorHarness(presenter: backend.makePresenter(), clock: FrameClock(.virtual), configuration: configuration)
        #expect(output.bootPicture == nil, "taken at start")
        try h.compositor.flushFrame(always: true)
        var list = try #require(h.compositor.presenter.lastList)
        #expect(list.commands.map(\.kind) == [.contents] && list.commands[0].opacity == 1)
        #expect(list.commands[0].contents?.source.width == 64 && list.commands[0].contents?.isOpaque == true)
        #expect(value("boot.phase", h.compositor) == 1 && value("boot.pictures", h.compositor) == 1)

        let a = h.hello("a")
        h.commit(a, CompositorHarness.square(1, x: 8, color: .blue))
        try h.compositor.flushFrame(always: true)
        list = try #require(h.compositor.presenter.lastList)
        #expect(list.commands.last?.kind == .contents && list.commands.last?.opacity == 1, "the fade starts at the client's first frame, from the splash")
        #expect(value("boot.phase", h.compositor) == 3)
        h.advance(a, 0.25)
        try h.compositor.flushFrame(always: true)
        list = try #require(h.compositor.presenter.lastList)
        #expect(abs((list.commands.last?.opacity ?? 0) - 0.5) < 1e-9)
        #expect(abs((value("boot.fade", h.compositor) ?? 0) - 0.5) < 1e-9)
        h.advance(a, 0.25)
        try h.compositor.flushFrame(always: true)
        list = try #require(h.compositor.presenter.lastList)
        #expect(!list.commands.contains { $0.kind == .contents }, "gone once the fade ends")
        #expect(value("boot.phase", h.compositor) == 4 && value("boot.fade", h.compositor) == 1)
    }

    @Test("a backend without a picture (headless) hands nothing over")
    func headless() throws {
        let backend = FakeBackend()
        backend.fakes.append(FakeOutput("A", Rect(x: 0, y: 0, width: 64, height: 48), journal: backend.journal))
        let h = CompositorHarness(presenter: backend.makePresenter(), clock: FrameClock(.virtual))
        try h.compositor.flushFrame(always: true)
        #expect(h.compositor.presenter.lastList?.commands.isEmpty == true)
        #expect(value("boot.phase", h.compositor) == 0 && value("boot.outputsTakenOver", h.compositor) == 0)
    }
}
