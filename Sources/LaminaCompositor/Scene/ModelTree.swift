import LaminaCore
import LaminaProtocol

/// A number that stays with a model-tree entry (one client's part of the display) while the
/// entry lives; entries move in `ModelTree.entries` when others leave, their serials do not.
/// Animations, presentation, images and the render-list cache keep an entry's state under it.
public struct EntrySerial: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let rawValue: UInt32
    public init(_ rawValue: UInt32) { self.rawValue = rawValue }
    public static func < (a: EntrySerial, b: EntrySerial) -> Bool { a.rawValue < b.rawValue }
    public var description: String { "entry \(rawValue)" }
    /// The one after it.
    var next: EntrySerial { EntrySerial(rawValue &+ 1) }
}

/// The display's model tree: every client's tree, in connection order, under one display root.
///
/// A client's root layer is attached to the display root when it says hello; a session kept
/// after its client left (`HelloFlags.keepLayers`) keeps its place in the order.
public struct ModelTree: Sendable {
    /// One client's part of the display: its model tree and its session's bookkeeping. (Its
    /// animations, and the layers on their way out, are the compositor's `AnimationState`.)
    public struct Entry: Sendable {
        /// (Any change to it bumps `changeCount`: what the render-list cache checks its kept
        /// commands against.)
        public var tree: ClientTree { didSet { changeCount &+= 1 } }
        /// The client connected now, or nil for a kept session whose client has gone.
        public var client: ClientID?
        public var clientName: String
        public var session: String
        public var keepsLayers: Bool
        /// The user whose client created the entry: only that user, or a privileged peer,
        /// may adopt it as a kept session.
        public var ownerUID: UInt32 = 0
        /// A number that stays with the entry while it lives (entries move when others leave).
        public let serial: EntrySerial
        /// Counts changes to `tree`.
        public private(set) var changeCount: UInt64 = 0
        /// Its layers whose `appSurface` is set (kept by the compositor from commits' changes).
        var appLayers: Set<LayerID> = []
        /// Its layers stay when its client leaves.
        public var isKept: Bool { keepsLayers && !session.isEmpty }
    }

    public private(set) var width: Int
    public private(set) var height: Int
    public var background: Color
    /// The "separate" output layout: each output's rectangle in the desktop, by connector
    /// name. A top-level sublayer of a client's root whose `name` is an output's name is that
    /// output's root: its position is in that output's coordinates (0,0 at its top-left).
    /// Empty for one virtual desktop, where every layer is in desktop coordinates.
    public var outputRoots: [String: Rect] = [:]
    /// Decodes create-encoded-image's files for every client tree (nil: such images are refused).
    public var imageDecoder: (any EncodedImageDecoding)?
    /// In connection order: the first is drawn first, at the back.
    public internal(set) var entries: [Entry] = []
    private var nextSerial = EntrySerial(1)

    public init(width: Int, height: Int, background: Color = .black) {
        self.width = width
        self.height = height
        self.background = background
    }

    /// Gives the display a new size (a display was plugged in, unplugged or changed mode).
    /// Every client's root layer follows it, as a window's root layer follows the window:
    /// its bounds become the display's and its position the display's centre.
    /// Layout follows (autoresizing, constraints): returns, by entry index, what it moved in
    /// each client's tree, for the compositor to animate.
    @discardableResult
    public mutating func resize(width: Int, height: Int, limits: ClientLimits = ClientLimits()) -> [Int: CommitResult] {
        self.width = width
        self.height = height
        var laidOut: [Int: CommitResult] = [:]
        for i in entries.indices {
            let result = entries[i].tree.fitRoot(width: Double(width), height: Double(height), limits: limits)
            if !result.changes.isEmpty { laidOut[i] = result }
        }
        return laidOut
    }

    public func index(of client: ClientID) -> Int? { entries.firstIndex { $0.client == client } }

    public func tree(of client: ClientID) -> ClientTree? { index(of: client).map { entries[$0].tree } }

