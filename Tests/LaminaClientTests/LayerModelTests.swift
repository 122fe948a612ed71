import Lamina
import Testing

/// The layer model on no connection at all: the tree edits and derived geometry a client
/// relies on, as `CALayer` defines them.
@Suite("layer model")
@MainActor
struct LayerModelTests {
    static func named(_ name: String) -> Layer {
        let layer = Layer()
        layer.name = name
        return layer
    }

    static func names(_ layer: Layer) -> [String] { layer.sublayers.map { $0.name ?? "?" } }

    @Test func sublayerEditsFollowCALayer() {
        let root = Layer()
        let (a, b, c, d) = (Self.named("a"), Self.named("b"), Self.named("c"), Self.named("d"))
        root.addSublayer(a)
        root.insertSublayer(b, at: 99)
        root.insertSublayer(c, at: -5)
        #expect(Self.names(root) == ["c", "a", "b"], "indices are clamped")
        root.insertSublayer(c, at: 3)
        #expect(Self.names(root) == ["a", "b", "c"], "moving within the same superlayer counts without the layer")
        root.insertSublayer(c, below: a)
        #expect(Self.names(root) == ["c", "a", "b"])
        root.insertSublayer(c, above: b)
        #expect(Self.names(root) == ["a", "b", "c"])
        root.replaceSublayer(b, with: d)
        #expect(Self.names(root) == ["a", "d", "c"] && b.superlayer == nil)
        a.addSublayer(c)
        #expect(Self.names(root) == ["a", "d"] && c.superlayer === a, "adding elsewhere leaves the old superlayer")
        #expect(root.sublayer(named: "c") === c && root.sublayer(named: "b") == nil)
        root.sublayers = [d]
        #expect(Self.names(root) == ["d"] && a.superlayer == nil)
    }

    @Test func frameIsDerivedFromPositionAnchorAndBounds() {
        let layer = Layer()
        layer.frame = Rect(x: 10, y: 20, width: 100, height: 50)
        #expect(layer.bounds == Rect(x: 0, y: 0, width: 100, height: 50) && layer.position == Point(x: 60, y: 45))
        layer.anchorPoint = Point(x: 0, y: 0)
        #expect(layer.frame == Rect(x: 60, y: 45, width: 100, height: 50), "the anchor moves the frame, not the position")
        layer.frame = Rect(x: 0, y: 0, width: -5, height: 10)
        #expect(layer.bounds.size == Size(width: 0, height: 10) && layer.position == Point(x: 0, y: 0), "a negative size is none")
    }

    @Test func valuesKeepWhatWasSetWithCoreAnimationsDefaults() {
        let layer = Layer()
        #expect(layer.opacity == 1 && layer.anchorPoint == Point(x: 0.5, y: 0.5) && !layer.isHidden && layer.backgroundColor == nil)
        layer.backgroundColor = .red
        layer.backgroundColor = nil
        #expect(layer.value(forKey: .backgroundColor) == .color(.clear), "no colour is clear")
        layer.setValue(.number(0.25), forKey: .opacity)
        #expect(layer.opacity == 0.25)
        #expect(Layer.make(kind: .text) is TextLayer && Layer.make(kind: .shape).kind == .shape)
    }
}
