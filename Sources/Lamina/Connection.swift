#if canImport(Glibc)
import Glibc
#endif
import LaminaCore
import LaminaPlatform
import LaminaProtocol

/// A connection to laminad: the client's root layer, its transactions, and control requests.
///
/// ```swift
/// let connection = try Connection.connect()
/// let box = Layer()
/// box.bounds = Rect(x: 0, y: 0, width: 100, height: 50)
/// box.position = Point(x: 200, y: 300)
/// box.backgroundColor = .red
/// connection.rootLayer.addSublayer(box)   // committed with the implicit transaction
/// try await connection.sync()             // laminad has applied it (or this throws its error)
/// ```
@MainActor
public final class Connection {
    /// This client's root layer: laminad sizes it to the display and stacks the roots of all
    /// clients in connection order. Add layers to it to show them.
    public private(set) var rootLayer: Layer!
    /// The display's size in points.
    public let displaySize: Size
    /// The clock laminad's frames follow.
    public let clock: ClockKind
    /// The server's number for this connection.
    public let clientID: UInt32

    /// Called on the main actor for every error laminad reports about a commit or the
    /// connection. The default prints it to standard error, so no error is ever silent;
    /// `sync()` also throws the first commit error since the last `sync()`.
    public var onError: (LaminaError) -> Void = { error in
        var stderr = StandardError()
        print("lamina: \(error)", to: &stderr)
    }

    let channel: Channel
    private var nextID: UInt32 = 1
    /// Layers with changes to send, in the order they were first changed.
    private var dirty: [Layer] = []
    private var isDirty: Set<ObjectIdentifier> = []
    private var released: [LayerID] = []
    private var liveIDs: Set<LayerID> = [.root]

    /// Connects to laminad.
    ///
    /// - Parameters:
    ///   - path: the socket; by default `$LAMINA_SOCKET`, else `$XDG_RUNTIME_DIR/lamina-0`,
    ///     else `/run/lamina/lamina.sock`.
    ///   - name: the client's name in laminad's logs and tree.
    ///   - session: a session name; with `keepLayers`, the layers stay on screen after this
    ///     connection closes and a later connection with the same session name takes them over
    ///     (its `rootLayer` then holds them again).
    public static func connect(to path: String? = nil, name: String = "lamina-client",
                               session: String = "", keepLayers: Bool = false) throws -> Connection {
        try Connection(path: SocketPath.resolve(path), name: name, session: session, keepLayers: keepLayers)
    }

    private init(path: String, name: String, session: String, keepLayers: Bool) throws {
        let box = ErrorRelay()
        let (channel, welcome) = try Channel.open(
            path: path,
            hello: Hello(clientName: name, session: session, flags: keepLayers ? .keepLayers : []),
            onServerError: { error in box.deliver(error) })
        self.channel = channel
        displaySize = Size(width: Double(welcome.displayWidth), height: Double(welcome.displayHeight))
        clock = welcome.clock
        clientID = welcome.clientID
        var rootProps = LayerProperties()
        rootProps.bounds = Rect(x: 0, y: 0, width: displaySize.width, height: displaySize.height)
        rootProps.position = Point(x: displaySize.width / 2, y: displaySize.height / 2)
        rootLayer = Layer(root: .root, connection: self, properties: rootProps)
        box.connection = self
        restore(welcome.snapshot)
    }

    // MARK: Requests

    /// Waits until laminad has applied every transaction committed so far (committing the open
    /// implicit one first). Throws the first commit error laminad reported since the last sync.
    public func sync() async throws {
        Transaction.flush()
        try await channel.sync()
    }

    /// The pixels on the display now.
    public func screenshot() async throws -> Bitmap {
        Transaction.flush()
        guard case .screenshot(let b) = try await channel.request(.screenshot) else { throw unexpected("screenshot") }
        return b
    }

    /// laminad's model tree of every client, as JSON (docs/protocol.md).
    public func treeJSON() async throws -> String {
        Transaction.flush()
        guard case .tree(let s) = try await channel.request(.tree) else { throw unexpected("tree") }
        return s
    }

    /// Moves a virtual clock forward; laminad renders the frame at the new time.
    /// Returns the new time and the number of frames rendered so far.
    @discardableResult
    public func advanceClock(by seconds: Double) async throws -> (time: Double, framesRendered: UInt64) {
        Transaction.flush()
        guard case let .advanced(t, f) = try await channel.request(.advanceClock(seconds: seconds)) else { throw unexpected("advance") }
        return (t, f)
    }

    /// laminad's counters.
    public func stats() async throws -> [Statistic] {
        Transaction.flush()
        guard case .stats(let s) = try await channel.request(.stats) else { throw unexpected("stats") }
        return s
    }

    /// Closes the connection. Unless the session keeps them, laminad removes this client's layers.
    public func close() {
        Transaction.flush()
        channel.close()
    }

    private func unexpected(_ what: String) -> LaminaError {
        .protocolViolation("laminad answered a \(what) request with another kind of reply")
    }

    // MARK: Change tracking (called by Layer)