    /// Attaches a new client, or hands it the kept session of the same name.
    /// Returns the snapshot of a resumed session (empty for a new one).
    public mutating func attach(_ client: ClientID, hello: Hello, peer: PeerIdentity = .trusted,
                                limits: ClientLimits = ClientLimits()) throws(ErrorMessage) -> [Operation] {
        if !hello.session.isEmpty, let i = entries.firstIndex(where: { $0.session == hello.session }) {
            guard peer.isPrivileged || entries[i].ownerUID == peer.uid else {
                throw ErrorMessage(code: .permissionDenied,
                                   message: "session '\(hello.session)' was created by uid \(entries[i].ownerUID); uid \(peer.uid) may not adopt it (choose another session name)")
            }
            guard entries[i].client == nil else {
                throw ErrorMessage(code: .sessionInUse, message: "session '\(hello.session)' is held by another connected client")
            }
            entries[i].client = client
            entries[i].clientName = hello.clientName
            entries[i].keepsLayers = hello.flags.contains(.keepLayers)
            // The new client can name only the images its layers show (the snapshot carries
            // their numbers); the others are unreachable now.
            entries[i].tree.adoptImages()
            return entries[i].tree.snapshot()
        }
        if hello.flags.contains(.keepLayers), !hello.session.isEmpty {
            let kept = entries.filter(\.isKept)
            guard kept.count < limits.maxKeptSessions else {
                throw ErrorMessage(code: .limitExceeded, message: "there are \(kept.count) kept sessions, the most laminad keeps (max_kept_sessions); end one or connect without keeping layers")
            }
            let mine = kept.filter { $0.ownerUID == peer.uid }.count
            guard mine < limits.maxKeptSessionsPerUser else {
                throw ErrorMessage(code: .limitExceeded, message: "uid \(peer.uid) has \(mine) kept sessions, the most one user may keep (max_kept_sessions_per_user)")
            }
        }
        var tree = ClientTree(displayWidth: Double(width), displayHeight: Double(height))
        tree.imageOwner = .session(nextSerial)
        tree.imageDecoder = imageDecoder
        entries.append(Entry(tree: tree,
                             client: client, clientName: hello.clientName, session: hello.session,
                             keepsLayers: hello.flags.contains(.keepLayers), ownerUID: peer.uid, serial: nextSerial))
        nextSerial = nextSerial.next
        return []
    }

    /// Detaches a client that went away. Its layers go too, unless its session keeps them.
    /// Returns whether anything of its model left the screen (layers on their way out are the
    /// animation side's to count).
    @discardableResult
    public mutating func detach(_ client: ClientID) -> Bool {
        guard let i = index(of: client) else { return false }
        if entries[i].keepsLayers && !entries[i].session.isEmpty {
            entries[i].client = nil
            return false
        }
        let hadVisible = !(entries[i].tree[.root]?.sublayers.isEmpty ?? true)
            || !entries[i].tree.images.isEmpty || !entries[i].tree.videos.isEmpty
        entries[i].tree.destroyImages()
        entries.remove(at: i)
        return hadVisible
    }

    /// Applies a client's commit atomically. Returns what changed.
    public mutating func apply(_ ops: [Operation], attachments: [MemoryAttachment] = [], from client: ClientID,
                               limits: ClientLimits) throws(CommitRejection) -> CommitResult {
        guard let i = index(of: client) else {
            throw CommitRejection(code: .notHello, operationIndex: -1, message: "\(client) is not attached")
        }
        return try entries[i].tree.apply(ops, attachments: attachments, limits: commitLimits(ops, entry: i, limits: limits))
    }

    /// The client's limits for a commit of `ops` by entry `i`, with the budgets it shares with
    /// the other entries narrowed to what they leave.
    func commitLimits(_ ops: [Operation], entry i: Int, limits: ClientLimits) -> ClientLimits {
        commitLimits(createsImages: ops.contains { $0.descriptorCount > 0 },
                     createsLayers: ops.contains { if case .create = $0 { true } else { false } }, entry: i, limits: limits)
    }

