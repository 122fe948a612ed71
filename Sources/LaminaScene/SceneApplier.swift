import Lamina
import LaminaCore

/// Makes a layer tree look like a scene, declaratively: layers are matched by name among their
/// siblings and updated in place (only the properties that differ are set, so with actions the
/// changes animate), missing ones are created, and ones that are gone are removed.
@MainActor
public enum SceneApplier {
    /// What an apply did.
    public struct Summary: Sendable, Equatable {
        public var created = 0
        public var updated = 0
        public var removed = 0
        public var propertiesSet = 0
        public var animationsAdded = 0
    }

    /// Applies `scene` under `root` (a connection's root layer) in the current transaction.
    @discardableResult
    public static func apply(_ scene: Scene, to root: Layer) -> Summary {
        var summary = Summary()
        update(root, to: scene.root, isRoot: true, &summary)
        return summary
    }

    private static func update(_ layer: Layer, to node: SceneLayer, isRoot: Bool, _ summary: inout Summary) {
        var target = node.resolvedProperties
        if isRoot {
            // The root's geometry belongs to the display, unless the file says otherwise.
            if node.properties[.bounds] == nil { target.bounds = layer.bounds }
            if node.properties[.position] == nil { target.position = layer.position }
        }
        var changed = 0
        for key in PropertyKey.allCases where layer.value(forKey: key) != target[key] {
            layer.setValue(target[key], forKey: key)
            changed += 1
        }
        summary.propertiesSet += changed
        if changed > 0 { summary.updated += 1 }
        // Animations in the file are (re)started on every apply, after the property changes,
        // so an explicit animation under a property's key replaces its implicit one.
        for a in node.animations {
            layer.add(a.animation, forKey: a.key)
            summary.animationsAdded += 1
        }

        // Match sublayers by name; unnamed layers are never matched, so they are replaced.
        var existing: [String: Layer] = [:]
        for s in layer.sublayers { if let n = s.name { existing[n] = existing[n] ?? s } }
        var wanted: [Layer] = []
        for child in node.sublayers {
            let l: Layer
            if let n = child.name, let hit = existing[n], hit.kind == child.kind {
                existing[n] = nil
                l = hit
            } else {
                l = Layer.make(kind: child.kind)
                summary.created += 1
            }
            update(l, to: child, isRoot: false, &summary)
            wanted.append(l)
        }
        for s in layer.sublayers where !wanted.contains(where: { $0 === s }) {
            s.removeFromSuperlayer()
            summary.removed += 1
        }
        for (i, l) in wanted.enumerated() where i >= layer.sublayers.count || layer.sublayers[i] !== l {
            layer.insertSublayer(l, at: i)
        }
    }
}
