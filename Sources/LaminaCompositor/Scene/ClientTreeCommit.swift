import LaminaCore
import LaminaProtocol

// Applying a commit to a client's tree, all or none: what a commit reports, the commit in
// progress (a big one is applied over several turns of laminad's loop), and the undo journal.
// The operations themselves are in ClientTreeOperations.swift and ClientTreeImages.swift.

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

extension ClientTree {
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
                                  message: "the commit has \(needed) create-image or create-encoded-image operation\(needed == 1 ? "" : "s") but its frame carried \(attachments.count) file descriptor\(attachments.count == 1 ? "" : "s") (send exactly one memory file per create-image or create-encoded-image, in order, with the frame)")
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
                case .createImage, .updateImage, .destroyImage, .createVideo, .controlVideo, .createEncodedImage:
                    visible = try applyImage(op, index: i, attachments: commit.attachments, limits: commit.limits, journal: &commit.journal)
                case .supplyTile, .dropTiles:
                    visible = try applyTile(op, index: i, limits: commit.limits, journal: &commit.journal)
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
                                      message: "the commit has \(taken) create-image or create-encoded-image operation\(taken == 1 ? "" : "s") but its frame carried \(commit.attachments.count) file descriptor\(commit.attachments.count == 1 ? "" : "s") (send exactly one memory file per create-image or create-encoded-image, in order, with the frame)")
            }
            finishStructure(&commit.journal, changes: &commit.result.changes, limits: commit.limits)
            try checkDepth(of: commit.journal.movedRoots, limits: commit.limits, journal: &commit.journal)
            // Layout last, on the commit's final tree (ClientTreeLayout.swift).
            let request = LayoutRequest(changes: commit.result.changes, tree: self)
            do throws(LayoutFailure) {
                if try layOut(request, limits: commit.limits, journal: &commit.journal, changes: &commit.result.changes) {
                    commit.result.visibleChange = true
                }
            } catch {
                throw CommitRejection(code: error.code, operationIndex: -1, message: error.message)
            }
            if commit.journal.emittersChanged { try checkClientParticles(limits: commit.limits) }
        } catch {
            rollBack(commit.journal)
            throw error
        }
        let journal = commit.journal
        // Only now that the commit stands do image changes reach the sources the renderer reads.
        for (source, rect) in journal.imageUpdates { source.markChanged(rect) }
        for source in journal.destroyedImages { source.destroy() }
        for image in journal.destroyedEncoded { image.destroy() }
        finishTiles(journal.tileChanges, limits: commit.limits)
        for source in journal.destroyedImages { inheritedImages.remove(source.number) }
        for image in journal.destroyedEncoded { inheritedImages.remove(image.number) }
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
        for (n, old) in journal.savedEncoded { encodedImages[n] = old }
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
        var savedEncoded: [UInt32: EncodedImage?] = [:]
        var destroyedEncoded: [EncodedImage] = []
        var videoChanges: [VideoChange] = []
        /// An emitter layer's properties were set: the client's particles are checked at the end.
        var emittersChanged = false
        /// Tiles supplied and dropped, in order: they reach the tile cache once the commit stands.
        var tileChanges: [TileChange] = []
    }
}
