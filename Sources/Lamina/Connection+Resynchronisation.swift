import LaminaCore
import LaminaProtocol

/// Putting the model back to what laminad holds after it refused a commit.
extension Connection {
    // MARK: Resynchronisation

    /// An error from laminad about a commit or the connection (the relay's path to `onError`).
    func serverError(_ error: LaminaError) {
        onError(error)
        guard error.serverError?.subject == .commit else { return }
        if resyncTask != nil { resyncAgain = true } else { resyncTask = Task { await resynchronise() } }
    }

    /// Notes what a commit about to be sent changes, while a resynchronisation waits.
    func noteSentDuringResync() {
        guard var sent = sentDuringResync else { return }
        for change in log {
            switch change.kind {
            case let .set(layer, key): sent.sets.insert(SetKey(layer: ObjectIdentifier(layer), key: key))
            case .structure(let layer), .operation(let layer, _): sent.layers.insert(ObjectIdentifier(layer))
            case .settings: break
            }
        }
        for layer in dirty { sent.layers.insert(ObjectIdentifier(layer)) }
        sentDuringResync = sent
    }

    /// Makes the model what laminad holds, after it refused a commit: laminad applies a commit
    /// whole or not at all, so the refused transaction's values, new layers, sublayer changes
    /// and animations are in the client's model but not in laminad's tree. This asks for this
    /// client's tree (request `snapshot`, answered after every commit sent before it) and puts
    /// the model back: property values, sublayer lists (layers laminad never created are
    /// removed from their superlayers), actions, and the keys of explicit animations. Changes
    /// made since, not yet committed, are left as they are and sent with the next commit.
    public func resynchronise() async {
        defer { resyncTask = nil }
        repeat {
            resyncAgain = false
            await resynchroniseOnce()
        } while resyncAgain
    }

    func resynchroniseOnce() async {
        // Changes waiting now go first, so the snapshot shows them.
        Transaction.flush()
        sentDuringResync = ([], [])
        let reply = try? await channel.request(.snapshot)
        let sent = sentDuringResync ?? ([], [])
        sentDuringResync = nil
        guard isConnected, case .snapshot(let ops)? = reply else { return }
        // laminad's tree.
        var props: [LayerID: LayerProperties] = [.root: LayerProperties()]
        var sublayers: [LayerID: [LayerID]] = [:]
        var actions: [LayerID: [String: Action]] = [:]
        var styleActions: [LayerID: [String: Action]] = [:]
        var animationKeys: [LayerID: Set<String>] = [:]
        for op in ops {
            switch op {
            case let .create(id, kind): props[id] = LayerProperties(kind: kind)
            case let .set(id, key, value): try? props[id]?.set(key, value)
            case let .insert(parent, child, _): sublayers[parent, default: []].append(child)
            case let .setAction(id, .actions, key, action): actions[id, default: [:]][key] = action
            case let .setAction(id, .style, key, action): styleActions[id, default: [:]][key] = action
            case let .addAnimation(id, key, _, _): animationKeys[id, default: []].insert(key)
            default: break
            }
        }
        // What the client changed since, still to be sent: left alone.
        var pendingSets = sent.sets
        var pendingStructure = sent.layers
        var pendingOperations = sent.layers
        for change in log {
            switch change.kind {
            case let .set(layer, key): pendingSets.insert(SetKey(layer: ObjectIdentifier(layer), key: key))
            case .structure(let layer): pendingStructure.insert(ObjectIdentifier(layer))
            case .operation(let layer, _): pendingOperations.insert(ObjectIdentifier(layer))
            case .settings: break
            }
        }
        let (savedLog, savedDirty, savedIsDirty) = (log, dirty, isDirty)
        let all = allLayers()
        for l in all {
            guard let id = l.serverID, !l.needsCreate else { continue }
            let me = ObjectIdentifier(l)
            guard let server = props[id] else {
                // Created in a refused commit: laminad never had it. It leaves the tree and
                // this connection (with its animations, which laminad never ran); added again,
                // it is created afresh.
                l.removeFromSuperlayer()
                l.animationState.attached.removeAll()
                l.connection = nil
                l.serverID = nil
                layers[id] = nil
                liveIDs.remove(id)
                continue
            }
            for key in l.model.changedKeys(from: server) where !pendingSets.contains(SetKey(layer: me, key: key)) {
                let value = server[key]
                switch (key, value) {
                case (.mask, .layer(let n)): l.restoreMask(n == 0 ? nil : layers[LayerID(n)]?.layer)
                case (.contents, .image(let n)): l.contentsImage = n == 0 ? nil : liveImages[n]?.image
                default: break
                }
                l.setValue(value, forKey: key)
            }
            if !pendingStructure.contains(me) {
                let now = l.sublayers.compactMap(\.serverID)
                let theirs = sublayers[id] ?? []
                if now != theirs {
                    for child in l.sublayers { child.removeFromSuperlayer() }
                    for child in theirs.compactMap({ layers[$0]?.layer }) { l.insertSublayer(child, at: l.sublayers.count) }
                }
                l.structureChanged = false
                l.serverSublayers = l.sublayers.compactMap(\.serverID)
            }
            if !pendingOperations.contains(me) {
                let keys = animationKeys[id] ?? []
                l.animationState.attached.removeAll { $0.sent && $0.key.map { !keys.contains($0) } ?? false }
                l.animationState.actions = actions[id] ?? [:]
                l.animationState.styleActions = styleActions[id] ?? [:]
            }
        }
        // Putting the model back is not a change to send.
        (log, dirty, isDirty) = (savedLog, savedDirty, savedIsDirty)
        if !hasChanges { Transaction.forget(self) }
    }
}
