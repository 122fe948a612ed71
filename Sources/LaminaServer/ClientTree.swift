import LaminaCore
import LaminaProtocol

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

/// What a commit changed, in the order it happened: what the compositor turns into implicit
/// animations, explicit animation changes and events.
public enum TreeChange: Sendable, Equatable {
    case created(LayerID)
    /// A property changed value; `old` is its value before this change.
    case set(LayerID, PropertyKey, old: PropertyValue)
    case inserted(LayerID, into: LayerID)
    case removed(LayerID, from: LayerID, at: Int)
    /// The layer is gone; its value just before, for animations that outlive it.
    // Boxed: a layer is over 1 KB, and every change in a commit would take that much.
    indirect case destroyed(LayerID, ServerLayer)
    /// An animation operation that passed validation: add, remove, remove all.
    case animation(Operation)
    /// New transaction settings for the changes after this one.
    case settings(TransactionSettings)
}

/// The result of applying a commit.
public struct CommitResult: Sendable, Equatable {
    /// Everything that changed, in order.
    public var changes: [TreeChange] = []
    /// Whether pixels may have changed (something set, moved, shown or hidden).
    public var visibleChange = false
    /// Videos made, controlled or destroyed, in order (protocol 1.6): the compositor starts,
    /// steers and stops their decoders once the commit stands.
    public var videoChanges: [VideoChange] = []
    /// The layers the commit changed, as they were before it: the pre-commit values implicit
    /// animations start from (their presentation before the change).
    public var replaced = ReplacedLayers()
}

/// What a commit replaced: each existing layer it changed, as it was before the commit.
///
/// Costs nothing extra: a commit applied in place hands over its undo journal's copies; a
/// commit applied in steps to a copy of the tree keeps the tree's layers from before it began,
/// which that tree shares (no layer is copied for it).
public struct ReplacedLayers: Sendable, Equatable {
    /// A commit applied in place: every existing layer it touched, as it was before.
    var saved: [LayerID: ServerLayer] = [:]
    /// A commit applied in steps to a copy: every layer of the tree before the commit.
    var original: [LayerID: ServerLayer]?

    public init() {}

    /// Layer `id` as it was before the commit: nil when it did not exist then; for a layer the
    /// commit did not change, nil or its unchanged value.
    public subscript(id: LayerID) -> ServerLayer? {
        if let original { return original[id] }
        return saved[id]
    }
}

/// A commit part way through `ClientTree.continueCommit`.
public struct CommitInProgress {
    /// Operations supplied and not yet applied; `operations[0]` is operation `firstIndex`.
    var operations: [Operation]
    var firstIndex = 0
    /// How many operations the commit has in all.
    public let total: Int
    let attachments: [MemoryAttachment]
    let limits: ClientLimits
    /// Streamed commits learn how many images they create only at the end.
    let checksDescriptorsAtEnd: Bool
    var journal = ClientTree.Journal()
    var result = CommitResult()
    /// The index of the next operation to apply.
    public internal(set) var next = 0
    /// Every operation has been applied (`finishCommit` completes it).
    public var isApplied: Bool { next >= total }
    /// Operations supplied and still to apply.
    public var supplied: Int { firstIndex + operations.count - next }

    init(operations: [Operation], total: Int, attachments: [MemoryAttachment], limits: ClientLimits, checksDescriptorsAtEnd: Bool) {
        self.operations = operations
        self.total = total
        self.attachments = attachments
        self.limits = limits
        self.checksDescriptorsAtEnd = checksDescriptorsAtEnd
    }

    /// More of a streamed commit's operations, in order; the applied ones are let go.
    public mutating func supply(_ ops: [Operation]) {
        operations.removeFirst(next - firstIndex)
        firstIndex = next
        operations += ops
    }
}

/// Why a commit was refused: which operation, and what was wrong with it.
public struct CommitRejection: Error, Equatable, Sendable, CustomStringConvertible {
    public var code: ErrorCode
    public var operationIndex: Int
    public var message: String
    public var description: String { "operation \(operationIndex): \(message)" }
}

