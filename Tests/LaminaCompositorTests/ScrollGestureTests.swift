import Testing
import LaminaCore
import LaminaProtocol
import LaminaTestSupport
@testable import LaminaCompositor

/// laminad scrolls a scroll layer with `scrollsOnTouch` itself: the arbitration between a row's
/// taps and the scroll, momentum, the client setting the origin, catching a fling, wheels, and
/// the bounds (no EGL: fakes, the virtual clock).
@Suite("Scrolling by touch in laminad")
struct ScrollGestureTests {
    let h: CompositorHarness
    let a: ClientID

    /// A 300 × 400 vertical scroll layer (#1) at the display's top left, with `rows` rows of 40
    /// points (#100…), and a privileged client moving the clock.
    init(rows: Int = 100, mode: String = "vertically", paging: Bool = false) {
        let backend = FakeBackend()
        backend.fakes.append(FakeOutput("A", Rect(x: 0, y: 0, width: 320, height: 480), journal: backend.journal))
        h = CompositorHarness(presenter: backend.makePresenter(), clock: FrameClock(.virtual))
        a = h.hello("list")
        var ops: [LaminaProtocol.Operation] = [
            .create(LayerID(1), kind: .scroll), .set(LayerID(1), .bounds, .rect(Rect(x: 0, y: 0, width: 300, height: 400))),
            .set(LayerID(1), .position, .point(Point(x: 150, y: 200))), .set(LayerID(1), .scrollMode, .string(mode)),
            .set(LayerID(1), .scrollsOnTouch, .bool(true)), .set(LayerID(1), .pagingEnabled, .bool(paging)),
            .set(LayerID(1), .masksToBounds, .bool(true)), .insert(parent: .root, child: LayerID(1), index: .max),
        ]
        for i in 0..<rows {
            let id = LayerID(UInt32(100 + i))
            ops += [.create(id), .set(id, .bounds, .rect(Rect(x: 0, y: 0, width: 300, height: 40))),
                    .set(id, .position, .point(Point(x: 150, y: 20 + 40 * Double(i)))),
                    .set(id, .backgroundColor, .color(i % 2 == 0 ? .red : .blue)),
                    .insert(parent: LayerID(1), child: id, index: .max)]
        }
        h.feed(a, .commit(Commit(serial: 1, operations: ops)))
        _ = try? h.compositor.flushFrame(always: true)
        _ = h.take(a)
    }

    var origin: Point { h.compositor.model.entries[0].tree[LayerID(1)]!.properties.bounds.origin }

    func touch(_ action: InputAction) { h.compositor.handleInput(action, origin: .injected) }

    /// Moves the virtual clock by `seconds` and draws the frame there.
    func advance(_ seconds: Double) throws {
        _ = h.compositor.clock.advance(by: seconds)
        try h.compositor.flushFrame(always: true)
    }

    func inputs(_ messages: [ServerMessage]) -> [InputEvent] { messages.compactMap { if case .input(let e) = $0, !e.kind.isKeyboard { e } else { nil } } }
    func scrolls(_ messages: [ServerMessage]) -> [ScrollEvent] { messages.compactMap { if case .scroll(let e) = $0 { e } else { nil } } }

    /// Drags touch 1 from (150, y0) to (150, y1) in `steps` moves, 1/60 s apart, drawing a frame after each.
    func drag(from y0: Double, to y1: Double, steps: Int, x: Double = 150, x1: Double? = nil) throws {
        touch(.touchDown(id: 1, at: Point(x: x, y: y0)))
        for i in 1...steps {
            try advance(1.0 / 60)
            let f = Double(i) / Double(steps)
            touch(.touchMotion(id: 1, to: Point(x: x + ((x1 ?? x) - x) * f, y: y0 + (y1 - y0) * f)))
            try h.compositor.flushFrame()
        }
    }

    @Test("a tap on a row is the row's: down and up, no scroll")
    func tapsGoToTheRow() throws {
        touch(.touchDown(id: 1, at: Point(x: 150, y: 60)))
        touch(.touchMotion(id: 1, to: Point(x: 154, y: 66)))   // under the threshold
        touch(.touchUp(id: 1))
        let m = h.take(a)
        #expect(inputs(m).map(\.kind) == [.touchDown, .touchMove, .touchUp])
        #expect(inputs(m).allSatisfy { $0.layer == LayerID(101) })
        #expect(scrolls(m).isEmpty)
        try advance(1)
        #expect(origin == .zero)
    }

