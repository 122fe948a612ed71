import Testing
import LaminaCore
import LaminaHeadless
import LaminaTestSupport
@testable import LaminaCompositor

/// The frame step over the `Output` seam, with outputs and a renderer that only record what
/// they are asked (no GL, no KMS): which outputs draw, in what order, with which damage, and
/// how the backend's commit brackets them.
@Suite("The frame step over outputs")
struct OutputSeamTests {
    func square(x: Double, y: Double = 10) -> DrawCommand {
        DrawCommand(transform: .translation(x: x, y: y), bounds: Rect(x: 0, y: 0, width: 20, height: 20), color: .red, opacity: 1)
    }

    /// Two outputs side by side: 100×50 at 0,0 and 60×50 at 100,0.
    func twoOutputs() -> FakeBackend {
        let backend = FakeBackend()
        backend.fakes = [FakeOutput("left", Rect(x: 0, y: 0, width: 100, height: 50), journal: backend.journal),
                         FakeOutput("right", Rect(x: 100, y: 0, width: 60, height: 50), journal: backend.journal)]
        return backend
    }

    @Test("each due output begins, draws and commits in turn, inside one commit the backend flushes once")
    func oneCommitBracketsEveryOutput() throws {
        let backend = twoOutputs()
        let presenter = backend.makePresenter()
        try presenter.present(DrawList(width: 160, height: 50, commands: [square(x: 110)]))
        #expect(backend.journal.calls == ["begin commit", "begin left", "draw 100x50", "commit left",
                                          "begin right", "draw 60x50", "commit right", "flush"])
        // Each output gets its part of the desktop, in its own pixels.
        let right = backend.recording.draws[1].list
        let corner = try #require(right.commands[0].transform.apply(to: Point(x: 0, y: 0)))
        #expect(right.width == 60 && corner.x == 10 && corner.y == 10)
    }

    @Test("only the named outputs that are lit and free draw; the others keep what they show")
    func onlyDueOutputsDraw() throws {
        let backend = twoOutputs()
        let presenter = backend.makePresenter()
        let list = DrawList(width: 160, height: 50)
        try presenter.present(list, on: ["right"])
        #expect(backend.journal.calls == ["begin commit", "begin right", "draw 60x50", "commit right", "flush"])
        backend.journal.calls = []
        backend.fakes[0].isOn = false
        backend.fakes[1].isFramePending = true
        let pending = try presenter.present(list, on: nil)
        #expect(backend.journal.calls == ["begin commit", "flush"])
        #expect(pending == ["right"])
    }

    @Test("the buffer age picks the damage drawn; with damage tracking off every frame is drawn whole")
    func bufferAgeAndDamageOff() throws {
        let backend = twoOutputs()
        backend.fakes.removeLast()
        let presenter = backend.makePresenter()
        let output = backend.fakes[0]
        try presenter.present(DrawList(width: 100, height: 50, commands: [square(x: 10)]))
        #expect(backend.recording.draws.last?.damage == nil, "the first frame is drawn whole")
        try presenter.present(DrawList(width: 100, height: 50, commands: [square(x: 40)]))
        let moved = try #require(backend.recording.draws.last?.damage)
        #expect(!moved.isEmpty && moved.bounds.x0 < 12 && moved.bounds.x1 > 58)
        #expect(output.committed.last! == moved, "the commit carries what changed since the frame before")
        output.bufferAge = 0
        try presenter.present(DrawList(width: 100, height: 50, commands: [square(x: 41)]))
        #expect(backend.recording.draws.last?.damage == nil, "a buffer of unknown content is drawn whole")
        output.bufferAge = 1
        backend.damageTracking = false
        try presenter.present(DrawList(width: 100, height: 50, commands: [square(x: 42)]))
        #expect(backend.recording.draws.last?.damage == nil)
        #expect(output.committed.last! == nil, "--damage off commits no damage")
        #expect(output.damageStatistics.frames == 4 && output.damageStatistics.fullFrames == 3)
    }

    @Test("a frame that fails on one output resets that output's history; the others still commit, then the error is thrown")
    func failureResetsTheOutputsHistory() throws {
        let backend = twoOutputs()
        let presenter = backend.makePresenter()
        let list = DrawList(width: 160, height: 50, commands: [square(x: 10)])
        try presenter.present(list)
        #expect(backend.fakes[0].damage.history.count == 1)
        backend.recording.failOn = "100"
        backend.journal.calls = []
        #expect(throws: ScreenshotUnavailable.self) { try presenter.present(list) }
        #expect(backend.journal.calls == ["begin commit", "begin left", "draw 100x50", "begin right", "draw 60x50", "commit right", "flush"])
        #expect(backend.fakes[0].damage.history.isEmpty, "the failed output draws whole next time")
        #expect(backend.fakes[1].damage.history.count == 2)
    }

    @Test("a screenshot is the presented buffer where one output shows the whole desktop, else the last desktop redrawn")
    func screenshotReadsThePresentedBuffer() throws {
        let backend = twoOutputs()
        let presenter = backend.makePresenter()
        #expect(throws: ScreenshotUnavailable.self) { try presenter.screenshot() }
        let list = DrawList(width: 160, height: 50, commands: [square(x: 10)])
        try presenter.present(list)
        backend.journal.calls = []
        #expect(try presenter.screenshot().width == 160)
        #expect(backend.journal.calls == ["allocate 160x50", "draw 160x50"], "the whole desktop redrawn offscreen")
        #expect(backend.recording.draws.last?.list == list && backend.recording.draws.last?.damage == nil)
        backend.fakes.removeLast()
        try presenter.present(DrawList(width: 100, height: 50))
        backend.journal.calls = []
        let shot = try presenter.screenshot()
        #expect(shot == Bitmap(width: 100, height: 50, fill: (1, 2, 3, 255)), "read from the output, not redrawn")
        #expect(backend.journal.calls.isEmpty)
        backend.fakes[0].transform = .rotate180
        #expect(try presenter.screenshot() == Bitmap(width: 100, height: 50), "a turned output is redrawn")
        #expect(try presenter.screenshot() == Bitmap(width: 100, height: 50))
        #expect(backend.journal.calls == ["allocate 100x50", "draw 100x50", "draw 100x50"], "the redraw buffer is kept while the desktop keeps its size")
    }

    @Test("without an allocator, a desktop no output's buffer holds has no screenshot")
    func noRedrawWithoutAnAllocator() throws {
        let backend = twoOutputs()
        let presenter = FramePresenter(backend: backend, renderer: backend.recording, offscreen: nil)
        try presenter.present(DrawList(width: 160, height: 50))
        #expect(throws: ScreenshotUnavailable.self) { try presenter.screenshot() }
    }

    @Test("the backend's outputs answer for placements, power, pacing, roots and damage statistics")
    func backendReadsItsOutputs() throws {
        let backend = twoOutputs()
        backend.fakes[1].transform = .rotate90
        backend.fakes[1].refreshInterval = nil
        #expect(backend.outputNames == ["left", "right"])
        #expect(backend.outputPlacements[1] == OutputPlacement(name: "right", frame: Rect(x: 100, y: 0, width: 60, height: 50), quarterTurns: 1))
        #expect(backend.pagedOutputs.map(\.name) == ["left"], "an output without a refresh is not paced")
        #expect(backend.outputRoots.isEmpty)
        #expect(throws: PowerUnsupported.self) { try backend.setPower(false) }
        try backend.makePresenter().present(DrawList(width: 160, height: 50))
        #expect(backend.damageStatistics.frames == 2)
    }

    @Test("the headless output rotates its buffers with buffer-age semantics; a frame begun but never committed leaves its buffer unknown")
    func headlessBufferAges() throws {
        let journal = CallJournal()
        let allocator = FakeAllocator(journal: journal)
        let backend = try HeadlessBackend(width: 8, height: 8, buffers: 3, allocator: allocator)
        #expect(journal.calls == ["allocate 8x8", "allocate 8x8", "allocate 8x8"], "its buffers come from the renderer's side")
        let output = backend.output
        #expect(try output.readPresented() == nil, "nothing presented yet")
        var ages: [Int] = []
        for _ in 0..<5 {
            ages.append(try output.beginFrame().bufferAge)
            try output.commit(damage: nil)
        }
        #expect(ages == [0, 0, 0, 3, 3])
        _ = try output.beginFrame()
        // Not committed (the draw failed): that buffer's content is unknown.
        #expect(try output.beginFrame().bufferAge == 0)
        try output.commit(damage: nil)
        #expect(try output.beginFrame().bufferAge == 3)
        #expect(allocator.framesPresented == 6, "each commit is told to the renderer's side, which paces its work")
        #expect(try output.readPresented() == Bitmap(width: 8, height: 8))
        #expect(backend.outputNames == ["headless"] && output.refreshInterval == nil && backend.pagedOutputs.isEmpty)
    }

    @Test("a video the output takes on an overlay plane is left out of what the renderer draws; one it refuses is drawn, and the log says why")
    func videoOnAnOverlayPlane() throws {
        let backend = FakeBackend()
        let output = FakeOutput("panel", Rect(x: 0, y: 0, width: 1280, height: 720), journal: backend.journal)
        output.planes = OverlayPlannerTests.planes
        backend.fakes = [output]
        let presenter = backend.makePresenter()
        presenter.videosShown = true
        let list = OverlayPlannerTests.list()
        try presenter.present(list)
        let scanout = try #require(output.scanouts.last ?? nil, "the planner's choice went to the output")
        #expect(scanout.plane == 41 && scanout.destination == PixelBox(x0: 100, y0: 50, x1: 740, y1: 410))
        #expect(backend.recording.draws.last?.list.commands.count == 1, "only the background is drawn: the plane shows the video")
        #expect(presenter.overlayScanoutFrames == 1 && presenter.overlayEligibleFrames == 1 && presenter.overlayCompositedFrames == 0)
        #expect(presenter.takeNotes().contains { $0.hasPrefix("video on panel scanned out on overlay plane 41") })
        // The driver says no: composited, drawn, and why.
        output.refusal = "the driver refused the plane (no scaling)"
        try presenter.present(list)
        #expect(backend.recording.draws.last?.list.commands.count == 2)
        #expect(presenter.overlayScanoutFrames == 1 && presenter.overlayEligibleFrames == 2 && presenter.overlayCompositedFrames == 1)
        #expect(presenter.takeNotes() == ["video on panel composited: the driver refused the plane (no scaling)"])
        // No video any more: the output is told, so a lit plane goes off.
        presenter.videosShown = false
        try presenter.present(DrawList(width: 1280, height: 720))
        #expect(output.scanouts.count == 3 && output.scanouts.last! == nil)
    }

    @Test("a screenshot shows the plane's picture over the primary plane's pixels, where the plane puts it")
    func planePictureInAScreenshot() throws {
        let picture = try #require(Bitmap(width: 2, height: 2, bytes: [255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255, 255, 255, 255, 255]))
        let frame = Bitmap(width: 6, height: 4, fill: (9, 9, 9, 255))
        let dmabuf = try #require(OverlayPlannerTests.video().dmabuf)
        // 1:1 at (1, 1).
        var scanout = PlaneScanout(picture: dmabuf, plane: 41, source: Rect(x: 0, y: 0, width: 2, height: 2),
                                   destination: PixelBox(x0: 1, y0: 1, x1: 3, y1: 3))
        var shot = scanout.composite(picture, onto: frame)
        #expect(shot.pixel(x: 0, y: 0) == (9, 9, 9, 255))
        #expect(shot.pixel(x: 1, y: 1) == (255, 0, 0, 255) && shot.pixel(x: 2, y: 1) == (0, 255, 0, 255))
        #expect(shot.pixel(x: 1, y: 2) == (0, 0, 255, 255) && shot.pixel(x: 3, y: 2) == (9, 9, 9, 255))
        // The right column doubled to 4×4 at (2, 0), cut at the frame's edge.
        scanout.source = Rect(x: 1, y: 0, width: 1, height: 2)
        scanout.destination = PixelBox(x0: 2, y0: 0, x1: 6, y1: 4)
        shot = scanout.composite(picture, onto: frame)
        #expect(shot.pixel(x: 5, y: 1) == (0, 255, 0, 255) && shot.pixel(x: 2, y: 3) == (255, 255, 255, 255))
        #expect(shot.pixel(x: 1, y: 3) == (9, 9, 9, 255))
        // Without the picture's pixels (it could not be mapped), the frame as it was.
        #expect(scanout.composite(nil, onto: frame) == frame)
    }
}