/// Limits that keep one client from exhausting the server.
public struct ClientLimits: Sendable, Equatable {
    /// Layers one client may hold, its root included.
    public var maxLayers: Int
    /// Operations in one commit.
    public var maxOperationsPerCommit: Int
    /// Images one client may hold at once.
    public var maxImages: Int
    /// The longest chain of superlayer (or mask-of) links in a client's tree: the root's
    /// sublayers are at depth 1. The server walks trees recursively on the main thread's stack,
    /// so depth is a budget like the others (docs/protocol.md, "Budgets").
    public var maxDepth: Int
    public static let defaultMaxDepth = 64
    /// Layers all kept sessions may hold together (those that outlive their clients), and how
    /// many kept sessions there may be in all and per user.
    public var maxKeptLayers = 200_000
    public var maxKeptSessions = 64
    public var maxKeptSessionsPerUser = 16
    /// Layers all sessions may hold together, connected or kept: with the other budgets, what
    /// bounds laminad's memory however many clients connect (docs/protocol.md, "Budgets").
    public var maxTotalLayers = 400_000
    /// Connected clients, in all and per user (uid). Peers with privilege (laminad's user,
    /// root, the configured group) are always admitted, so an administrator can still look.
    public var maxClients = 64
    public var maxClientsPerUser = 16
    /// Pixel bytes (width × height × 4) of one client's images, and of every client's together
    /// (one 16384² image made 3.2 GB of RSS once drawn).
    public var maxImageBytes = 256 << 20
    public var maxTotalImageBytes = 1 << 30
    /// Set by the display tree: what `maxTotalImageBytes` leaves this client after the others.
    var imageBytesLeft: Int?
    /// Set by the display tree when a smaller budget than `maxLayers` is in force for this
    /// commit (a kept session's share of `maxKeptLayers`).
    var layerBudgetMessage: String?
    public init(maxLayers: Int = 100_000, maxOperationsPerCommit: Int = 100_000, maxImages: Int = 4096,
                maxDepth: Int = ClientLimits.defaultMaxDepth) {
        self.maxLayers = maxLayers
        self.maxOperationsPerCommit = maxOperationsPerCommit
        self.maxImages = maxImages
        self.maxDepth = maxDepth
    }
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
    /// Images made by an earlier client of a resumed session (`adoptImages`).
    var inheritedImages: Set<UInt32> = []
    /// Videos made by an earlier client of a resumed session: stopped once no layer shows them.
    var inheritedVideos: Set<UInt32> = []
    /// Whose texture bytes this tree's images count towards (set when the session is attached).
    public var imageOwner: ImageSource.Owner = .server

    /// Pixel bytes the client's images and its videos' current frames hold: what the image
    /// budgets (`max_image_bytes`, and with the other clients' `max_total_image_bytes`) count.
    public var imageBytes: Int {
        images.values.reduce(0) { $0 + $1.byteCount } + videos.values.reduce(0) { $0 + ($1.image?.byteCount ?? 0) }
    }

    /// A tree holding only the root layer, sized to the display.
    public init(displayWidth: Double, displayHeight: Double) {
        var root = ServerLayer()
        root.properties.fitRoot(displayWidth: displayWidth, displayHeight: displayHeight)
        layers = [.root: root]
    }

    public subscript(id: LayerID) -> ServerLayer? { layers[id] }

    /// Sizes the root layer to a display of this size (`LayerProperties.fitRoot`).
    mutating func fitRoot(width: Double, height: Double) {
        layers[.root]?.properties.fitRoot(displayWidth: width, displayHeight: height)
    }

