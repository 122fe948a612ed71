import Testing
import LaminaCore
import LaminaProtocol
import LaminaTestSupport
@testable import LaminaCompositor

/// `compositingFilter` and `cornerCurve` in the compositor: bad names are refused whole with
/// the value and the valid names, both switch without animating, and the render list carries
/// them to the renderer (no EGL: fakes).
@Suite("compositingFilter and cornerCurve in the compositor")
struct BlendCornerCompositorTests {
    let backend: FakeBackend
    let h: CompositorHarness

    init() {
        backend = FakeBackend()
        backend.fakes.append(FakeOutput("A", Rect(x: 0, y: 0, width: 64, height: 48), journal: backend.journal))
        h = CompositorHarness(presenter: backend.makePresenter(), clock: FrameClock(.virtual))
    }

    func layer(_ a: ClientID) -> LayerProperties? {
        h.compositor.model.entries[h.compositor.model.index(of: a)!].tree[LayerID(1)]?.properties
    }

    @Test("an unknown blend mode or corner curve is refused by name; the commit is undone and the client goes on",
          arguments: [(PropertyKey.compositingFilter, "multiply", "'multiply' is not one of \"\" (none), multiplyBlendMode, screenBlendMode"),
                      (PropertyKey.cornerCurve, "squircle", "'squircle' is not one of circular, continuous")])
    func badNames(key: PropertyKey, value: String, message: String) throws {
        let a = h.hello("a")
        h.feed(a, .commit(Commit(serial: 1, operations: CompositorHarness.square(1, x: 24, color: .red))))
        h.feed(a, .commit(Commit(serial: 2, operations: [
            .set(LayerID(1), .backgroundColor, .color(.blue)),
            .set(LayerID(1), key, .string(value)),
        ])))
        let answers = h.take(a)
        #expect(answers.first == .applied(serial: 1))
        guard case .error(let e)? = answers.last else { Issue.record("no error: \(answers)"); return }
        #expect(e.code == .invalidProperty && e.serial == 2 && e.operationIndex == 1)
        #expect(e.message.contains("layer #1: property '\(key.name)': \(message)"), "\(e.message)")
        let p = try #require(layer(a))
        #expect(p.backgroundColor == .red && p.compositingFilter == nil && p.cornerCurve == .circular, "nothing of commit 2 stayed")
        h.feed(a, .commit(Commit(serial: 3, operations: [.set(LayerID(1), key, .string(key.allowedNames!.last!))])))
        #expect(h.take(a) == [.applied(serial: 3)])
    }

    /// Core Animation animates neither: with actions on, the change starts no animation and
    /// the next frame draws the new values: the layer as a group carrying its blend mode, its
    /// corners continuous.
    @Test("both switch at once, and the render list carries them")
    func switchAtOnce() throws {
        let a = h.hello("a")
        h.feed(a, .commit(Commit(serial: 1, operations: CompositorHarness.square(1, x: 24, color: .red) + [
            .set(LayerID(1), .cornerRadius, .number(6)),
        ])))
        try h.compositor.flushFrame(always: true)
        h.feed(a, .commit(Commit(serial: 2, operations: [
            .set(LayerID(1), .compositingFilter, .string("differenceBlendMode")),
            .set(LayerID(1), .cornerCurve, .string("continuous")),
        ])))
        #expect(h.take(a) == [.applied(serial: 1), .applied(serial: 2)])
        let animating = h.compositor.animationStates.values.contains { !$0.isEmpty }
        #expect(!animating, "no implicit animation")
        try h.compositor.flushFrame(always: true)
        let list = try #require(h.compositor.presenter.lastList)
        let kinds = list.commands.map(\.kind)
        #expect(kinds == [.beginGroup, .layer, .endGroup], "a blended layer is a group even around one draw")
        #expect(list.commands.first?.blendMode == .difference)
        #expect(list.commands[1].cornerRadii.curve == .continuous && list.commands[1].cornerRadii.minXMinY == 6)
    }
}