    @Test("past the threshold the scroll takes the drag: the row gets a cancel, the client scroll events, the origin follows the finger")
    func aDragBecomesAScroll() throws {
        try drag(from: 300, to: 100, steps: 10)
        let m = h.take(a)
        let rowEvents = inputs(m)
        #expect(rowEvents.first?.kind == .touchDown && rowEvents.first?.layer == LayerID(107))
        #expect(rowEvents.last?.kind == .touchCancel, "the row's tap is cancelled when the scroll takes over")
        #expect(rowEvents.filter { $0.kind == .touchMove }.count == 1, "the move that crossed the threshold, then nothing")
        let events = scrolls(m)
        #expect(events.first?.phase == .began && events.dropFirst().allSatisfy { $0.phase == .moved })
        // The threshold was crossed at the first move (20 points); the origin follows the finger
        // from there, point for point.
        #expect(origin == Point(x: 0, y: 180))
        #expect(events.last?.offset == origin && events.last?.layer == LayerID(1))
        // The finger holds still, then lifts: no momentum.
        try advance(0.5)
        touch(.touchUp(id: 1))
        try advance(0.1)
        #expect(inputs(h.take(a)).isEmpty, "the touch is the scroll's: the row hears nothing more")
        #expect(origin == Point(x: 0, y: 180))
    }

    @Test("a fling goes on with UIScrollView's deceleration and reports its end")
    func flingDecelerates() throws {
        try drag(from: 390, to: 90, steps: 10)   // 30 points a frame: 1 800 points a second
        touch(.touchUp(id: 1))
        #expect(origin.y == 270, "the finger went from 360, where it crossed the threshold, to 90")
        _ = h.take(a)
        try advance(0.25)
        // 0.25 s of momentum from 1 800 points a second.
        let k = ScrollPhysics.decelerationPerSecond
        let expected = 270 + 1_800 * (1 - _exp(-k * 0.25)) / k
        #expect(abs(origin.y - expected) < 1e-6, "\(origin.y) against \(expected)")
        try advance(5)
        let m = scrolls(h.take(a))
        #expect(m.last?.phase == .ended && m.last?.velocity == .zero)
        #expect(abs(origin.y - (270 + 1_790 / k)) < 1e-6, "it rests where its speed fell to 10 points a second")
        #expect(!h.compositor.isScrolling)
    }

    @Test("a drag sideways in a vertical scroll layer stays the row's")
    func theWrongAxisStaysWithTheRow() throws {
        try drag(from: 100, to: 110, steps: 4, x: 50, x1: 250)
        touch(.touchUp(id: 1))
        let m = h.take(a)
        #expect(inputs(m).map(\.kind) == [.touchDown, .touchMove, .touchMove, .touchMove, .touchMove, .touchUp])
        #expect(scrolls(m).isEmpty && origin == .zero)
    }

    @Test("pulled past the top it rubber-bands, and springs back when released")
    func rubberBandAtTheTop() throws {
        try drag(from: 100, to: 300, steps: 10)
        // 180 points past the top (the first 20 were the threshold), shown rubber-banded.
        #expect(abs(origin.y - -ScrollPhysics.rubberBand(180, dimension: 400)) < 1e-9)
        try advance(0.5)   // hold still: no fling
        touch(.touchUp(id: 1))
        try advance(0.1)
        #expect(origin.y < 0 && origin.y > -ScrollPhysics.rubberBand(180, dimension: 400))
        try advance(1)
        #expect(origin == .zero)
        #expect(scrolls(h.take(a)).last?.phase == .ended)
    }

    @Test("a finger on a moving scroll stops it and is the scroll's, not the row's")
    func aTouchCatchesAFling() throws {
        try drag(from: 390, to: 90, steps: 10)
        touch(.touchUp(id: 1))
        try advance(0.2)
        _ = h.take(a)
        let caught = origin
        touch(.touchDown(id: 2, at: Point(x: 150, y: 200)))
        try advance(0.5)
        #expect(origin == caught, "held: no more momentum")
        touch(.touchUp(id: 2))
        try advance(0.5)
        let m = h.take(a)
        #expect(inputs(m).isEmpty, "the row under the finger heard nothing")
        #expect(scrolls(m).last?.phase == .ended && origin == caught)
    }