    /// Applies a commit's operations in order, all or none: on the first bad operation the tree
    /// is left exactly as it was and the rejection names that operation.
    /// Returns what changed. Animation operations are validated here (the layer exists, the
    /// animation is well formed) and handed back for the compositor to attach.
    @discardableResult
    public mutating func apply(_ ops: [Operation], attachments: [MemoryAttachment] = [],
                               limits: ClientLimits = ClientLimits()) throws(CommitRejection) -> CommitResult {
        var commit = try beginCommit(ops, attachments: attachments, limits: limits)
        try continueCommit(&commit, operations: .max)
        return try finishCommit(&commit)
    }

    /// Starts applying a commit that `continueCommit` takes further, a budget of operations at
    /// a time, and `finishCommit` completes (laminad applies a big commit over several turns
    /// of its loop, to a copy of the tree, so other clients are served meanwhile).
    public func beginCommit(_ ops: [Operation], attachments: [MemoryAttachment] = [],
                            limits: ClientLimits = ClientLimits()) throws(CommitRejection) -> CommitInProgress {
        guard ops.count <= limits.maxOperationsPerCommit else {
            throw CommitRejection(code: .limitExceeded, operationIndex: -1,
                                  message: "a commit may hold at most \(limits.maxOperationsPerCommit) operations, this one has \(ops.count)")
        }
        let needed = ops.reduce(0) { $0 + $1.descriptorCount }
        guard needed == attachments.count else {
            throw CommitRejection(code: .invalidImage, operationIndex: -1,
                                  message: "the commit has \(needed) create-image operation\(needed == 1 ? "" : "s") but its frame carried \(attachments.count) file descriptor\(attachments.count == 1 ? "" : "s") (send exactly one memory file per create-image, in order, with the frame)")
        }
        return CommitInProgress(operations: ops, total: ops.count, attachments: attachments, limits: limits, checksDescriptorsAtEnd: false)
    }

    /// Starts a commit of `count` operations whose operations come later, in pieces
    /// (`CommitInProgress.supply`): laminad decodes a big commit a step at a time, into a copy
    /// of the tree that it drops if the commit fails (so a failure does not restore this tree).
    public func beginStreamedCommit(count: Int, attachments: [MemoryAttachment] = [],
                                    limits: ClientLimits = ClientLimits()) throws(CommitRejection) -> CommitInProgress {
        guard count <= limits.maxOperationsPerCommit else {
            throw CommitRejection(code: .limitExceeded, operationIndex: -1,
                                  message: "a commit may hold at most \(limits.maxOperationsPerCommit) operations, this one has \(count)")
        }
        var commit = CommitInProgress(operations: [], total: count, attachments: attachments, limits: limits, checksDescriptorsAtEnd: true)
        // Applied to a copy of the tree, dropped on failure: nothing to undo. What it replaces
        // is this tree's layers as they are now (shared with this tree, not copied).
        commit.journal.keepsUndo = false
        commit.result.replaced.original = layers
        return commit
    }

    /// Applies up to `budget` more of the commit's operations. On a bad one the tree is put
    /// back as it was before the commit began, and the rejection names the operation.
    public mutating func continueCommit(_ commit: inout CommitInProgress, operations budget: Int) throws(CommitRejection) {
        let end = commit.next + min(budget, commit.supplied)
        while commit.next < end {
            let i = commit.next, op = commit.operations[i - commit.firstIndex]
            do throws(CommitRejection) {
                let visible: Bool
                switch op {
                case .createImage, .updateImage, .destroyImage, .createVideo, .controlVideo:
                    visible = try applyImage(op, index: i, attachments: commit.attachments, limits: commit.limits, journal: &commit.journal)
                default:
                    visible = try applyOne(op, index: i, limits: commit.limits, journal: &commit.journal, changes: &commit.result.changes)
                }
                if visible { commit.result.visibleChange = true }
            } catch {
                rollBack(commit.journal)
                throw error
            }
            commit.next += 1
        }
    }

