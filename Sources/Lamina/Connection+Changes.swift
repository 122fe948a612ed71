import LaminaCore
import LaminaPlatform
import LaminaProtocol

/// The change log: what layers and images changed since the last commit, turned into the
/// operations of the next one; and a resumed session's tree made into layer objects.
extension Connection {
    // MARK: Change tracking (called by Layer)

    /// One change waiting for the commit, with the transaction settings in force when it was made.
    struct PendingChange {
        enum Kind {
            /// A property was set: sent with its value at commit time, once, at its last change.
            case set(Layer, PropertyKey)
            /// A layer's sublayers changed: sent as removes and inserts at its last change.
            case structure(Layer)
            /// An operation on an existing layer (animations, actions), made once the layer has a number.
            case operation(Layer, (LayerID) -> Operation)
            /// Nothing to send but the settings (a completion group that must reach laminad).
            case settings
        }
        var kind: Kind
        var settings: TransactionSettings
    }

    func noteChanged(_ layer: Layer) {
        if layer.needsCreate, isDirty.insert(ObjectIdentifier(layer)).inserted { dirty.append(layer) }
        if layer.structureChanged { log.append(PendingChange(kind: .structure(layer), settings: Transaction.currentSettings)) }
        Transaction.noteChange(on: self)
    }

    /// `layer` needs layout before the next commit (`Layer.setNeedsLayout`).
    func noteNeedsLayout(_ layer: Layer) {
        needsLayout.append(WeakLayer(layer))
        Transaction.noteChange(on: self)
    }

    /// Lays out the marked layers, top-down (`Layer.layoutIfNeeded`), before their changes are
    /// committed: what layout sets joins the same commit. Bounded: layout that keeps marking
    /// layers stops after a few rounds.
    func layOutMarkedLayers() {
        for _ in 0..<8 where !needsLayout.isEmpty {
            let marked = needsLayout
            needsLayout.removeAll()
            for w in marked { w.layer?.layoutIfNeeded() }
        }
    }

    /// `layer` needs display before the next commit (`Layer.setNeedsDisplay`).
    func noteNeedsDisplay(_ layer: Layer) {
        needsDisplay.append(WeakLayer(layer))
        Transaction.noteChange(on: self)
    }

    /// Displays the marked layers (`Layer.displayIfNeeded`) after layout and before their
    /// changes are committed: the drawings join the same commit. A layer marked again while
    /// drawing waits for the next commit.
    func displayMarkedLayers() {
        let marked = needsDisplay
        needsDisplay.removeAll()
        for w in marked { w.layer?.displayIfNeeded() }
    }

    /// A property of `layer` changed. With `disableActions`, laminad must not animate it
    /// (the layer's delegate answered the action itself).
    func noteSet(_ layer: Layer, _ key: PropertyKey, disableActions: Bool = false) {
        var settings = Transaction.currentSettings
        if disableActions { settings.disableActions = true }
        log.append(PendingChange(kind: .set(layer, key), settings: settings))
        Transaction.noteChange(on: self)
    }

    /// An animation or action operation for `layer`.
    func noteOperation(_ layer: Layer, _ make: @escaping (LayerID) -> Operation) {
        log.append(PendingChange(kind: .operation(layer, make), settings: Transaction.currentSettings))
        Transaction.noteChange(on: self)
    }

