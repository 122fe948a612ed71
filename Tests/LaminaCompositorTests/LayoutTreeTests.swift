import Testing
import LaminaCore
import LaminaProtocol
@testable import LaminaCompositor

/// Layout in the server's model tree (ClientTreeLayout.swift), without EGL: a commit lays out
/// what it changed, a display resize lays out what follows the roots, errors refuse the commit.
@Suite("Layout in the model tree")
struct LayoutTreeTests {
    static func layer(_ id: UInt32, name: String, frame: Rect, in parent: LayerID = .root,
                      mask: AutoresizingMask = [], constraints: [LayoutConstraint] = []) -> [Operation] {
        var p = LayerProperties()
        p.frame = frame
        let l = LayerID(id)
        var ops: [Operation] = [.create(l), .set(l, .name, .string(name)), .set(l, .bounds, .rect(p.bounds)),
                                .set(l, .position, .point(p.position))]
        if !mask.isEmpty { ops.append(.set(l, .autoresizingMask, .number(Double(mask.rawValue)))) }
        if !constraints.isEmpty { ops.append(.set(l, .constraints, .constraints(constraints))) }
        ops.append(.insert(parent: parent, child: l, index: .max))
        return ops
    }

    static func frame(_ t: ClientTree, _ id: UInt32) -> Rect? { t[LayerID(id)]?.properties.frame }

    /// A panel with fixed margins, a corner badge and a centred title (by constraints) inside it.
    static func scene() -> [Operation] {
        layer(1, name: "panel", frame: Rect(x: 40, y: 40, width: 1200, height: 640), mask: [.widthSizable, .heightSizable])
            + layer(2, name: "corner", frame: Rect(x: 1160, y: 600, width: 100, height: 100), mask: [.minXMargin, .minYMargin])
            + layer(3, name: "title", frame: Rect(x: 0, y: 0, width: 200, height: 50), in: LayerID(1),
                    constraints: [LayoutConstraint(attribute: .midX), LayoutConstraint(attribute: .minY, offset: 10)])
            + layer(4, name: "badge", frame: Rect(x: 0, y: 0, width: 20, height: 20), in: LayerID(1), constraints: [
                LayoutConstraint(attribute: .minX, relativeTo: "title", sourceAttribute: .maxX, scale: 1, offset: 4),
                LayoutConstraint(attribute: .midY, relativeTo: "title", sourceAttribute: .midY, scale: 1, offset: 0),
            ])
    }

    @Test func aCommitSolvesConstraintsAndLeavesPlacedFramesAlone() throws {
        var t = ClientTree(displayWidth: 1280, displayHeight: 720)
        let result = try t.apply(Self.scene())
        // The panel and corner keep the frames the commit gave them; the title is centred in
        // the panel's bounds, the badge follows it.
        #expect(Self.frame(t, 1) == Rect(x: 40, y: 40, width: 1200, height: 640))
        #expect(Self.frame(t, 2) == Rect(x: 1160, y: 600, width: 100, height: 100))
        #expect(Self.frame(t, 3) == Rect(x: 500, y: 10, width: 200, height: 50))
        #expect(Self.frame(t, 4) == Rect(x: 704, y: 25, width: 20, height: 20))
        #expect(result.changes.contains(.set(LayerID(3), .position, old: .point(Point(x: 100, y: 25)))))
    }

    @Test func aDisplayResizeFollowsMasksAndConstraints() throws {
        var t = ClientTree(displayWidth: 1280, displayHeight: 720)
        try t.apply(Self.scene())
        let result = t.fitRoot(width: 800, height: 600)
        #expect(Self.frame(t, 1) == Rect(x: 40, y: 40, width: 720, height: 520), "margins kept, size stretched")
        #expect(Self.frame(t, 2) == Rect(x: 680, y: 480, width: 100, height: 100), "pinned to the bottom right")
        #expect(Self.frame(t, 3) == Rect(x: 260, y: 10, width: 200, height: 50), "centred in the resized panel")
        #expect(Self.frame(t, 4) == Rect(x: 464, y: 25, width: 20, height: 20))
        // What moved is reported as changes with the values before, for the actions.
        #expect(result.changes.contains(.set(LayerID(1), .bounds, old: .rect(Rect(x: 0, y: 0, width: 1200, height: 640)))))
        #expect(result.replaced[LayerID(3)]?.properties.frame == Rect(x: 500, y: 10, width: 200, height: 50))
        #expect(t.fitRoot(width: 800, height: 600).changes.isEmpty, "the same size lays nothing out")
    }