    @Test("the client setting the origin ends the scroll, interrupted, at its origin")
    func aClientSetInterrupts() throws {
        try drag(from: 390, to: 90, steps: 10)
        touch(.touchUp(id: 1))
        try advance(0.1)
        _ = h.take(a)
        h.feed(a, .commit(Commit(serial: 2, operations: [
            .settings(TransactionSettings(disableActions: true)),
            .set(LayerID(1), .bounds, .rect(Rect(x: 0, y: 40, width: 300, height: 400)))])))
        let m = h.take(a)
        #expect(scrolls(m).map(\.phase) == [.interrupted])
        #expect(scrolls(m).first?.offset == Point(x: 0, y: 40))
        try advance(1)
        #expect(origin == Point(x: 0, y: 40) && scrolls(h.take(a)).isEmpty && !h.compositor.isScrolling)
        // A set that keeps laminad's origin (a new size only) leaves a scroll going.
        try drag(from: 390, to: 90, steps: 10)
        touch(.touchUp(id: 1))
        try advance(0.1)
        let now = origin
        h.feed(a, .commit(Commit(serial: 3, operations: [
            .settings(TransactionSettings(disableActions: true)),
            .set(LayerID(1), .bounds, .rect(Rect(origin: now, size: Size(width: 300, height: 380))))])))
        #expect(!scrolls(h.take(a)).contains { $0.phase == .interrupted } && h.compositor.isScrolling)
    }

    @Test("a wheel over the list scrolls it within its extent; the client gets scroll events, not wheel input")
    func wheelScrolls() throws {
        touch(.pointerMotion(to: Point(x: 150, y: 200)))
        _ = h.take(a)
        touch(.pointerAxis(horizontal: 0, vertical: 120))
        try h.compositor.flushFrame()
        #expect(origin == Point(x: 0, y: 120))
        touch(.pointerAxis(horizontal: 0, vertical: -1_000))
        try advance(1.0 / 60)
        #expect(origin == .zero, "a wheel does not pull past the edge")
        try advance(ActiveScroll.wheelIdle)
        let m = h.take(a)
        #expect(inputs(m).filter { $0.kind == .scroll }.isEmpty)
        #expect(scrolls(m).map(\.phase) == [.began, .moved, .ended] && scrolls(m).allSatisfy { $0.source == .wheel })
    }

    @Test("paging settles the release on a page")
    func pagingSettles() throws {
        let paged = ScrollGestureTests(paging: true)
        // 150 points up, slowly, then held: nearer page 0 than page 1 (400).
        try paged.drag(from: 300, to: 130, steps: 17)
        try paged.advance(0.3)
        paged.touch(.touchUp(id: 1))
        try paged.advance(2)
        #expect(paged.origin == .zero)
        // A flick of 100 points goes on to the next page.
        try paged.drag(from: 300, to: 180, steps: 4)
        paged.touch(.touchUp(id: 1))
        try paged.advance(0.1)
        #expect(paged.origin.y > 100 && paged.origin.y < 400)
        try paged.advance(2)
        #expect(paged.origin == Point(x: 0, y: 400))
    }