    /// Completes a commit whose operations have all been applied: the structure's bookkeeping,
    /// the depth check of moved subtrees, and the image changes the renderer sees.
    public mutating func finishCommit(_ commit: inout CommitInProgress) throws(CommitRejection) -> CommitResult {
        precondition(commit.isApplied, "finishCommit before every operation was applied")
        do throws(CommitRejection) {
            let taken = commit.journal.attachmentsTaken
            if commit.checksDescriptorsAtEnd, taken != commit.attachments.count {
                throw CommitRejection(code: .invalidImage, operationIndex: -1,
                                      message: "the commit has \(taken) create-image operation\(taken == 1 ? "" : "s") but its frame carried \(commit.attachments.count) file descriptor\(commit.attachments.count == 1 ? "" : "s") (send exactly one memory file per create-image, in order, with the frame)")
            }
            finishStructure(&commit.journal, changes: &commit.result.changes, limits: commit.limits)
            try checkDepth(of: commit.journal.movedRoots, limits: commit.limits, journal: &commit.journal)
        } catch {
            rollBack(commit.journal)
            throw error
        }
        let journal = commit.journal
        // Only now that the commit stands do image changes reach the sources the renderer reads.
        for (source, rect) in journal.imageUpdates { source.markChanged(rect) }
        for source in journal.destroyedImages { source.destroy() }
        for source in journal.destroyedImages { inheritedImages.remove(source.number) }
        for change in journal.videoChanges { if case .destroyed(let v) = change { inheritedVideos.remove(v.number) } }
        destroyUnshownInheritedImages()
        commit.result.videoChanges = journal.videoChanges
        // The undo journal's copies are what the commit replaced (a streamed commit has none:
        // its `replaced` holds the tree from before it).
        if journal.keepsUndo { commit.result.replaced.saved = journal.saved }
        return commit.result
    }

    private mutating func rollBack(_ journal: Journal) {
        for (id, old) in journal.saved { layers[id] = old }
        for id in journal.created { layers[id] = nil }
        for (n, old) in journal.savedImages { images[n] = old }
        for (n, old) in journal.savedVideos { videos[n] = old }
    }

    /// The value each touched layer had before the commit began (nil: it did not exist), and
    /// the commit's structural bookkeeping (TreeShape.swift).
    struct Journal {
        /// False for a commit applied to a copy that is thrown away if it fails (a big commit
        /// in steps): no layer's old value is kept.
        var keepsUndo = true
        /// The value before the commit of each existing layer it touched, and the layers it
        /// made that did not exist before.
        var saved: [LayerID: ServerLayer] = [:]
        var created: Set<LayerID> = []
        /// Sublayers taken out of each superlayer during this commit, in order, with the index
        /// of their `.removed` change: they leave the superlayer's array in one pass
        /// (`compact`), so removing many siblings is linear, not quadratic.
        var pendingRemovals: [LayerID: [(child: LayerID, change: Int)]] = [:]
        /// Depths found during this commit, valid until a layer with descendants moves.
        var depthMemo: [LayerID: Int] = [:]
        /// Layers with descendants that were moved (or made masks) in this commit, with the
        /// operation that did it: their subtrees' depth is checked once, at the end.
        var movedRoots: [LayerID: Int] = [:]
        var savedImages: [UInt32: ImageSource?] = [:]
        var attachmentsTaken = 0
        var imageUpdates: [(ImageSource, PixelRect)] = []
        var destroyedImages: [ImageSource] = []
        var savedVideos: [UInt32: VideoSurface?] = [:]
        var videoChanges: [VideoChange] = []
    }