    @Test func aBoundsChangeInACommitAutoresizesTheSublayersItHad() throws {
        var t = ClientTree(displayWidth: 1280, displayHeight: 720)
        try t.apply(Self.layer(1, name: "box", frame: Rect(x: 0, y: 0, width: 100, height: 100))
            + Self.layer(2, name: "fill", frame: Rect(x: 10, y: 10, width: 80, height: 80), in: LayerID(1), mask: [.widthSizable, .heightSizable]))
        try t.apply([.set(LayerID(1), .bounds, .rect(Rect(x: 0, y: 0, width: 200, height: 150)))])
        #expect(Self.frame(t, 2) == Rect(x: 10, y: 10, width: 180, height: 130))
        // Set in the same commit as the superlayer's bounds, a frame stands.
        try t.apply([.set(LayerID(1), .bounds, .rect(Rect(x: 0, y: 0, width: 300, height: 300))),
                     .set(LayerID(2), .position, .point(Point(x: 50, y: 50)))])
        #expect(Self.frame(t, 2) == Rect(x: -40, y: -15, width: 180, height: 130))
    }

    @Test func aCycleRefusesTheCommitNamingLayerAndConstraint() throws {
        var t = ClientTree(displayWidth: 1280, displayHeight: 720)
        try t.apply(Self.layer(1, name: "a", frame: Rect(x: 0, y: 0, width: 10, height: 10)))
        let before = t.layers
        let ops = Self.layer(2, name: "b", frame: .zero, constraints: [LayoutConstraint(attribute: .minX, relativeTo: "a")])
            + [.set(LayerID(1), .constraints, .constraints([LayoutConstraint(attribute: .minX, relativeTo: "b")]))]
        do {
            try t.apply(ops)
            Issue.record("a cycle was accepted")
        } catch {
            #expect(error.code == .cycle)
            #expect(error.message.contains("layer #1 'a': constraint 0 (minX = b.minX)") || error.message.contains("layer #2 'b': constraint 0"),
                    "\(error.message)")
            #expect(error.message.contains("cycle"))
        }
        #expect(t.layers == before, "the refused commit changed nothing")
    }

    @Test func anUnknownNameRefusesTheCommit() throws {
        var t = ClientTree(displayWidth: 1280, displayHeight: 720)
        do {
            try t.apply(Self.layer(1, name: "a", frame: .zero, constraints: [LayoutConstraint(attribute: .minX, relativeTo: "nobody")]))
            Issue.record("an unknown name was accepted")
        } catch {
            #expect(error.code == .invalidProperty)
            #expect(error.message.contains("layer #1 'a': constraint 0") && error.message.contains("'nobody'"), "\(error.message)")
        }
    }

    @Test func layoutWorkIsBounded() throws {
        var t = ClientTree(displayWidth: 1280, displayHeight: 720)
        var limits = ClientLimits()
        limits.maxLayoutConstraints = 3
        let c = [LayoutConstraint(attribute: .midX), LayoutConstraint(attribute: .midY)]
        do {
            try t.apply(Self.layer(1, name: "a", frame: .zero, constraints: c) + Self.layer(2, name: "b", frame: .zero, constraints: c), limits: limits)
            Issue.record("over the budget")
        } catch {
            #expect(error.code == .limitExceeded && error.message.contains("max_layout_constraints"), "\(error.message)")
        }
    }
}
