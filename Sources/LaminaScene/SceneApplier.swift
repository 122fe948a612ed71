import Lamina
import LaminaCore
import LaminaProtocol

/// Makes a layer tree look like a scene, declaratively: layers are matched by name among their
/// siblings and updated in place (only the properties that differ are set, so with actions the
/// changes animate), missing ones are created, and ones that are gone are removed.
@MainActor
public enum SceneApplier {
    /// What an apply did.
    public struct Summary: Sendable, Equatable {
        /// Layers made by this apply (a created layer is not also counted as updated).
        public var created = 0
        /// Existing layers with at least one property changed.
        public var updated = 0
        public var removed = 0
        public var propertiesSet = 0
        public var animationsAdded = 0
    }

    /// Applies `scene` under `root` (a connection's root layer) in the current transaction.
    @discardableResult
    ///
    /// `images` holds an `Image` for each of the scene's `contentsFiles` (loaded on the root's
    /// connection); a layer whose file is missing from it keeps the contents it has.
    ///
    /// `mediaTime` is the moment of the apply (`Connection.currentMediaTime`): a non-zero
    /// animation `beginTime` in the file counts from it, as `laminactl eval` counts from 0,
    /// so a file means the same live and offline. (0 is "when added", as in Core Animation.)
    ///
    /// `rootIsNew`: the root appears for the first time (a new session, `!Connection.isResumedSession`).
    /// As Core Animation does not animate a layer's first appearance, the root's values are then
    /// set without actions, like those of the layers this apply creates; later applies animate
    /// the differences.
    ///
    /// `fonts` maps each of the scene's `fontFiles` to the family laminad registered it as
    /// (`Connection.registerFont`); a text layer naming a file takes that family as its `font`.
    ///
    /// `videos` holds a `VideoSource` for each layer with a video, by the layer's JSON path
    /// (`SceneLayer.path`); a layer whose video is missing from it keeps the contents it has.
    public static func apply(_ scene: Scene, to root: Layer, images: [String: Image] = [:], fonts: [String: String] = [:],
                             videos: [String: VideoSource] = [:], mediaTime: Double = 0, rootIsNew: Bool = false) -> Summary {
        var summary = Summary()
        let context = Context(images: images, fonts: fonts, videos: videos, mediaTime: mediaTime)
        update(root, to: scene.root, isRoot: true, isNew: rootIsNew, context, chain: [], &summary)
        return summary
    }

    /// What every layer's update reads.
    private struct Context {
        var images: [String: Image]
        var fonts: [String: String]
        var videos: [String: VideoSource]
        var mediaTime: Double
    }

    private static func update(_ layer: Layer, to node: SceneLayer, isRoot: Bool, isNew: Bool, _ context: Context,
                               chain parentChain: [MediaTiming], _ summary: inout Summary) {
        let images = context.images, mediaTime = context.mediaTime
        var target = node.resolvedProperties
        if let file = node.fontFile, let family = context.fonts[file] { target.font = family }
        if !node.cellContentsFiles.isEmpty {
            let (cells, used) = node.emitterCells(target.emitter.emitterCells, images: images)
            target.emitter.emitterCells = cells
            (layer as? EmitterLayer)?.keep(used)
        }
        if isRoot {
            // The root's geometry belongs to the display, unless the file says otherwise.
            if node.properties[.bounds] == nil { target.bounds = layer.bounds }
            if node.properties[.position] == nil { target.position = layer.position }
        }
        var changed = 0
        // A new layer's first values must not animate. Layers made here are not attached yet
        // (their values go with their creation); the root of a new session already is.
        let quiet = isRoot && isNew
        if quiet {
            Transaction.begin()
            Transaction.disableActions = true
        }
        // Actions first: they are in force for this apply's changes, as laminad looks them up
        // when a change arrives.
        if layer.actions != node.actions {
            layer.actions = node.actions
            changed += 1
        }
        // `mask` is a layer, set below from the file's mask object.
        for key in PropertyKey.allCases where key != .mask && layer.value(forKey: key) != target[key] {
            // A file's contents are an image made for this apply (below), not a number.
            if key == .contents, node.contentsFile != nil || node.videoFile != nil { continue }
            // An `"app"` layer's window is laminactl's launcher's to show (its number is laminad's).
            if node.app != nil, key == .appSurface || key == .contents { continue }
            layer.setValue(target[key], forKey: key)
            changed += 1
        }
        if let file = node.contentsFile, let image = images[file], layer.contents !== image {
            layer.contents = image
            changed += 1
        }
        if node.videoFile != nil, let video = context.videos[node.path], layer.video !== video {
            layer.video = video
            changed += 1
        }
        if quiet { Transaction.commit() }
        summary.propertiesSet += changed
        if changed > 0, !isNew || isRoot { summary.updated += 1 }
        // Animations in the file are (re)started on every apply, after the property changes,
        // so an explicit animation under a property's key replaces its implicit one.
        // The layer's timing chain once the file's values are in (the scene's, as eval uses):
        // a file's beginTime b is b after the apply in the layer's time, so it moves by how far
        // the layer's clock is from where it would be at media time 0.
        let chain = parentChain + [MediaTiming(beginTime: target.beginTime, speed: target.speed, timeOffset: target.timeOffset)]
        let shift = LayerTime.localTime(fromMedia: mediaTime, chain: chain) - LayerTime.localTime(fromMedia: 0, chain: chain)
        for a in node.animations {
            var animation = a.animation
            if animation.timing.beginTime != 0, shift.isFinite { animation.timing.beginTime += shift }
            layer.add(animation, forKey: a.key)
            summary.animationsAdded += 1
        }

        // The mask: updated in place when the kind matches, else made anew.
        if let m = node.mask {
            let maskLayer: Layer
            let isNewMask: Bool
            if let current = layer.mask, current.kind == m.kind {
                maskLayer = current
                isNewMask = false
            } else {
                maskLayer = Layer.make(kind: m.kind)
                isNewMask = true
                summary.created += 1
            }
            // A mask's time is its own (it has no superlayer).
            update(maskLayer, to: m, isRoot: false, isNew: isNewMask, context, chain: [], &summary)
            if layer.mask !== maskLayer { layer.mask = maskLayer }
        } else if layer.mask != nil {
            layer.mask = nil
            summary.removed += 1
        }

        // Match sublayers by name; unnamed layers are never matched, so they are replaced.
        var existing: [String: Layer] = [:]
        for s in layer.sublayers { if let n = s.name { existing[n] = existing[n] ?? s } }
        var wanted: [Layer] = []
        for child in node.sublayers {
            let l: Layer
            let isNewChild: Bool
            if let n = child.name, let hit = existing[n], hit.kind == child.kind {
                existing[n] = nil
                l = hit
                isNewChild = false
            } else {
                l = Layer.make(kind: child.kind)
                isNewChild = true
                summary.created += 1
            }
            update(l, to: child, isRoot: false, isNew: isNewChild, context, chain: chain, &summary)
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
