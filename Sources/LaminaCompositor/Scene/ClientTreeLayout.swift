import LaminaCore
import LaminaProtocol

// Layout in laminad (Core Animation's autoresizing and constraints; the maths is LaminaCore's
// Layout.swift and ConstraintLayout.swift): after a commit, and after the display resized the
// roots, the superlayers that need it lay their sublayers out, top-down. The frames it sets are
// ordinary changes (`TreeChange.set` of bounds and position, journalled), so they animate by the
// layers' actions and roll back with a refused commit.

/// What one layout pass starts from.
struct LayoutRequest {
    /// Superlayers whose sublayers need layout, with their bounds before the change that
    /// prompted it where that changed them (autoresizing follows from that to the present).
    var superlayers: [LayerID: Rect?] = [:]
    /// Layers the commit placed itself (bounds, position or anchor point set) or inserted:
    /// autoresizing leaves them where the commit put them, as Core Animation leaves a frame
    /// set after the superlayer's bounds.
    var placed: Set<LayerID> = []

    /// The layers a commit's changes ask to lay out: the superlayer of every layer whose
    /// geometry, name or constraints changed or that came or went, and every layer whose bounds
    /// changed (with its bounds before the commit).
    init(changes: [TreeChange], tree: ClientTree) {
        func dirtySuperlayer(of id: LayerID) {
            if let s = tree.layers[id]?.superlayer, superlayers[s] == nil { superlayers[s] = .some(nil) }
        }
        for change in changes {
            switch change {
            case let .set(id, key, old):
                switch key {
                case .bounds:
                    if case .rect(let r) = old, superlayers[id] ?? nil == nil { superlayers[id] = r }
                    placed.insert(id)
                    dirtySuperlayer(of: id)
                case .position, .anchorPoint:
                    placed.insert(id)
                    dirtySuperlayer(of: id)
                case .constraints, .name:
                    dirtySuperlayer(of: id)
                default:
                    break
                }
            case let .inserted(id, parent):
                placed.insert(id)
                if superlayers[parent] == nil { superlayers[parent] = .some(nil) }
            case let .removed(_, parent, _):
                if superlayers[parent] == nil { superlayers[parent] = .some(nil) }
            default:
                break
            }
        }
    }

    /// A root whose bounds went from `old` to what they are now (the display resized).
    init(resized root: LayerID, from old: Rect) {
        superlayers[root] = old
    }
}

/// Why a layout pass could not finish.
struct LayoutFailure: Error {
    var code: ErrorCode
    var message: String
}

extension ClientTree {
    /// Lays out what `request` asks for, and what that resizes in turn, top-down. Records each
    /// frame it changes as changes of bounds and position, saving the layer in the journal
    /// first. Returns whether anything moved.
    mutating func layOut(_ request: LayoutRequest, limits: ClientLimits, journal: inout Journal,
                         changes: inout [TreeChange]) throws(LayoutFailure) -> Bool {
        guard !request.superlayers.isEmpty else { return false }
        var oldBounds: [LayerID: Rect] = [:]
        var byDepth: [[LayerID]] = []
        var memo: [LayerID: Int] = [:]
        func enqueue(_ id: LayerID, _ old: Rect?) {
            if let old, oldBounds[id] == nil { oldBounds[id] = old }
            guard let d = depth(of: id, limit: limits.maxDepth, memo: &memo) else { return }
            while byDepth.count <= d { byDepth.append([]) }
            byDepth[d].append(id)
        }
        for (id, old) in request.superlayers.sorted(by: { $0.key < $1.key }) { enqueue(id, old) }
        var done: Set<LayerID> = []
        var solved = 0
        var moved = false
        var d = 0
        while d < byDepth.count {
            for id in byDepth[d] where done.insert(id).inserted {
                let before = changes.count
                let resized = try layOutSublayers(of: id, oldBounds: oldBounds[id], placed: request.placed,
                                                  solved: &solved, limits: limits, journal: &journal, changes: &changes)
                for (sub, old) in resized { enqueue(sub, old) }
                if changes.count > before { moved = true }
            }
            d += 1
        }
        return moved
    }

