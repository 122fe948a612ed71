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
    /// Constraints one layout pass (a commit's, or a display resize's for one client) may
    /// solve: what bounds layout's work however the tree is built (docs/protocol.md, "Budgets").
    public var maxLayoutConstraints = 20_000
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
    /// Bytes of one encoded file (create-encoded-image: an SVG document, a GIF, a WebP), which
    /// laminad keeps as well as what it decodes to.
    public var maxEncodedImageBytes = 16 << 20
    /// Live particles: the most one emitter layer may have (its cells' `birthRate × lifetime`,
    /// checked when set, and the walk's bound every frame) and one client's emitters together
    /// in a frame (docs/protocol.md, "Budgets").
    public var maxParticlesPerLayer = 10_000
    public var maxParticlesPerClient = 50_000
    /// Display links one client may have (`CADisplayLink`, protocol 1.7).
    public var maxDisplayLinks = 16
    /// Tiled layers' tiles: bytes and tiles one client's tile cache may hold (least recently
    /// seen evicted first), and tiles asked for per client per frame (docs/protocol.md, "Budgets").
    public var tiles = TileLimits()
    /// The walk's particle budget.
    public var particles: ParticleLimits { ParticleLimits(perLayer: maxParticlesPerLayer, perClient: maxParticlesPerClient) }
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
