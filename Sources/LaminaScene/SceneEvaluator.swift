import LaminaCore
import LaminaProtocol

/// Evaluates a scene's animations offline, without a daemon: the presentation values each layer
/// would show at given times (`laminactl eval`). Time 0 is the moment the scene is applied: an
/// animation's beginTime of 0 means then, as Core Animation resolves it when the animation is added.
public struct SceneEvaluator {
    /// One layer of the flattened scene.
    struct Node {
        var name: String
        var model: LayerProperties
        /// Layer timings from the scene root down to this layer.
        var chain: [MediaTiming]
        var animations: LayerAnimations
    }

    private var nodes: [Node] = []

    /// laminad's default display (`laminad --size`), which `laminactl eval --size` overrides.
    public static let defaultDisplaySize = Size(width: 1280, height: 720)

    /// Prepares every layer's animations. Throws the first animation the engine refuses, with
    /// the JSON path of the layer.
    ///
    /// The root is placed as laminad places a client's root on a display of `displaySize`
    /// (`LayerProperties.fitRoot`), unless the file gives its bounds or position.
    public init(_ scene: Scene, displaySize: Size = SceneEvaluator.defaultDisplaySize) throws(SceneError) {
        try flatten(scene.root, name: "root", chain: [], displaySize: displaySize)
    }

    private mutating func flatten(_ layer: SceneLayer, name: String, chain: [MediaTiming], displaySize: Size? = nil) throws(SceneError) {
        var model = layer.resolvedProperties
        if let displaySize {
            var fitted = LayerProperties()
            fitted.fitRoot(displayWidth: displaySize.width, displayHeight: displaySize.height)
            if layer.properties[.bounds] == nil { model.bounds = fitted.bounds }
            if layer.properties[.position] == nil { model.position = fitted.position }
        }
        let chain = chain + [MediaTiming(beginTime: model.beginTime, speed: model.speed, timeOffset: model.timeOffset)]
        var list = LayerAnimations()
        var events: [AnimationEvent] = []
        let addedAt = LayerTime.localTime(fromMedia: 0, chain: chain)
        for a in layer.animations {
            do throws(AnimationError) {
                try list.add(a.animation, forKey: a.key, layerTime: addedAt, previous: model, events: &events)
            } catch {
                throw SceneError(path: "\(layer.path).animations.\(a.key)", message: error.description)
            }
        }
        nodes.append(Node(name: name, model: model, chain: chain, animations: list))
        for (i, s) in layer.sublayers.enumerated() {
            try flatten(s, name: s.name ?? "\(name)/\(i)", chain: chain)
        }
    }

    /// The layer names in the order they are reported (unnamed layers are `parent/index`).
    public var layerNames: [String] { nodes.map(\.name) }

    /// The presentation values of the layer named `layer` at scene time `t`.
    public func presentation(of layer: String, at t: Double) -> LayerProperties? {
        nodes.first { $0.name == layer }.map { Self.present($0, at: t) }
    }

    /// Evaluates from a fresh copy of the node's animations, so times need not increase.
    private static func present(_ node: Node, at t: Double) -> LayerProperties {
        var anims = node.animations
        var events: [AnimationEvent] = []
        return anims.evaluate(model: node.model, time: LayerTime.localTime(fromMedia: t, chain: node.chain), events: &events).properties
    }

    /// Presentation values at each time, as JSON: `[{"time": t, "layers": {name: {key: value}}}]`.
    /// With `layer`, only that layer; with `keyPath`, only that value (any animatable key path,
    /// such as `position.x` or `transform.rotation.z`); otherwise every property that differs
    /// from its default, or is animated.
    public func evaluate(at times: [Double], layer: String? = nil, keyPath: String? = nil) throws(SceneError) -> String {
        if let layer, !nodes.contains(where: { $0.name == layer }) {
            throw SceneError(path: "--layer", message: "no layer named '\(layer)' (layers: \(layerNames.joined(separator: ", ")))")
        }
        var parsedKey: AnimationKeyPath?
        if let keyPath {
            do { parsedKey = try AnimationKeyPath.parse(keyPath) } catch {
                throw SceneError(path: "--key", message: error.description)
            }
        }
        var j = JSONWriter(exactColors: true)
        j.beginArray()
        for t in times {
            j.beginObject()
            j.key("time")
            j.number(t)
            j.key("layers")
            j.beginObject()
            for node in nodes where layer == nil || node.name == layer {
                let p = Self.present(node, at: t)
                j.key(node.name)
                j.beginObject()
                if let parsedKey {
                    j.key(keyPath!)
                    j.value(parsedKey.value(in: p))
                } else {
                    let animated = Set(node.animations.entries.flatMap { Self.keys(of: $0.animation) })
                    for key in PropertyKey.allCases where key != .name && (p[key] != LayerProperties.defaults[key] || animated.contains(key)) {
                        j.key(key.name)
                        j.value(p[key])
                    }
                }
                j.endObject()
            }
            j.endObject()
            j.endObject()
        }
        j.endArray()
        return j.text
    }

    static func keys(of animation: Animation) -> [PropertyKey] {
        func key(_ path: String) -> [PropertyKey] { (try? AnimationKeyPath.parse(path)).map { [$0.property] } ?? [] }
        switch animation {
        case .basic(let a): return key(a.keyPath)
        case .keyframe(let a): return key(a.keyPath)
        case .spring(let a): return key(a.keyPath)
        case .group(let g): return g.animations.flatMap(keys(of:))
        case .transition: return []
        }
    }
}