    /// One superlayer: autoresizing (when its bounds changed from `oldBounds`), then its
    /// sublayers' constraints. Returns the sublayers whose bounds it changed, with their
    /// bounds before, which lay out their own sublayers next.
    private mutating func layOutSublayers(of id: LayerID, oldBounds: Rect?, placed: Set<LayerID>, solved: inout Int,
                                          limits: ClientLimits, journal: inout Journal,
                                          changes: inout [TreeChange]) throws(LayoutFailure) -> [(LayerID, Rect)] {
        guard let k = layers.index(forKey: id) else { return [] }
        let bounds = layers.values[k].properties.bounds
        let sublayers = Array(layers.values[k].sublayers)
        let autoresizes = oldBounds.map { $0 != bounds } ?? false
        // Read in place: most superlayers have no sublayer that uses layout.
        var usesLayout = false, constrained = 0
        for s in sublayers {
            guard let j = layers.index(forKey: s) else { continue }
            let p = layers.values[j].properties
            constrained += p.constraints.count
            if !p.constraints.isEmpty || (autoresizes && !p.autoresizingMask.isEmpty) { usesLayout = true }
        }
        guard usesLayout else { return [] }
        solved += constrained
        guard solved <= limits.maxLayoutConstraints else {
            throw LayoutFailure(code: .limitExceeded, message: "laying out would solve more than \(limits.maxLayoutConstraints) constraints in one pass (max_layout_constraints); layer \(id)'s sublayers have \(constrained)")
        }
        var items = sublayers.map { s in
            let p = layers[s]!.properties
            return ConstraintLayout.Item(name: p.name, frame: p.frame, constraints: p.constraints)
        }
        if let oldBounds, autoresizes {
            for (n, s) in sublayers.enumerated() where !placed.contains(s) {
                let mask = layers[s]!.properties.autoresizingMask
                if !mask.isEmpty { items[n].frame = mask.resized(items[n].frame, oldSuperlayerBounds: oldBounds, newSuperlayerBounds: bounds) }
            }
        }
        var frames = items.map(\.frame)
        if constrained > 0 {
            do throws(ConstraintLayout.Failure) {
                frames = try ConstraintLayout().solve(items, superlayerBounds: bounds)
            } catch {
                throw failure(error, sublayers, items)
            }
        }
        var resized: [(LayerID, Rect)] = []
        for (n, s) in sublayers.enumerated() {
            let before = layers[s]!.properties
            var after = before
            after.frame = frames[n]
            guard after.bounds != before.bounds || after.position != before.position else { continue }
            save(s, &journal)
            layers[s]!.properties.bounds = after.bounds
            layers[s]!.properties.position = after.position
            if after.bounds != before.bounds {
                changes.append(.set(s, .bounds, old: .rect(before.bounds)))
                if !layers[s]!.sublayers.isEmpty { resized.append((s, before.bounds)) }
            }
            if after.position != before.position { changes.append(.set(s, .position, old: .point(before.position))) }
        }
        return resized
    }

    /// The solver's failure, told with the layers' numbers and names.
    private func failure(_ f: ConstraintLayout.Failure, _ ids: [LayerID], _ items: [ConstraintLayout.Item]) -> LayoutFailure {
        func named(_ n: Int) -> String { items[n].name.isEmpty ? "layer \(ids[n])" : "layer \(ids[n]) '\(items[n].name)'" }
        switch f {
        case let .unknownSource(n, c, name):
            let known = items.map(\.name).filter { !$0.isEmpty }.map { "'\($0)'" }
            let hint = known.isEmpty ? "; it has no named siblings" : " (its siblings: \(known.prefix(8).joined(separator: ", ")))"
            return LayoutFailure(code: .invalidProperty,
                                 message: "\(named(n)): constraint \(c) (\(items[n].constraints[c])) is relative to '\(name)', which is neither \"superlayer\" nor a sibling's name\(hint)")
        case let .cycle(n, c, ring):
            let path = (ring + [ring[0]]).map { items[$0].name.isEmpty ? "\(ids[$0])" : items[$0].name }.joined(separator: " → ")
            return LayoutFailure(code: .cycle,
                                 message: "\(named(n)): constraint \(c) (\(items[n].constraints[c])) closes a cycle of constraints (\(path)); a layer's frame cannot depend on itself")
        }
    }
}
