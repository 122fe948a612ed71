import LaminaCore
import LaminaProtocol

// One client's model tree. Applying a commit to it is in ClientTreeCommit.swift (the commit's
// life: begin, continue, finish, roll back) with its operations in ClientTreeOperations.swift
// (layers, masks, actions) and ClientTreeImages.swift (images and videos); TreeShape.swift keeps
// its structure bounded, and ClientLimits.swift holds the budgets a commit is checked against.

/// The number laminad gives a connection.
public struct ClientID: RawRepresentable, Hashable, Sendable, Comparable, CustomStringConvertible {
    public var rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    public static func < (a: ClientID, b: ClientID) -> Bool { a.rawValue < b.rawValue }
    public var description: String { "client \(rawValue)" }
}

/// One layer in the server's model tree.
public struct ServerLayer: Sendable, Equatable {
    public var properties = LayerProperties()
    public var superlayer: LayerID?
    public var sublayers = SublayerList()
    /// `CALayer.actions`: entries are `.noAnimation` (a null action) or an animation.
    public var actions: [String: Action] = [:]
    /// `style["actions"]`, searched after `actions`.
    public var styleActions: [String: Action] = [:]
    /// The layer whose `mask` this layer is, if any (a mask has no superlayer).
    public var maskOf: LayerID?
}

/// One client's layers: the part of the model tree it owns, rooted at its root layer (`LayerID.root`).
///
/// Layer numbers are the client's own, so no operation can reach another client's layers.
public struct ClientTree: Sendable {
    public internal(set) var layers: [LayerID: ServerLayer]
    /// The client's images, by its image number (ops create-image, update-image, destroy-image).
    public internal(set) var images: [UInt32: ImageSource] = [:]
    /// The client's videos, by image number (ops create-video, control-video; destroy-image
    /// ends one). Their numbers are taken from the same space as the images'.
    public internal(set) var videos: [UInt32: VideoSurface] = [:]
    /// The client's images made from encoded files (op create-encoded-image, protocol 1.7), by
    /// image number: an SVG has no entry in `images` (it is drawn at the scale it is shown); a
    /// GIF or WebP has, holding its current frame.
    public internal(set) var encodedImages: [UInt32: EncodedImage] = [:]
    /// Decodes encoded images (set by the model when the session is attached); nil refuses them.
    public var imageDecoder: (any EncodedImageDecoding)?
    /// Images made by an earlier client of a resumed session (`adoptImages`).
    var inheritedImages: Set<UInt32> = []
    /// Videos made by an earlier client of a resumed session: stopped once no layer shows them.
    var inheritedVideos: Set<UInt32> = []
    /// Whose texture bytes this tree's images count towards (set when the session is attached).
    public var imageOwner: ImageSource.Owner = .server
    /// Tiled layers' tiles (ClientTreeTiles.swift), and a count of the frames that looked at
    /// them and the commits that supplied some (their stamps, for least-recently-seen eviction).
    public internal(set) var tiles = TileCache()
    var tileFrame: UInt64 = 0

    /// A tree holding only the root layer, sized to the display.
    public init(displayWidth: Double, displayHeight: Double) {
        var root = ServerLayer()
        root.properties.fitRoot(displayWidth: displayWidth, displayHeight: displayHeight)
        layers = [.root: root]
    }

    public subscript(id: LayerID) -> ServerLayer? { layers[id] }

    /// Sizes the root layer to a display of this size (`LayerProperties.fitRoot`), at once, and
    /// lays out what follows from the new size (autoresizing and constraints, ClientTreeLayout.swift).
    /// Returns the layout's changes with the layers they replaced, for the compositor to animate
    /// by the layers' actions; empty when nothing moved, or when the layout would exceed its
    /// budget (then only the root follows).
    @discardableResult
    mutating func fitRoot(width: Double, height: Double, limits: ClientLimits = ClientLimits()) -> CommitResult {
        guard let old = layers[.root]?.properties.bounds else { return CommitResult() }
        layers[.root]!.properties.fitRoot(displayWidth: width, displayHeight: height)
        guard layers[.root]!.properties.bounds != old else { return CommitResult() }
        var result = CommitResult()
        var journal = Journal()
        do throws(LayoutFailure) {
            result.visibleChange = try layOut(LayoutRequest(resized: .root, from: old), limits: limits,
                                              journal: &journal, changes: &result.changes)
        } catch {
            for (id, layer) in journal.saved { layers[id] = layer }
            return CommitResult()
        }
        result.replaced.saved = journal.saved
        return result
    }

    /// Room for `count` layers in all, so a big commit's creates do not regrow the table in
    /// one long step.
    mutating func reserveLayers(_ count: Int) { layers.reserveCapacity(count) }

    /// Operations that rebuild this tree from nothing (the root exists already): creates,
    /// property sets that differ from the defaults, then inserts. Sent to a client that resumes
    /// a kept session.
    public func snapshot() -> [Operation] {
        var ops: [Operation] = []
        let ids = layers.keys.sorted()
        for id in ids where id != .root { ops.append(.create(id, kind: layers[id]!.properties.kind)) }
        for id in ids {
            let p = layers[id]!.properties
            for key in p.changedKeys(from: LayerProperties(kind: p.kind)) { ops.append(.set(id, key, p[key])) }
        }
        for id in ids {
            for (n, child) in layers[id]!.sublayers.enumerated() {
                ops.append(.insert(parent: id, child: child, index: UInt32(n)))
            }
            for (key, action) in layers[id]!.actions.sorted(by: { $0.key < $1.key }) {
                ops.append(.setAction(id, dictionary: .actions, key: key, action))
            }
            for (key, action) in layers[id]!.styleActions.sorted(by: { $0.key < $1.key }) {
                ops.append(.setAction(id, dictionary: .style, key: key, action))
            }
        }
        return ops
    }
}