/// A blended layer's pixels depend on what lies behind it: with damage tracking over two
/// buffers, a multiply layer and a difference layer over a layer that moves, changes colour,
/// and passes under and out from them, show what a full redraw (`--damage off`) shows.
@Suite("Damage under blended layers", .serialized)
struct BlendDamageTests {
    func setUp() -> [Operation] {
        var ops: [Operation] = [.settings(TransactionSettings(disableActions: true))]
        func layer(_ n: UInt32, x: Double, y: Double, w: Double, h: Double, color: Color) {
            let id = LayerID(n)
            ops += [.create(id), .set(id, .bounds, .rect(Rect(x: 0, y: 0, width: w, height: h))),
                    .set(id, .position, .point(Point(x: x, y: y))), .set(id, .backgroundColor, .color(color)),
                    .insert(parent: .root, child: id, index: .max)]
        }
        layer(1, x: 80, y: 60, w: 160, h: 120, color: Color(red: 0.2, green: 0.4, blue: 0.7, alpha: 1))
        layer(2, x: 30, y: 40, w: 24, h: 24, color: Color(red: 0.9, green: 0.8, blue: 0.1, alpha: 1))   // the mover
        layer(3, x: 70, y: 50, w: 50, h: 40, color: Color(red: 1, green: 0.5, blue: 0.25, alpha: 0.8))
        layer(4, x: 110, y: 80, w: 40, h: 40, color: Color(red: 0.9, green: 0.9, blue: 0.9, alpha: 1))
        ops += [.set(LayerID(3), .compositingFilter, .string("multiplyBlendMode")),
                .set(LayerID(3), .cornerRadius, .number(10)), .set(LayerID(3), .cornerCurve, .string("continuous")),
                .set(LayerID(4), .compositingFilter, .string("differenceBlendMode"))]
        return ops
    }

    @Test("a blended layer over a moving one: damage-tracked frames equal full redraws")
    func blendedOverMoving() throws {
        let tracked = try DamagePixelTests.Side(buffers: 2, damage: true)
        let whole = try DamagePixelTests.Side(buffers: 1, damage: false)
        var serial: UInt32 = 0
        func commit(_ ops: [Operation]) {
            serial += 1
            tracked.h.commit(tracked.client, ops, serial: serial)
            whole.h.commit(whole.client, ops, serial: serial)
            #expect(tracked.answers.contains(.applied(serial: serial)), "\(tracked.answers)")
        }
        commit(setUp())
        var partial = 0
        for step in 0..<24 {
            var ops: [Operation] = [.settings(TransactionSettings(disableActions: true))]
            // The mover sweeps under both blended layers and out again.
            ops.append(.set(LayerID(2), .position, .point(Point(x: 30 + Double(step) * 5.5, y: 40 + Double(step % 5) * 9))))
            if step % 6 == 3 { ops.append(.set(LayerID(2), .backgroundColor, .color(Color(red: 0.1, green: 0.9, blue: 0.6, alpha: 0.7)))) }
            if step % 8 == 5 { ops.append(.set(LayerID(4), .position, .point(Point(x: 110 + Double(step), y: 80)))) }
            if step == 12 { ops.append(.set(LayerID(3), .compositingFilter, .string("screenBlendMode"))) }
            commit(ops)
            let a = try tracked.h.screenshot(tracked.client), b = try whole.h.screenshot(whole.client)
            let d = a.difference(from: b)
            #expect(d.worst <= 2, "step \(step): \(d.worst) apart at (\(d.x), \(d.y))")
            if d.worst > 2 { break }
            if tracked.compositor.backend.damageStatistics.lastFraction < 1 { partial += 1 }
        }
        #expect(partial >= 20, "only \(partial) of 24 frames were drawn in part")
        // The blend shows: over the background the screen layer's blue is 194 (screen), where
        // source-over would give 87.
        let shot = try whole.h.screenshot(whole.client)
        #expect(shot.pixel(x: 60, y: 50).b > 150, "\(shot.pixel(x: 60, y: 50))")
    }
}