    private mutating func applyImage(_ op: Operation, index i: Int, attachments: [MemoryAttachment], limits: ClientLimits,
                                     journal: inout Journal) throws(CommitRejection) -> Bool {
        func fail(_ code: ErrorCode, _ message: String) -> CommitRejection {
            CommitRejection(code: code, operationIndex: i, message: message)
        }
        func saveImage(_ n: UInt32) { if journal.savedImages[n] == nil { journal.savedImages[n] = .some(images[n]) } }
        func saveVideo(_ n: UInt32) { if journal.savedVideos[n] == nil { journal.savedVideos[n] = .some(videos[n]) } }
        switch op {
        case let .createVideo(n, uri):
            guard n != 0 else { throw fail(.invalidImage, "video image number 0 is nil; choose a number ≥ 1") }
            guard images[n] == nil, videos[n] == nil else {
                throw fail(.duplicateImage, "image \(n) already exists (destroy it first); a video's pictures take an image number")
            }
            guard images.count + videos.count < limits.maxImages else {
                throw fail(.limitExceeded, "a client may hold at most \(limits.maxImages) images and videos")
            }
            guard !uri.isEmpty else { throw fail(.invalidImage, "video \(n): the URI is empty (give an absolute path or a URI)") }
            saveVideo(n)
            let surface = VideoSurface(number: n, uri: uri)
            videos[n] = surface
            journal.videoChanges.append(.created(surface))
            return false
        case let .controlVideo(n, control):
            guard let surface = videos[n] else {
                throw fail(.unknownImage, images[n] == nil ? "video \(n) does not exist" : "image \(n) is an image, not a video")
            }
            journal.videoChanges.append(.controlled(surface, control))
            return true
        case let .destroyImage(n) where videos[n] != nil:
            saveVideo(n)
            let surface = videos.removeValue(forKey: n)!
            journal.videoChanges.removeAll { $0.surface === surface }
            journal.videoChanges.append(.destroyed(surface))
            return layers.values.contains { $0.properties.contents == n }
        case let .createImage(n, format):
            guard journal.attachmentsTaken < attachments.count else {
                throw fail(.invalidImage, "image \(n): the frame carried only \(attachments.count) file descriptor\(attachments.count == 1 ? "" : "s") for more create-image operations (send one memory file per create-image, in order, with the frame)")
            }
            let attachment = attachments[journal.attachmentsTaken]
            journal.attachmentsTaken += 1
            guard n != 0 else { throw fail(.invalidImage, "image number 0 is nil; choose a number ≥ 1") }
            guard images[n] == nil else { throw fail(.duplicateImage, "image \(n) already exists (destroy it first)") }
            guard videos[n] == nil else { throw fail(.duplicateImage, "image \(n) is a video's (destroy it first)") }
            guard images.count + videos.count < limits.maxImages else {
                throw fail(.limitExceeded, "a client may hold at most \(limits.maxImages) images")
            }
            let memory: any PixelMemory
            switch attachment {
            case .memory(let m): memory = m
            case .unusable(let why): throw fail(.invalidImage, "image \(n): its file descriptor cannot be used: \(why)")
            }
            if let problem = format.problem(fileSize: memory.byteCount) { throw fail(.invalidImage, "image \(n): \(problem)") }
            let bytes = Int(format.width) * Int(format.height) * 4
            let held = imageBytes
            guard held + bytes <= limits.maxImageBytes else {
                throw fail(.limitExceeded, "image \(n) (\(format.width)×\(format.height), \(bytes) bytes) would take this client's images to \(held + bytes) bytes; the image budget (max_image_bytes) is \(limits.maxImageBytes)")
            }
            if let left = limits.imageBytesLeft, held + bytes > left {
                throw fail(.limitExceeded, "image \(n) (\(bytes) bytes) does not fit: all clients' images may hold \(limits.maxTotalImageBytes) bytes together (max_total_image_bytes), and the others hold \(limits.maxTotalImageBytes - left)")
            }
            saveImage(n)
            images[n] = ImageSource(owner: imageOwner, number: n, memory: memory, format: format)
            return layers.values.contains { $0.properties.contents == n }
        case let .updateImage(n, rect):
            guard let source = images[n] else {
                throw fail(.unknownImage, videos[n] == nil ? "image \(n) does not exist" : "image \(n) is a video's pictures: the decoder writes it, update-image cannot")
            }
            guard rect.fits(width: UInt32(source.width), height: UInt32(source.height)) else {
                throw fail(.invalidImage, "update rectangle \(rect) is empty or reaches outside image \(n) (\(source.width)×\(source.height))")
            }
            journal.imageUpdates.append((source, rect))
            return true
        case let .destroyImage(n):
            guard let source = images[n] else { throw fail(.unknownImage, "image \(n) does not exist") }
            saveImage(n)
            images[n] = nil
            journal.destroyedImages.append(source)
            journal.imageUpdates.removeAll { $0.0 === source }
            return true
        default:
            return false
        }
    }

