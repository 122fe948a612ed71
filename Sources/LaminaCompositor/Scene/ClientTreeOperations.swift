import LaminaCore
import LaminaProtocol

// A commit's layer operations: create, destroy, set (masks checked), insert, remove, animations
// and actions, each saving what it changes in the commit's journal first.

extension ClientTree {
    /// Keeps layer `id`'s value from before the commit in the journal, the first time the
    /// commit touches it.
    func save(_ id: LayerID, _ journal: inout Journal) {
        guard journal.keepsUndo, !journal.created.contains(id), journal.saved.index(forKey: id) == nil else { return }
        // Read in place (a layer is over 1 KB); a layer that does not exist yet is only noted.
        if let k = layers.index(forKey: id) { journal.saved[id] = layers.values[k] } else { journal.created.insert(id) }
    }

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

    /// Applies layer operation `op` (number `i` of its commit); returns whether pixels may have
    /// changed. Image and video operations are left to `applyImage`.
    mutating func applyOne(_ op: Operation, index i: Int, limits: ClientLimits, journal: inout Journal,
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
            if EmitterProperties.holds(key), layers.values[k].properties.kind == .emitter {
                try checkParticles(layers.values[k].properties.emitter, of: id, i, limits: limits)
                journal.emittersChanged = true
            }
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

        case .createImage, .updateImage, .destroyImage, .createVideo, .controlVideo, .createEncodedImage:
            return false  // applyImage
        case .supplyTile, .dropTiles:
            return false  // applyTile
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
}
