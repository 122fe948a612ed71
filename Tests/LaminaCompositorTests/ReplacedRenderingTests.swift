import Testing
import LaminaCore
import LaminaProtocol
import LaminaTestSupport
@testable import LaminaCompositor

/// A transition's old rendering comes from what its commit replaced (`ReplacedRendering`):
/// the commit keeps values and walks nothing; the frame step draws them (no EGL: fakes).
@Suite("What a commit replaced, drawn by the frame step")
struct ReplacedRenderingTests {
    let backend: FakeBackend
    let h: CompositorHarness

    init() {
        backend = FakeBackend()
        backend.fakes.append(FakeOutput("A", Rect(x: 0, y: 0, width: 64, height: 48), journal: backend.journal))
        h = CompositorHarness(presenter: backend.makePresenter(), clock: FrameClock(.virtual))
    }

    /// Layer 1 turns `color` with a push transition.
    func pushTo(_ color: Color, serial: UInt32) -> ClientMessage {
        var push = Transition(type: .push, subtype: .fromRight, timing: MediaTiming(duration: 1))
        push.timingFunction = .linear
        return .commit(Commit(serial: serial, operations: [
            .settings(TransactionSettings(disableActions: true)),
            .set(LayerID(1), .backgroundColor, .color(color)),
            .addAnimation(LayerID(1), key: "transition", tag: 0, .transition(push))]))
    }

    func snapshotColors(_ a: ClientID) -> Set<Color> {
        let serial = h.compositor.model.entries[h.compositor.model.index(of: a)!].serial
        return Set((h.compositor.transitionSnapshots[entry: serial, layer: LayerID(1)] ?? []).filter { $0.kind == .layer }.map(\.color))
    }

    @Test("the commit keeps the replaced values; the next frame draws the old rendering from them")
    func theFrameDrawsWhatTheCommitReplaced() throws {
        let a = h.hello("a")
        h.feed(a, .commit(Commit(serial: 1, operations: CompositorHarness.square(1, x: 24, color: .red))))
        try h.compositor.flushFrame(always: true)
        h.feed(a, pushTo(.blue, serial: 2))
        #expect(h.take(a) == [.applied(serial: 1), .applied(serial: 2)])
        #expect(h.compositor.transitionSnapshots.isEmpty, "the commit drew nothing")
        let kept = try #require(h.compositor.replacedRenderings.first)
        #expect(h.compositor.replacedRenderings.count == 1)
        #expect(kept.layers[LayerID(1)]?.properties.backgroundColor == .red, "the presentation the commit replaced")
        #expect(h.compositor.model.entries[0].tree[LayerID(1)]?.properties.backgroundColor == .blue)
        try h.compositor.flushFrame(always: true)
        #expect(h.compositor.replacedRenderings.isEmpty, "drawn by the frame and let go")
        #expect(snapshotColors(a) == [.red], "the old rendering is the layer before the commit")
        let drawn = try #require(h.compositor.presenter.lastList)
        #expect(Set(drawn.commands.filter { $0.kind == .layer }.map(\.color)).isSuperset(of: [.red, .blue]),
                "the frame shows the old rendering and the new")
    }

    @Test("two transitions on a layer before a frame: the later one fades from the first one's result")
    func twoCommitsBeforeAFrame() throws {
        let a = h.hello("a")
        h.feed(a, .commit(Commit(serial: 1, operations: CompositorHarness.square(1, x: 24, color: .red))))
        try h.compositor.flushFrame(always: true)
        h.feed(a, pushTo(.blue, serial: 2))
        h.feed(a, pushTo(.green, serial: 3))
        #expect(h.compositor.replacedRenderings.count == 2)
        try h.compositor.flushFrame(always: true)
        #expect(snapshotColors(a) == [.blue])
    }

    @Test("commits that transition faster than frames hold a bounded number of old trees")
    func heldRenderingsAreBounded() throws {
        let a = h.hello("a")
        h.feed(a, .commit(Commit(serial: 1, operations: CompositorHarness.square(1, x: 24, color: .red))))
        for n in 0..<(Compositor.maximumReplacedRenderings * 3) {
            h.feed(a, pushTo(n % 2 == 0 ? .blue : .green, serial: UInt32(n + 2)))
            #expect(h.compositor.replacedRenderings.count <= Compositor.maximumReplacedRenderings)
        }
        #expect(!h.compositor.transitionSnapshots.isEmpty, "the ones over the bound were drawn at once")
    }

    @Test("a client that leaves takes its replaced renderings with it")
    func leavingDropsThem() throws {
        let a = h.hello("a")
        h.feed(a, .commit(Commit(serial: 1, operations: CompositorHarness.square(1, x: 24, color: .red))))
        h.feed(a, pushTo(.blue, serial: 2))
        #expect(h.compositor.replacedRenderings.count == 1)
        h.compositor.disconnected(a)
        #expect(h.compositor.replacedRenderings.isEmpty)
        try h.compositor.flushFrame(always: true)
        #expect(h.compositor.transitionSnapshots.isEmpty)
    }
}