    /// A kept session was resumed by a new client, which has no handle on the images an
    /// earlier client made: those no layer shows are destroyed now, the rest as soon as no
    /// layer shows them any more (checked after each commit).
    public mutating func adoptImages() {
        inheritedImages = Set(images.keys)
        inheritedVideos = Set(videos.keys)
        destroyUnshownInheritedImages()
    }

    private mutating func destroyUnshownInheritedImages() {
        guard !inheritedImages.isEmpty || !inheritedVideos.isEmpty else { return }
        var shown = Set<UInt32>()
        for l in layers.values where l.properties.contents != 0 { shown.insert(l.properties.contents) }
        for n in inheritedImages where !shown.contains(n) {
            images.removeValue(forKey: n)?.destroy()
            inheritedImages.remove(n)
        }
        for n in inheritedVideos where !shown.contains(n) {
            videos.removeValue(forKey: n)?.destroy()
            inheritedVideos.remove(n)
        }
    }

    /// Marks every image destroyed (the session ended): their textures go.
    public func destroyImages() {
        for source in images.values { source.destroy() }
        for video in videos.values { video.destroy() }
    }

    private func save(_ id: LayerID, _ journal: inout Journal) {
        guard journal.keepsUndo, !journal.created.contains(id), journal.saved.index(forKey: id) == nil else { return }
        // Read in place (a layer is over 1 KB); a layer that does not exist yet is only noted.
        if let k = layers.index(forKey: id) { journal.saved[id] = layers.values[k] } else { journal.created.insert(id) }
    }

    /// Room for `count` layers in all, so a big commit's creates do not regrow the table in
    /// one long step.
    mutating func reserveLayers(_ count: Int) { layers.reserveCapacity(count) }

    private func existing(_ id: LayerID, _ i: Int, _ role: String = "layer") throws(CommitRejection) -> ServerLayer {
        guard let l = layers[id] else { throw unknownLayer(id, i, role) }
        return l
    }

    /// Throws unless the layer exists; reads nothing of it (a layer is over 1 KB to copy).
    private func requireLayer(_ id: LayerID, _ i: Int, _ role: String = "layer") throws(CommitRejection) {
        guard layers.index(forKey: id) != nil else { throw unknownLayer(id, i, role) }
    }

    private func unknownLayer(_ id: LayerID, _ i: Int, _ role: String = "layer") -> CommitRejection {
        CommitRejection(code: .unknownLayer, operationIndex: i, message: "\(role) \(id) does not exist (it was never created by this client, or was destroyed)")
    }

    private mutating func detach(_ id: LayerID, journal: inout Journal, changes: inout [TreeChange]) {
        guard let parent = layers[id]?.superlayer else { return }
        save(parent, &journal)
        save(id, &journal)
        // The index is filled in when the superlayer's array is compacted.
        journal.pendingRemovals[parent, default: []].append((id, changes.count))
        layers[id]?.superlayer = nil
        forgetDepth(of: id, &journal)
        changes.append(.removed(id, from: parent, at: 0))
    }

