import Lamina
import Testing

/// Layout on the client, as Core Animation runs it: layers marked as needing layout are laid out
/// before the transaction commits, top-down, and what layout sets joins the same commit; the
/// declarative properties go on the wire for laminad to apply.
@Suite("layout on the client")
@MainActor
struct LayoutClientTests {
    /// Centres every sublayer of the layers it lays out, and records the order it was asked in.
    @MainActor final class Centring: LayerDelegate {
        var laidOut: [String] = []
        func layoutSublayers(of layer: Layer) {
            laidOut.append(layer.name ?? "?")
            for s in layer.sublayers {
                s.position = Point(x: layer.bounds.width / 2, y: layer.bounds.height / 2)
            }
        }
    }

    @Test func aBoundsChangeLaysOutBeforeTheCommitTopDownAndJoinsIt() throws {
        let server = try ScriptedLaminad()
        let (c, panel) = try server.connectWithOneLayer()
        defer { server.finish(c) }
        let delegate = Centring()
        let inner = Layer(), dot = Layer()
        panel.name = "panel"
        inner.name = "inner"
        panel.delegate = delegate
        inner.delegate = delegate
        panel.addSublayer(inner)
        inner.addSublayer(dot)
        Transaction.flush()
        _ = try server.nextCommit()
        delegate.laidOut = []

        Transaction.begin()
        Transaction.disableActions = true
        panel.bounds = Rect(x: 0, y: 0, width: 200, height: 100)
        inner.bounds = Rect(x: 0, y: 0, width: 40, height: 20)
        Transaction.commit()
        #expect(delegate.laidOut == ["panel", "inner"], "marked by their bounds sizes, laid out top-down")
        let ops = try server.nextCommit()
        #expect(ops.contains(.set(LayerID(1), .bounds, .rect(Rect(x: 0, y: 0, width: 200, height: 100)))))
        #expect(ops.contains(.set(LayerID(2), .position, .point(Point(x: 100, y: 50)))), "the layout's change joins the commit: \(ops)")
        #expect(ops.contains(.set(LayerID(3), .position, .point(Point(x: 20, y: 10)))))
        #expect(!panel.needsLayout && !inner.needsLayout)
        // A change that keeps the size marks nothing.
        panel.bounds = Rect(x: 5, y: 5, width: 200, height: 100)
        Transaction.flush()
        _ = try server.nextCommit()
        #expect(delegate.laidOut == ["panel", "inner"])
    }

    @Test func setNeedsLayoutAndLayoutIfNeeded() throws {
        let server = try ScriptedLaminad()
        let (c, panel) = try server.connectWithOneLayer()
        defer { server.finish(c) }
        let delegate = Centring()
        panel.delegate = delegate
        panel.bounds = Rect(x: 0, y: 0, width: 60, height: 60)
        let child = Layer()
        panel.addSublayer(child)
        Transaction.flush()
        _ = try server.nextCommit()
        delegate.laidOut = []

        #expect(!panel.needsLayout)
        panel.setNeedsLayout()
        #expect(panel.needsLayout)
        panel.layoutIfNeeded()
        #expect(!panel.needsLayout && delegate.laidOut.count == 1, "laid out at once")
        #expect(child.position == Point(x: 30, y: 30))
        Transaction.flush()
        #expect(delegate.laidOut.count == 1, "not again at the commit")
        #expect(panel.preferredFrameSize() == Size(width: 60, height: 60))
        _ = try server.nextCommit()
    }

    @Test func theDeclarativePropertiesGoOnTheWire() throws {
        let server = try ScriptedLaminad()
        let (c, layer) = try server.connectWithOneLayer()
        defer { server.finish(c) }
        layer.autoresizingMask = [.widthSizable, .maxYMargin]
        layer.addConstraint(LayoutConstraint(attribute: .midX))
        layer.addConstraint(LayoutConstraint(attribute: .minY, relativeTo: "title", sourceAttribute: .maxY, scale: 1, offset: 8))
        Transaction.flush()
        let ops = try server.nextCommit()
        #expect(ops.contains(.set(LayerID(1), .autoresizingMask, .number(34))), "\(ops)")
        #expect(ops.last == .set(LayerID(1), .constraints, .constraints([
            LayoutConstraint(attribute: .midX),
            LayoutConstraint(attribute: .minY, relativeTo: "title", sourceAttribute: .maxY, scale: 1, offset: 8),
        ])), "one value: the whole list as last set")
    }
}
