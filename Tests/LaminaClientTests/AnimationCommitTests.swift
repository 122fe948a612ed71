import Lamina
import Testing

/// Explicit animations, action dictionaries and a layer delegate's actions, as operations.
@Suite("commits from animations and actions")
@MainActor
struct AnimationCommitTests {
    static var fade: BasicAnimation {
        var fade = BasicAnimation(keyPath: "opacity", fromValue: .number(1), toValue: .number(0))
        fade.duration = 3
        return fade
    }

    /// An animation added before the layer is on a connection goes with its create, tagged
    /// for its events; later ones, removals and actions follow in order.
    @Test func animationsAndActionsBecomeOperations() throws {
        let server = try ScriptedLaminad()
        let c = try server.connect()
        defer { server.finish(c) }
        let layer = Layer()
        layer.add(.basic(Self.fade), forKey: "fade")
        #expect(layer.animationKeys() == ["fade"] && layer.animation(forKey: "fade") == .basic(Self.fade))
        c.rootLayer.addSublayer(layer)
        Transaction.flush()
        #expect(try server.nextCommit() == [
            .create(LayerID(1)),
            .addAnimation(LayerID(1), key: "fade", tag: 1, .basic(Self.fade)),
            .insert(parent: .root, child: LayerID(1), index: 0),
        ])

        layer.add(.basic(Self.fade), forKey: nil)
        layer.removeAnimation(forKey: "fade")
        layer.removeAnimation(forKey: "never added")
        layer.actions = ["opacity": .noAnimation, "position": .inherit]
        layer.styleActions = ["bounds": .animation(.basic(Self.fade))]
        Transaction.flush()
        #expect(try server.nextCommit() == [
            .addAnimation(LayerID(1), key: "", tag: 2, .basic(Self.fade)),
            .removeAnimation(LayerID(1), key: "fade"),
            .setAction(LayerID(1), dictionary: .actions, key: "opacity", .noAnimation),
            .setAction(LayerID(1), dictionary: .style, key: "bounds", .animation(.basic(Self.fade))),
        ])
        #expect(layer.animationKeys().isEmpty && layer.actions == ["opacity": .noAnimation], "unkeyed animations have no key; .inherit is no entry")

        layer.actions = [:]
        layer.removeAllAnimations()
        Transaction.flush()
        #expect(try server.nextCommit() == [
            .setAction(LayerID(1), dictionary: .actions, key: "opacity", .inherit),
            .removeAllAnimations(LayerID(1)),
        ])
    }

    /// A delegate that answers the action search: the change goes with actions disabled (laminad
    /// must not search again), then the delegate's animation, its key path defaulted to the key.
    @Test func aDelegatesActionReplacesTheSearch() throws {
        @MainActor final class Fades: LayerDelegate {
            var asked: [String] = []
            func action(for layer: Layer, forKey key: String) -> Action? {
                asked.append(key)
                return key == "opacity" ? .animation(.basic(BasicAnimation(keyPath: "", toValue: .number(0.5)))) : nil
            }
        }
        let server = try ScriptedLaminad()
        let (c, layer) = try server.connectWithOneLayer()
        defer { server.finish(c) }
        let delegate = Fades()
        layer.delegate = delegate
        layer.opacity = 0.5
        layer.position = Point(x: 3, y: 4)
        layer.name = "not animatable"
        Transaction.flush()
        #expect(delegate.asked == ["opacity", "position"], "asked for animatable keys only")
        #expect(try server.nextCommit() == [
            .settings(TransactionSettings(disableActions: true)),
            .set(LayerID(1), .opacity, .number(0.5)),
            .settings(.default),
            .addAnimation(LayerID(1), key: "opacity", tag: 1, .basic(BasicAnimation(keyPath: "opacity", toValue: .number(0.5)))),
            .set(LayerID(1), .position, .point(Point(x: 3, y: 4))),
            .set(LayerID(1), .name, .string("not animatable")),
        ])
    }
}