    private mutating func applyOne(_ op: Operation, index i: Int, limits: ClientLimits, journal: inout Journal,
                                   changes: inout [TreeChange]) throws(CommitRejection) -> Bool {
        switch op {
        case let .create(id, kind):
            guard layers[id] == nil else {
                throw CommitRejection(code: .duplicateLayer, operationIndex: i,
                                      message: id == .root ? "layer #0 is the client's root layer and always exists" : "layer \(id) already exists")
            }
            guard layers.count < limits.maxLayers else {
                throw CommitRejection(code: .limitExceeded, operationIndex: i, message: limits.layerBudgetMessage ?? "a client may hold at most \(limits.maxLayers) layers (max_layers_per_client)")
            }
            save(id, &journal)
            layers[id] = ServerLayer(properties: LayerProperties(kind: kind))
            changes.append(.created(id))
            return false

        case .destroy(let id):
            let layer = try existing(id, i)
            guard id != .root else {
                throw CommitRejection(code: .notAllowed, operationIndex: i, message: "the root layer #0 cannot be destroyed")
            }
            var visible = layer.superlayer != nil
            detach(id, journal: &journal, changes: &changes)
            compact(id, &journal, changes: &changes)
            if layers[id]!.hasDescendants || layers[id]!.maskOf != nil { journal.depthMemo.removeAll() }
            // A destroyed mask leaves the layer it masked unmasked; a destroyed masked layer
            // frees its mask.
            if let masked = layer.maskOf, var m = layers[masked], m.properties.mask == id.rawValue {
                save(masked, &journal)
                let old = m.properties[.mask]
                m.properties.mask = 0
                layers[masked] = m
                changes.append(.set(masked, .mask, old: old))
                visible = true
            }
            let maskID = LayerID(rawValue: layer.properties.mask)
            if layer.properties.mask != 0, layers[maskID]?.maskOf == id {
                save(maskID, &journal)
                layers[maskID]?.maskOf = nil
            }
            for child in layers[id]!.sublayers {
                save(child, &journal)
                layers[child]?.superlayer = nil
            }
            save(id, &journal)
            changes.append(.destroyed(id, layers[id]!))
            layers[id] = nil
            return visible

        case let .set(id, key, value):
            // Changed in place: a layer is over 1 KB, and copying it out and back for each set
            // was most of a commit's cost. The journal keeps the old value for a rollback.
            guard let k = layers.index(forKey: id) else { throw unknownLayer(id, i) }
            let old = layers.values[k].properties[key]
            let new: PropertyValue
            do throws(PropertyError) {
                new = try LayerProperties.validated(key, value)
            } catch {
                throw CommitRejection(code: .invalidProperty, operationIndex: i, message: "layer \(id): \(error)")
            }
            guard new != old else { return false }
            if key == .mask, case .layer(let m) = new { try checkMask(m, for: id, i, limits: limits) }
            save(id, &journal)
            layers.values[k].properties.store(key, new)
            if key == .mask, case .layer(let previous) = old {
                let before = LayerID(rawValue: previous), after = LayerID(rawValue: layers.values[k].properties.mask)
                if previous != 0, layers[before]?.maskOf == id {
                    save(before, &journal)
                    layers[before]?.maskOf = nil
                }
                if after.rawValue != 0 {
                    save(after, &journal)
                    layers[after]?.maskOf = id
                    journal.movedRoots[after] = i
                }
                journal.depthMemo.removeAll()
            }
            changes.append(.set(id, key, old: old))
            return true

        case let .insert(parent, child, index):
            try requireLayer(parent, i, "superlayer")
            try requireLayer(child, i, "sublayer")
            guard child != .root else {
                throw CommitRejection(code: .notAllowed, operationIndex: i, message: "the root layer #0 cannot be made a sublayer")
            }
            if let masked = layers[child]?.maskOf {
                throw CommitRejection(code: .notAllowed, operationIndex: i,
                                      message: "layer \(child) is the mask of layer \(masked) and a mask layer has no superlayer; set that layer's mask to nil first")
            }
            let hasDescendants = layers[child]!.hasDescendants
            let parentDepth = try depthForInsert(child, into: parent, hasDescendants: hasDescendants, i, limits: limits, &journal)
            detach(child, journal: &journal, changes: &changes)
            compact(parent, &journal, changes: &changes)
            save(parent, &journal)
            save(child, &journal)
            // (The count only: holding a copy of the array would make the insert below copy it.)
            // Clamped to the list by the insert (UInt32.max, "at the end", included).
            layers[parent]!.sublayers.insert(child, at: Int(index))
            layers[child]!.superlayer = parent
            if hasDescendants {
                journal.movedRoots[child] = i
            } else {
                journal.depthMemo[child] = parentDepth + 1
            }
            changes.append(.inserted(child, into: parent))
            return true

        case .remove(let id):
            let layer = try existing(id, i)
            detach(id, journal: &journal, changes: &changes)
            return layer.superlayer != nil

        case let .addAnimation(id, _, _, animation):
            try requireLayer(id, i)
            if let problem = animation.validate().first {
                throw CommitRejection(code: .invalidAnimation, operationIndex: i, message: "layer \(id): \(problem)")
            }
            changes.append(.animation(op))
            return false

        case .removeAnimation(let id, _), .removeAllAnimations(let id):
            try requireLayer(id, i)
            changes.append(.animation(op))
            return false

        case let .setAction(id, dictionary, key, action):
            var layer = try existing(id, i)
            if case .animation(let a) = action, let problem = ClientTree.actionProblem(a, key: key) {
                throw CommitRejection(code: .invalidAnimation, operationIndex: i, message: "layer \(id) action '\(key)': \(problem)")
            }
            let value: Action? = action == .inherit ? nil : action
            switch dictionary {
            case .actions: layer.actions[key] = value
            case .style: layer.styleActions[key] = value
            }
            save(id, &journal)
            layers[id] = layer
            return false

        case .settings(let s):
            changes.append(.settings(s))
            return false

        case .createImage, .updateImage, .destroyImage, .createVideo, .controlVideo:
            return false  // applyImage
        }
    }