    /// A transaction with a completion block closed; returns false when this connection has
    /// nothing pending (so it will not report the group).
    func markCompletion(_ settings: TransactionSettings) -> Bool {
        guard hasChanges else { return false }
        log.append(PendingChange(kind: .settings, settings: settings))
        return true
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
            layers[id] = WeakLayer(layer)
            layer.needsCreate = true
            layer.structureChanged = !layer.sublayers.isEmpty
            noteChanged(layer)
            layer.sendPendingAnimations()
            // Marked before it was in a tree: it displays before this commit.
            if layer.needsDisplayFlag { noteNeedsDisplay(layer) }
        }
        for s in layer.sublayers { attach(s) }
        if let m = layer.maskLayer {
            attach(m)
            layer.refreshMaskNumber()
        }
    }

    func layerWasReleased(_ id: LayerID) {
        released.append(id)
        liveIDs.remove(id)
        layers[id] = nil
        Transaction.noteChange(on: self)
    }

    var hasChanges: Bool {
        !dirty.isEmpty || !released.isEmpty || !log.isEmpty || !imageOperations.isEmpty || !imageDestroys.isEmpty
            || !tileOperations.isEmpty
    }

    /// A number for a new image.
    func registerImage() -> UInt32 {
        defer { nextImage = nextImage == .max ? 1 : nextImage + 1 }
        return nextImage
    }

    /// A new image, remembered (weakly) so a reconnection can send it again.
    func imageCreated(_ image: Image) { liveImages[image.number] = WeakImage(image) }

    /// An image create (with its memory file's descriptor) or update, sent with the next commit.
    func noteImageOperation(_ op: Operation, descriptor: Int32? = nil, keeping memory: SharedMemoryFile? = nil) {
        imageOperations.append(op)
        if let descriptor { imageDescriptors.append(descriptor) }
        if let memory { imageMemories.append(memory) }
        Transaction.noteChange(on: self)
    }

    /// An image goes; a create still pending for it is dropped with its updates.
    func noteImageDestroyed(_ number: UInt32) {
        guard !isClosed else { return }
        if let i = imageOperations.firstIndex(where: {
            switch $0 {
            case .createImage(number, _), .createEncodedImage(number, _, _): true
            default: false
            }
        }) {
            let created = imageOperations.prefix(through: i).filter { $0.descriptorCount > 0 }.count - 1
            imageDescriptors.remove(at: created)
            imageMemories.remove(at: created)
            imageOperations.removeAll {
                switch $0 {
                case .createImage(number, _), .updateImage(number, _), .createEncodedImage(number, _, _): true
                default: false
                }
            }
            return
        }
        imageDestroys.append(.destroyImage(image: number))
        Transaction.noteChange(on: self)
    }

    /// Whether changes wait for the current transaction to commit. Every request (`sync`,
    /// `screenshot`, `stats`, …) commits the implicit transaction first, so it sees them.
    public var hasUncommittedChanges: Bool { hasChanges }

    /// The operations that bring laminad's tree to this client's model, in an order laminad
    /// accepts: creates (with every non-default property), then the changes in the order they
    /// were made, each under the transaction settings it was made with, then destroys.
    func takeOperations() -> [Operation] {
        var ops: [Operation] = []
        var created: Set<ObjectIdentifier> = []
        // Every create before any set: a set may name another new layer (`mask`).
        let creating = dirty.filter { $0.needsCreate && $0.serverID != nil }
        for layer in creating { ops.append(.create(layer.serverID!, kind: layer.kind)) }
        for layer in creating {
            let id = layer.serverID!
            for key in layer.keysToCreate { ops.append(.set(id, key, layer.wireValue(key))) }
            layer.needsCreate = false
            created.insert(ObjectIdentifier(layer))
        }
        // A value is sent once, at its last change; a sublayer list once, at its last change.
        var lastSet: [SetKey: Int] = [:]
        var lastStructure: [ObjectIdentifier: Int] = [:]
        for (i, change) in log.enumerated() {
            switch change.kind {
            case let .set(layer, key): lastSet[SetKey(layer: ObjectIdentifier(layer), key: key)] = i
            case .structure(let layer): lastStructure[ObjectIdentifier(layer)] = i
            default: break
            }
        }
        var current = TransactionSettings.default
        func settings(_ s: TransactionSettings) {
            if s != current {
                ops.append(.settings(s))
                current = s
            }
        }
        for (i, change) in log.enumerated() {
            switch change.kind {
            case let .set(layer, key):
                guard lastSet[SetKey(layer: ObjectIdentifier(layer), key: key)] == i, let id = layer.serverID,
                      !created.contains(ObjectIdentifier(layer)) else { continue }
                settings(change.settings)
                ops.append(.set(id, key, layer.wireValue(key)))
            case .structure(let layer):
                guard lastStructure[ObjectIdentifier(layer)] == i, let id = layer.serverID else { continue }
                settings(change.settings)
                ops += structureOperations(layer, id)
            case let .operation(layer, make):
                guard let id = layer.serverID else { continue }
                settings(change.settings)
                ops.append(make(id))
            case .settings:
                settings(change.settings)
            }
        }
        log.removeAll()
        dirty.removeAll()
        isDirty.removeAll()
        ops += released.map { Operation.destroy($0) }
        released.removeAll()
        return ops
    }

    struct SetKey: Hashable {
        var layer: ObjectIdentifier
        var key: PropertyKey
    }

    /// Removes and inserts that turn the server's sublayer list of `layer` into the current one.
    /// A sublayer that moved to another superlayer is not removed here: inserting it there
    /// moves it, whichever of the two changes is sent first.
    func structureOperations(_ layer: Layer, _ id: LayerID) -> [Operation] {
        var ops: [Operation] = []
        let now = layer.sublayers.compactMap(\.serverID)
        for old in layer.serverSublayers where !now.contains(old) && !released.contains(old) {
            if layers[old]?.layer?.superlayer == nil { ops.append(.remove(old)) }
        }
        // Inserting a present child moves it, so inserting from the first difference onwards
        // leaves exactly `now`.
        let kept = layer.serverSublayers.filter { now.contains($0) }
        var first = 0
        while first < kept.count, first < now.count, kept[first] == now[first] { first += 1 }
        for i in first..<now.count { ops.append(.insert(parent: id, child: now[i], index: UInt32(i))) }
        layer.serverSublayers = now
        layer.structureChanged = false
        return ops
    }

    /// Rebuilds the layer objects of a resumed session from laminad's snapshot.
    func restore(_ snapshot: [Operation]) {
        // The session's layers may show images made by an earlier client: new ones get numbers above them.
        for op in snapshot {
            if case .set(_, .contents, .image(let n)) = op, n >= nextImage { nextImage = n == .max ? 1 : n + 1 }
        }
        var byID: [LayerID: Layer] = [.root: rootLayer]
        for op in snapshot {
            switch op {
            case let .create(id, kind):
                let l = Layer.make(kind: kind)
                l.connection = self
                l.serverID = id
                byID[id] = l
                layers[id] = WeakLayer(l)
                liveIDs.insert(id)
                nextID = max(nextID, id.rawValue &+ 1)
            case let .set(id, key, value):
                byID[id]?.setValue(value, forKey: key)
                if key == .mask, case .layer(let n) = value { byID[id]?.restoreMask(byID[LayerID(rawValue: n)]) }
            case let .insert(parent, child, index):
                if let p = byID[parent], let c = byID[child] { p.insertSublayer(c, at: Int(index)) }
            case let .setAction(id, dictionary, key, action):
                byID[id]?.restoreAction(action, forKey: key, in: dictionary)
            default:
                break
            }
        }
        // What was restored is what the server has: nothing to send.
        for l in byID.values {
            l.structureChanged = false
            l.serverSublayers = l.sublayers.compactMap(\.serverID)
        }
        dirty.removeAll()
        isDirty.removeAll()
        log.removeAll()
        Transaction.forget(self)
        // Layers laminad has but that are in no tree: held in `orphans` so they are not destroyed behind the client's back.
        orphans = byID.values.filter { $0.superlayer == nil && $0 !== rootLayer }
    }

    func commitPending() {
        guard hasChanges else { return }
        // Disconnected: the model keeps the changes, and the replay on reconnection sends them.
        guard isConnected else { return discardPending() }
        noteSentDuringResync()
        let ops = imageOperations + takeOperations() + tileOperations + imageDestroys
        let descriptors = imageDescriptors
        let memories = imageMemories
        imageOperations = []
        imageDestroys = []
        tileOperations = []
        imageDescriptors = []
        imageMemories = []
        guard !ops.isEmpty else { return }
        do throws(LaminaError) {
            // The memory files stay open (held by their images) until the frame is sent.
            try withExtendedLifetime(memories) { () throws(LaminaError) in _ = try channel.commit(ops, descriptors: descriptors) }
        } catch {
            onError(error)
        }
    }
}