    /// The same, for a commit that may create images or layers (a big commit, decoded in steps).
    func commitLimits(createsImages: Bool, createsLayers: Bool, entry i: Int, limits: ClientLimits) -> ClientLimits {
        var limits = limits
        if createsImages {
            // Other clients' video frames count as their images do.
            let others = entries.indices.reduce(0) { $0 + ($1 == i ? 0 : entries[$1].tree.imageBytes) }
            limits.imageBytesLeft = max(0, limits.maxTotalImageBytes - others)
        }
        if entries[i].keepsLayers && !entries[i].session.isEmpty {
            // A kept session's layers outlive its client: all of them share one budget.
            let others = entries.indices.reduce(0) { $0 + ($1 != i && entries[$1].isKept ? entries[$1].tree.layers.count : 0) }
            let share = max(0, limits.maxKeptLayers - others)
            if share < limits.maxLayers {
                limits.maxLayers = share
                limits.layerBudgetMessage = "kept sessions may hold at most \(limits.maxKeptLayers) layers together (max_kept_layers); other kept sessions hold \(others)"
            }
        }
        if createsLayers {
            // Every session's layers share one budget too.
            let others = layerCount - entries[i].tree.layers.count
            let share = max(0, limits.maxTotalLayers - others)
            if share < limits.maxLayers {
                limits.maxLayers = share
                limits.layerBudgetMessage = "all sessions may hold at most \(limits.maxTotalLayers) layers together (max_total_layers); the others hold \(others)"
            }
        }
        return limits
    }

    /// Layers held by kept sessions (connected or not).
    public var keptLayerCount: Int { entries.reduce(0) { $0 + ($1.isKept ? $1.tree.layers.count : 0) } }

    /// Layers held, over all clients.
    public var layerCount: Int { entries.reduce(0) { $0 + $1.tree.layers.count } }
}

// MARK: - JSON

extension ModelTree {
    /// The model tree as JSON (docs/protocol.md, "tree"): for each client its root layer, each
    /// layer with its id, the properties that differ from the defaults, its frame and sublayers.
    /// `owner`: list only the entries that user's clients made (an unprivileged peer sees
    /// its own layers and kept sessions only).
    public func json(clock: ClockKind, time: Double, owner: UInt32? = nil, presentation: ((Int, LayerID) -> LayerProperties?)? = nil) -> String {
        var j = JSONWriter()
        j.beginObject()
        j.key("display")
        j.beginObject()
        j.field("width", Double(width))
        j.field("height", Double(height))
        j.field("clock", clock.description)
        j.field("time", time)
        if !outputRoots.isEmpty {
            j.key("outputs")
            j.beginArray()
            for (name, frame) in outputRoots.sorted(by: { $0.value.minX != $1.value.minX ? $0.value.minX < $1.value.minX : $0.key < $1.key }) {
                j.beginObject()
                j.field("name", name)
                j.key("frame"); j.value(.rect(frame))
                j.endObject()
            }
            j.endArray()
        }
        j.endObject()
        j.key("clients")
        j.beginArray()
        for (entryIndex, e) in entries.enumerated() where owner == nil || owner == e.ownerUID {
            j.beginObject()
            if let c = e.client { j.field("client", Double(c.rawValue)) }
            j.field("name", e.clientName)
            j.field("session", e.session)
            j.field("connected", e.client != nil)
            if !e.tree.images.isEmpty {
                j.key("images")
                j.beginArray()
                for (n, image) in e.tree.images.sorted(by: { $0.key < $1.key }) {
                    j.beginObject()
                    j.field("image", Double(n))
                    j.field("width", Double(image.width))
                    j.field("height", Double(image.height))
                    j.endObject()
                }
                j.endArray()
            }
            j.key("root")
            layerJSON(.root, e.tree, &j) { id in presentation?(entryIndex, id) }
            j.endObject()
        }
        j.endArray()
        j.endObject()
        return j.text
    }

    private func layerJSON(_ id: LayerID, _ tree: ClientTree, _ j: inout JSONWriter, presentation: (LayerID) -> LayerProperties?) {
        guard let layer = tree[id] else { j.null(); return }
        j.beginObject()
        j.field("id", Double(id.rawValue))
        let p = layer.properties
        if p.kind != .layer { j.field("class", p.kind.name) }
        for key in p.changedKeys(from: LayerProperties(kind: p.kind)) { j.key(key.name); j.value(p[key]) }
        j.key("frame"); j.value(.rect(p.frame))
        if let shown = presentation(id) {
            let differing = PropertyKey.allCases.filter { shown[$0] != p[$0] }
            if !differing.isEmpty {
                j.key("presentation")
                j.beginObject()
                for key in differing { j.key(key.name); j.value(shown[key]) }
                j.endObject()
            }
        }
        if !layer.sublayers.isEmpty {
            j.key("sublayers")
            j.beginArray()
            for s in layer.sublayers { layerJSON(s, tree, &j, presentation: presentation) }
            j.endArray()
        }
        j.endObject()
    }
}