    @Test("nested: a horizontal pager takes sideways drags from the vertical list inside it")
    func nestedScrollLayers() throws {
        let backend = FakeBackend()
        backend.fakes.append(FakeOutput("A", Rect(x: 0, y: 0, width: 320, height: 480), journal: backend.journal))
        let h = CompositorHarness(presenter: backend.makePresenter(), clock: FrameClock(.virtual))
        let c = h.hello("pager")
        h.feed(c, .commit(Commit(serial: 1, operations: [
            .create(LayerID(1), kind: .scroll), .set(LayerID(1), .bounds, .rect(Rect(x: 0, y: 0, width: 300, height: 400))),
            .set(LayerID(1), .position, .point(Point(x: 150, y: 200))), .set(LayerID(1), .scrollMode, .string("horizontally")),
            .set(LayerID(1), .scrollsOnTouch, .bool(true)), .set(LayerID(1), .scrollContentSize, .size(Size(width: 900, height: 400))),
            .insert(parent: .root, child: LayerID(1), index: .max),
            .create(LayerID(2), kind: .scroll), .set(LayerID(2), .bounds, .rect(Rect(x: 0, y: 0, width: 300, height: 400))),
            .set(LayerID(2), .position, .point(Point(x: 150, y: 200))), .set(LayerID(2), .scrollMode, .string("vertically")),
            .set(LayerID(2), .scrollsOnTouch, .bool(true)), .set(LayerID(2), .scrollContentSize, .size(Size(width: 300, height: 4000))),
            .insert(parent: LayerID(1), child: LayerID(2), index: .max)])))
        try h.compositor.flushFrame(always: true)
        func origin(_ id: UInt32) -> Point { h.compositor.model.entries[0].tree[LayerID(id)]!.properties.bounds.origin }
        h.compositor.handleInput(.touchDown(id: 1, at: Point(x: 250, y: 200)), origin: .injected)
        h.compositor.handleInput(.touchMotion(id: 1, to: Point(x: 200, y: 204)), origin: .injected)
        h.compositor.handleInput(.touchMotion(id: 1, to: Point(x: 150, y: 208)), origin: .injected)
        try h.compositor.flushFrame()
        #expect(origin(1) == Point(x: 50, y: 0) && origin(2) == .zero)
        h.compositor.handleInput(.touchUp(id: 1), origin: .injected)
        h.compositor.handleInput(.touchDown(id: 2, at: Point(x: 150, y: 300)), origin: .injected)
        h.compositor.handleInput(.touchMotion(id: 2, to: Point(x: 152, y: 250)), origin: .injected)
        h.compositor.handleInput(.touchMotion(id: 2, to: Point(x: 154, y: 200)), origin: .injected)
        try h.compositor.flushFrame()
        #expect(origin(2) == Point(x: 0, y: 50), "\(h.compositor.input.scroll.active.keys)")
    }

    @Test("at most 16 scroll layers are driven at once; past that the wheel is the client's input")
    func theNumberOfScrollsIsBounded() throws {
        let backend = FakeBackend()
        backend.fakes.append(FakeOutput("A", Rect(x: 0, y: 0, width: 340, height: 20), journal: backend.journal))
        let h = CompositorHarness(presenter: backend.makePresenter(), clock: FrameClock(.virtual))
        let c = h.hello("many")
        var ops: [LaminaProtocol.Operation] = []
        for i in 0..<17 {
            let id = LayerID(UInt32(i + 1))
            ops += [.create(id, kind: .scroll), .set(id, .bounds, .rect(Rect(x: 0, y: 0, width: 20, height: 20))),
                    .set(id, .position, .point(Point(x: 10 + 20 * Double(i), y: 10))), .set(id, .scrollsOnTouch, .bool(true)),
                    .set(id, .scrollContentSize, .size(Size(width: 20, height: 1000))), .insert(parent: .root, child: id, index: .max)]
        }
        h.feed(c, .commit(Commit(serial: 1, operations: ops)))
        try h.compositor.flushFrame(always: true)
        _ = h.take(c)
        for i in 0..<17 {
            h.compositor.handleInput(.pointerMotion(to: Point(x: 10 + 20 * Double(i), y: 10)), origin: .injected)
            h.compositor.handleInput(.pointerAxis(horizontal: 0, vertical: 5), origin: .injected)
        }
        #expect(h.compositor.input.scroll.active.count == ScrollState.maximumActive)
        let wheelInput = h.take(c).compactMap { if case .input(let e) = $0, e.kind == .scroll { e } else { nil } }
        #expect(wheelInput.map(\.layer) == [LayerID(17)])
    }

    @Test("a layer destroyed mid-scroll ends it, and the touch goes nowhere after")
    func destroyedMidScroll() throws {
        try drag(from: 390, to: 90, steps: 10)
        _ = h.take(a)
        h.feed(a, .commit(Commit(serial: 2, operations: [.destroy(LayerID(1))])))
        try advance(0.1)
        touch(.touchMotion(id: 1, to: Point(x: 150, y: 50)))
        touch(.touchUp(id: 1))
        try advance(0.1)
        #expect(!h.compositor.isScrolling && h.compositor.input.scroll.owned.isEmpty)
        #expect(inputs(h.take(a)).isEmpty)
    }

