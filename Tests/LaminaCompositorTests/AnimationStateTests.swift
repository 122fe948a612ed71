import Testing
import LaminaTestSupport
import LaminaCore
import LaminaProtocol
@testable import LaminaCompositor

/// The three trees kept apart: what a commit replaced comes from `ClientTree.apply`, a
/// client's animations live in its `AnimationState` (not in the model's entry), and a
/// transition's old rendering is the render side's (`TransitionSnapshots`), drawn from what its commit replaced.
@Suite("Animation state apart from the model", .serialized)
final class AnimationStateTests {
    let h: CompositorHarness
    var compositor: Compositor { h.compositor }

    init() throws {
        h = try CompositorHarness(headlessWidth: 64, height: 48)
    }

    /// A 16×16 square at x, filled with `color`, actions disabled.
    func square(_ id: UInt32, x: Double, color: Color, in parent: LayerID = .root) -> [Operation] {
        [.settings(TransactionSettings(disableActions: true)),
         .create(LayerID(id)), .set(LayerID(id), .bounds, .rect(Rect(x: 0, y: 0, width: 16, height: 16))),
         .set(LayerID(id), .position, .point(Point(x: x, y: 24))), .set(LayerID(id), .backgroundColor, .color(color)),
         .insert(parent: parent, child: LayerID(id), index: .max)]
    }

    /// Which of the given colours the frame's draw list fills layers with.
    func colorsDrawn(_ colors: [Color]) -> Set<Color> {
        let list = compositor.model.drawList(presentation: PresentationTree(ticked: compositor.animationStates),
                                               transitions: compositor.transitionSnapshots, cache: compositor.renderCache)
        return Set(list.commands.filter { $0.kind == .layer }.map(\.color).filter { colors.contains($0) })
    }

    @Test func applyReportsTheValuesItReplaced() throws {
        var tree = ClientTree(displayWidth: 64, displayHeight: 48)
        try tree.apply(square(1, x: 10, color: .red) + square(2, x: 40, color: .blue))
        let result = try tree.apply([.set(LayerID(1), .position, .point(Point(x: 30, y: 24))),
                                     .set(LayerID(1), .position, .point(Point(x: 50, y: 24))),
                                     .create(LayerID(3))])
        #expect(result.replaced[LayerID(1)]?.properties.position == Point(x: 10, y: 24), "the value before the commit, not the one between")
        #expect(tree[LayerID(1)]?.properties.position == Point(x: 50, y: 24))
        #expect(result.replaced[LayerID(3)] == nil, "a layer the commit made replaced nothing")

        // A commit applied in steps to a copy reports the same, from the tree it started from.
        var copy = tree
        var progress = try copy.beginStreamedCommit(count: 2)
        progress.supply([.set(LayerID(2), .opacity, .number(0.5)), .set(LayerID(1), .position, .point(Point(x: 5, y: 24)))])
        try copy.continueCommit(&progress, operations: .max)
        let streamed = try copy.finishCommit(&progress)
        #expect(streamed.replaced[LayerID(2)]?.properties.opacity == 1)
        #expect(streamed.replaced[LayerID(1)]?.properties.position == Point(x: 50, y: 24))
        #expect(copy[LayerID(2)]?.properties.opacity == 0.5)
    }