    func noteChanged(_ layer: Layer) {
        if isDirty.insert(ObjectIdentifier(layer)).inserted { dirty.append(layer) }
        Transaction.noteChange(on: self)
    }

    /// Gives `layer` and every sublayer not yet known to laminad a number and marks it for creation.
    func attach(_ layer: Layer) {
        if layer.connection == nil {
            layer.connection = self
            var id = LayerID(nextID)
            while liveIDs.contains(id) { nextID &+= 1; id = LayerID(nextID) }
            nextID &+= 1
            liveIDs.insert(id)
            layer.serverID = id
            layer.needsCreate = true
            layer.structureChanged = !layer.sublayers.isEmpty
            noteChanged(layer)
        }
        for s in layer.sublayers { attach(s) }
    }

    func layerWasReleased(_ id: LayerID) {
        released.append(id)
        liveIDs.remove(id)
        Transaction.noteChange(on: self)
    }

    var hasChanges: Bool { !dirty.isEmpty || !released.isEmpty }

    /// Whether changes wait for the current transaction to commit. Every request (`sync`,
    /// `screenshot`, `stats`, …) commits the implicit transaction first, so it sees them.
    public var hasUncommittedChanges: Bool { hasChanges }

    /// The operations that bring laminad's tree to this client's model, in an order laminad
    /// accepts: creates (with every non-default property), removes, inserts, property sets,
    /// destroys.
    func takeOperations() -> [Operation] {
        var creates: [Operation] = [], removes: [Operation] = [], inserts: [Operation] = [], sets: [Operation] = []
        let defaults = LayerProperties.defaults
        for layer in dirty {
            guard let id = layer.serverID else { continue }
            if layer.needsCreate {
                creates.append(.create(id))
                for key in layer.model.changedKeys(from: defaults) { creates.append(.set(id, key, layer.model[key])) }
                layer.needsCreate = false
            } else {
                for key in layer.changedKeys.keys { sets.append(.set(id, key, layer.model[key])) }
            }
            layer.changedKeys.removeAll()
            if layer.structureChanged {
                let now = layer.sublayers.compactMap(\.serverID)
                let kept = layer.serverSublayers.filter { id in now.contains(id) }
                for old in layer.serverSublayers where !now.contains(old) && !released.contains(old) {
                    removes.append(.remove(old))
                }
                // Inserting a present child moves it, so inserting from the first difference
                // onwards leaves exactly `now`.
                var first = 0
                while first < kept.count, first < now.count, kept[first] == now[first] { first += 1 }
                for i in first..<now.count { inserts.append(.insert(parent: id, child: now[i], index: UInt32(i))) }
                layer.serverSublayers = now
                layer.structureChanged = false
            }
        }
        dirty.removeAll()
        isDirty.removeAll()
        let destroys = released.map { Operation.destroy($0) }
        released.removeAll()
        return creates + removes + inserts + sets + destroys
    }

    /// Rebuilds the layer objects of a resumed session from laminad's snapshot.
    private func restore(_ snapshot: [Operation]) {
        var byID: [LayerID: Layer] = [.root: rootLayer]
        for op in snapshot {
            switch op {
            case .create(let id):
                let l = Layer()
                l.connection = self
                l.serverID = id
                byID[id] = l
                liveIDs.insert(id)
                nextID = max(nextID, id.rawValue &+ 1)
            case let .set(id, key, value):
                byID[id]?.setValue(value, forKey: key)
            case let .insert(parent, child, index):
                if let p = byID[parent], let c = byID[child] { p.insertSublayer(c, at: Int(index)) }
            case .destroy, .remove:
                break
            }
        }
        // What was restored is what the server has: nothing to send.
        for l in byID.values {
            l.changedKeys.removeAll()
            l.structureChanged = false
            l.serverSublayers = l.sublayers.compactMap(\.serverID)
        }
        dirty.removeAll()
        isDirty.removeAll()
        Transaction.forget(self)
        // Layers laminad has but that are in no tree stay alive here until the next commit.
        orphans = byID.values.filter { $0.superlayer == nil && $0 !== rootLayer }
    }

    /// Detached layers of a resumed session, held so they are not destroyed behind the client's back.
    public private(set) var orphans: [Layer] = []

    func commitPending() {
        guard hasChanges else { return }
        let ops = takeOperations()
        guard !ops.isEmpty else { return }
        do throws(LaminaError) {
            try channel.commit(ops)
        } catch {
            onError(error)
        }
    }
}

/// Carries server errors from the reader thread to the connection's `onError` on the main actor.
final class ErrorRelay: @unchecked Sendable {
    // Written once on the main actor before the reader can report anything it matters for;
    // read only inside main-actor tasks.
    nonisolated(unsafe) weak var connection: Connection?

    func deliver(_ error: LaminaError) {
        Task { @MainActor [self] in
            connection?.onError(error)
        }
    }
}

struct StandardError: TextOutputStream {
    mutating func write(_ string: String) {
        var s = string
        s.withUTF8 { p in _ = Glibc.write(2, p.baseAddress, p.count) }
    }
}