    @Test("scroll properties are validated: negative or non-finite sizes and unknown modes are refused, naming the property")
    func badValues() throws {
        func refusal(_ op: LaminaProtocol.Operation) -> ErrorMessage? {
            h.feed(a, .commit(Commit(serial: 9, operations: [op])))
            return h.take(a).compactMap { if case .error(let e) = $0 { e } else { nil } }.first
        }
        let negative = try #require(refusal(.set(LayerID(1), .scrollContentSize, .size(Size(width: -1, height: 10)))))
        #expect(negative.code == .invalidProperty && negative.message.contains("scrollContentSize") && negative.message.contains("negative"))
        let nan = try #require(refusal(.set(LayerID(1), .scrollContentSize, .size(Size(width: .nan, height: 10)))))
        #expect(nan.code == .invalidProperty && nan.message.contains("scrollContentSize") && nan.message.contains("finite"))
        let infinite = try #require(refusal(.set(LayerID(1), .scrollContentSize, .size(Size(width: 10, height: .infinity)))))
        #expect(infinite.message.contains("scrollContentSize"))
        let mode = try #require(refusal(.set(LayerID(1), .scrollMode, .string("sideways"))))
        #expect(mode.code == .invalidProperty && mode.message.contains("scrollMode") && mode.message.contains("vertically"))
        #expect(h.compositor.model.entries[0].tree[LayerID(1)]!.properties.scrollContentSize == .zero, "nothing else changed")
    }

    @Test("a client of protocol 1.6 that adopts a session with a scroll layer gets no scroll events, and a plain layer in its snapshot")
    func olderClients() throws {
        #expect(Compositor.operations([.create(LayerID(1), kind: .scroll), .set(LayerID(1), .scrollsOnTouch, .bool(true)),
                                       .set(LayerID(1), .opacity, .number(0.5))], forMinor: 6)
                == [.create(LayerID(1)), .set(LayerID(1), .opacity, .number(0.5))])
        let backend = FakeBackend()
        backend.fakes.append(FakeOutput("A", Rect(x: 0, y: 0, width: 320, height: 480), journal: backend.journal))
        let h = CompositorHarness(presenter: backend.makePresenter(), clock: FrameClock(.virtual))
        let maker = h.compositor.connect()
        h.feed(maker, .hello(Hello(clientName: "maker", session: "kiosk", flags: .keepLayers)))
        h.feed(maker, .commit(Commit(serial: 1, operations: [
            .create(LayerID(1), kind: .scroll), .set(LayerID(1), .bounds, .rect(Rect(x: 0, y: 0, width: 50, height: 50))),
            .set(LayerID(1), .position, .point(Point(x: 25, y: 25))), .set(LayerID(1), .scrollsOnTouch, .bool(true)),
            .set(LayerID(1), .scrollContentSize, .size(Size(width: 50, height: 500))),
            .insert(parent: .root, child: LayerID(1), index: .max)])))
        h.compositor.disconnected(maker)
        let old = h.compositor.connect()
        h.feed(old, .hello(Hello(minor: 6, clientName: "old", session: "kiosk")))
        guard case .welcome(let welcome)? = h.take(old).first else { Issue.record("no welcome"); return }
        #expect(welcome.snapshot.contains(.create(LayerID(1))) && !welcome.snapshot.contains(.create(LayerID(1), kind: .scroll)))
        #expect(!welcome.snapshot.contains { if case let .set(_, key, _) = $0 { key.minorVersion > 6 } else { false } })
        try h.compositor.flushFrame(always: true)
        h.compositor.handleInput(.pointerMotion(to: Point(x: 25, y: 25)), origin: .injected)
        h.compositor.handleInput(.pointerAxis(horizontal: 0, vertical: 10), origin: .injected)
        _ = h.compositor.clock.advance(by: 1)
        try h.compositor.flushFrame(always: true)
        #expect(h.compositor.model.entries[0].tree[LayerID(1)]?.properties.bounds.origin == Point(x: 0, y: 10),
                "laminad scrolled the session's layer")
        #expect(!h.take(old).contains { if case .scroll = $0 { true } else { false } }, "the 1.6 client heard nothing it cannot decode")
    }
}