    /// Checks that layer number `mask` may become the mask of layer `id`: it exists, it is not
    /// the layer itself or one of its ancestors, it has no superlayer and masks no other layer
    /// (Core Animation's mask layer has no superlayer).
    private func checkMask(_ mask: UInt32, for id: LayerID, _ i: Int, limits: ClientLimits) throws(CommitRejection) {
        guard mask != 0 else { return }
        let maskID = LayerID(rawValue: mask)
        func refuse(_ why: String) -> CommitRejection {
            CommitRejection(code: .notAllowed, operationIndex: i, message: "layer \(id): mask \(maskID) \(why)")
        }
        guard let m = layers[maskID] else {
            throw CommitRejection(code: .unknownLayer, operationIndex: i,
                                  message: "layer \(id): mask \(maskID) does not exist (create the mask layer before setting it)")
        }
        guard maskID != id else { throw refuse("is the layer itself; a layer cannot mask itself") }
        var cursor = layers[id].flatMap(\.up)
        var steps = 0
        while let c = cursor, steps <= limits.maxDepth {
            if c == maskID { throw refuse("is an ancestor of the layer; a mask must be outside the layer's tree") }
            cursor = layers[c]?.up
            steps += 1
        }
        if cursor != nil {
            throw refuse("cannot be checked: layer \(id) is more than \(limits.maxDepth) levels deep (the depth budget)")
        }
        if let s = m.superlayer {
            throw refuse("is a sublayer of layer \(s); a mask layer has no superlayer (remove it from its superlayer first)")
        }
        if let other = m.maskOf, other != id {
            throw refuse("is already the mask of layer \(other); a layer masks at most one layer")
        }
    }

    /// Why an action's animation cannot run for `key`, or nil. An action's key path may be
    /// empty: it then animates the key it is looked up for (onOrderIn and friends excepted).
    static func actionProblem(_ a: Animation, key: String) -> String? {
        a.withDefaultKeyPath(PropertyKey(name: key) != nil ? key : "opacity").validate().first?.description
    }

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