    /// An implicit animation starts from the presentation of the value the commit replaced.
    @Test func animationsLiveInTheirOwnStateAndStartFromWhatWasReplaced() throws {
        let a = h.hello("a")
        h.feed(a, .commit(Commit(serial: 1, operations: square(1, x: 10, color: .red))))
        #expect(compositor.animationState(entry: 0) == nil, "nothing animated yet: no state")
        h.feed(a, .commit(Commit(serial: 2, operations: [
            .settings(TransactionSettings(duration: 1, timingFunction: .linear)),
            .set(LayerID(1), .position, .point(Point(x: 50, y: 24)))])))
        h.advance(a, 0.5)
        let state = try #require(compositor.animationState(entry: 0))
        #expect(state.animated[LayerID(1)]?.presentation.position == Point(x: 30, y: 24))
        #expect(compositor.model.entries[0].tree[LayerID(1)]?.properties.position == Point(x: 50, y: 24), "the model holds the new value")
        // Changed again halfway: the new animation starts where the layer is shown.
        h.feed(a, .commit(Commit(serial: 3, operations: [
            .settings(TransactionSettings(duration: 1, timingFunction: .linear)),
            .set(LayerID(1), .position, .point(Point(x: 10, y: 24)))])))
        h.advance(a, 0)
        #expect(compositor.animationState(entry: 0)?.animated[LayerID(1)]?.presentation.position == Point(x: 30, y: 24))
        h.feed(a, .commit(Commit(serial: 4, operations: [.settings(TransactionSettings(disableActions: true)), .destroy(LayerID(1))])))
        #expect(compositor.animationState(entry: 0)?.animated[LayerID(1)] == nil, "a destroyed layer's animations go")
        compositor.disconnected(a)
        #expect(compositor.animationStates.isEmpty, "the state goes with its entry")
    }

    /// A transition's old rendering is kept by the render side from its commit until it ends.
    @Test func transitionSnapshotsAreTheRenderSidesAndGoWhenTheTransitionEnds() throws {
        let a = h.hello("a")
        h.feed(a, .commit(Commit(serial: 1, operations: square(1, x: 24, color: .red))))
        try compositor.flushFrame(always: true)
        var push = Transition(type: .push, subtype: .fromRight, timing: MediaTiming(duration: 1))
        push.timingFunction = .linear
        h.feed(a, .commit(Commit(serial: 2, operations: [
            .settings(TransactionSettings(disableActions: true)),
            .set(LayerID(1), .backgroundColor, .color(.blue)),
            .addAnimation(LayerID(1), key: "transition", tag: 0, .transition(push))])))
        #expect(compositor.transitionSnapshots.isEmpty && compositor.replacedRenderings.count == 1, "the commit keeps what it replaced; the frame draws it")
        h.advance(a, 0.5)
        #expect(compositor.transitionSnapshots[entry: compositor.model.entries[0].serial, layer: LayerID(1)] != nil)
        #expect(colorsDrawn([.red, .blue]) == [.red, .blue], "halfway: the old rendering and the new")
        h.advance(a, 1)
        #expect(compositor.transitionSnapshots.isEmpty, "the transition ended: its snapshot is let go")
        #expect(colorsDrawn([.red, .blue]) == [.blue])
    }

    /// A layer removed with an onOrderOut animation is drawn from the render tree until it
    /// ends, under a top-level layer the render-list cache serves once it is static again.
    @Test func departingLayersAreDrawnUntilTheirAnimationEnds() throws {
        let a = h.hello("a")
        let fade = BasicAnimation(keyPath: "opacity", from: .number(1), to: .number(0.5), duration: 1, timingFunction: .linear)
        h.feed(a, .commit(Commit(serial: 1, operations: square(1, x: 24, color: .green) + square(2, x: 8, color: .red, in: LayerID(1))
            + [.setAction(LayerID(2), dictionary: .actions, key: "onOrderOut", .animation(.basic(fade)))])))
        try compositor.flushFrame(always: true)
        #expect(colorsDrawn([.green, .red]) == [.green, .red])
        h.feed(a, .commit(Commit(serial: 2, operations: [.remove(LayerID(2))])))
        let state = try #require(compositor.animationState(entry: 0))
        #expect(state.departing[LayerID(2)] != nil && state.renderTree != nil)
        h.advance(a, 0.5)
        #expect(colorsDrawn([.green, .red]) == [.green, .red], "on its way out, still drawn")
        let changes = try #require(compositor.animationState(entry: 0)?.renderTreeChanges)
        h.advance(a, 1)
        let after = try #require(compositor.animationState(entry: 0))
        #expect(after.departing.isEmpty && after.renderTree == nil)
        #expect(after.renderTreeChanges > changes, "the render tree changed without the model changing")
        #expect(colorsDrawn([.green, .red]) == [.green])
        h.advance(a, 0.1)
        #expect(colorsDrawn([.green, .red]) == [.green], "served from the cache: still gone")
    }
}
