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
    public var sublayers: [LayerID] = []
    /// `CALayer.actions`: entries are `.none` (a null action) or an animation.
    public var actions: [String: Action] = [:]
    /// `style["actions"]`, searched after `actions`.
    public var styleActions: [String: Action] = [:]
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
    case destroyed(LayerID, ServerLayer)
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
    public init(maxLayers: Int = 100_000, maxOperationsPerCommit: Int = 1_000_000) {
        self.maxLayers = maxLayers
        self.maxOperationsPerCommit = maxOperationsPerCommit
    }
}

/// One client's layers: the part of the model tree it owns, rooted at its root layer (`LayerID.root`).
///
/// Layer numbers are the client's own, so no operation can reach another client's layers.
public struct ClientTree: Sendable {
    public internal(set) var layers: [LayerID: ServerLayer]

    /// A tree holding only the root layer, sized to the display.
    public init(displayWidth: Double, displayHeight: Double) {
        var root = ServerLayer()
        root.properties.bounds = Rect(x: 0, y: 0, width: displayWidth, height: displayHeight)
        root.properties.position = Point(x: displayWidth / 2, y: displayHeight / 2)
        layers = [.root: root]
    }

    public subscript(id: LayerID) -> ServerLayer? { layers[id] }

    /// Sizes the root layer to a display of this size (bounds at the origin, centred).
    mutating func fitRoot(width: Double, height: Double) {
        layers[.root]?.properties.bounds = Rect(x: 0, y: 0, width: width, height: height)
        layers[.root]?.properties.position = Point(x: width / 2, y: height / 2)
    }

    /// Applies a commit's operations in order, all or none: on the first bad operation the tree
    /// is left exactly as it was and the rejection names that operation.
    /// Returns what changed. Animation operations are validated here (the layer exists, the
    /// animation is well formed) and handed back for the compositor to attach.
    @discardableResult
    public mutating func apply(_ ops: [Operation], limits: ClientLimits = ClientLimits()) throws(CommitRejection) -> CommitResult {
        guard ops.count <= limits.maxOperationsPerCommit else {
            throw CommitRejection(code: .limitExceeded, operationIndex: -1,
                                  message: "a commit may hold at most \(limits.maxOperationsPerCommit) operations, this one has \(ops.count)")
        }
        // The first value of every layer this commit touches, to restore on failure.
        var journal = Journal()
        var result = CommitResult()
        for (i, op) in ops.enumerated() {
            do throws(CommitRejection) {
                if try applyOne(op, index: i, limits: limits, journal: &journal, changes: &result.changes) {
                    result.visibleChange = true
                }
            } catch {
                for (id, old) in journal.saved { layers[id] = old }
                throw error
            }
        }
        return result
    }

    /// The value each touched layer had before the commit began (nil: it did not exist).
    private struct Journal {
        var saved: [LayerID: ServerLayer?] = [:]
    }

    private func save(_ id: LayerID, _ journal: inout Journal) {
        if journal.saved[id] == nil { journal.saved[id] = .some(layers[id]) }
    }

    private func existing(_ id: LayerID, _ i: Int, _ role: String = "layer") throws(CommitRejection) -> ServerLayer {
        guard let l = layers[id] else {
            throw CommitRejection(code: .unknownLayer, operationIndex: i, message: "\(role) \(id) does not exist (it was never created by this client, or was destroyed)")
        }
        return l
    }

    private mutating func detach(_ id: LayerID, journal: inout Journal, changes: inout [TreeChange]) {
        guard let parent = layers[id]?.superlayer else { return }
        save(parent, &journal)
        save(id, &journal)
        let index = layers[parent]?.sublayers.firstIndex(of: id) ?? 0
        layers[parent]?.sublayers.removeAll { $0 == id }
        layers[id]?.superlayer = nil
        changes.append(.removed(id, from: parent, at: index))
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
                throw CommitRejection(code: .limitExceeded, operationIndex: i, message: "a client may hold at most \(limits.maxLayers) layers")
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
            let visible = layer.superlayer != nil
            detach(id, journal: &journal, changes: &changes)
            for child in layer.sublayers {
                save(child, &journal)
                layers[child]?.superlayer = nil
            }
            save(id, &journal)
            changes.append(.destroyed(id, layers[id]!))
            layers[id] = nil
            return visible

        case let .set(id, key, value):
            var layer = try existing(id, i)
            let old = layer.properties[key]
            do throws(PropertyError) {
                try layer.properties.set(key, value)
            } catch {
                throw CommitRejection(code: .invalidProperty, operationIndex: i, message: "layer \(id): \(error)")
            }
            guard layer.properties[key] != old else { return false }
            save(id, &journal)
            layers[id] = layer
            changes.append(.set(id, key, old: old))
            return true

        case let .insert(parent, child, index):
            _ = try existing(parent, i, "superlayer")
            _ = try existing(child, i, "sublayer")
            guard child != .root else {
                throw CommitRejection(code: .notAllowed, operationIndex: i, message: "the root layer #0 cannot be made a sublayer")
            }
            // Walk up from the new parent: meeting the child means the child would be its own ancestor.
            var cursor: LayerID? = parent
            while let c = cursor {
                if c == child {
                    throw CommitRejection(code: .cycle, operationIndex: i,
                                          message: "inserting \(child) into \(parent) would make \(child) its own ancestor")
                }
                cursor = layers[c]?.superlayer
            }
            detach(child, journal: &journal, changes: &changes)
            save(parent, &journal)
            save(child, &journal)
            let subs = layers[parent]!.sublayers
            let at = index == UInt32.max ? subs.count : min(Int(index), subs.count)
            layers[parent]!.sublayers.insert(child, at: at)
            layers[child]!.superlayer = parent
            changes.append(.inserted(child, into: parent))
            return true

        case .remove(let id):
            let layer = try existing(id, i)
            detach(id, journal: &journal, changes: &changes)
            return layer.superlayer != nil

        case let .addAnimation(id, _, _, animation):
            _ = try existing(id, i)
            if let problem = animation.validate().first {
                throw CommitRejection(code: .invalidAnimation, operationIndex: i, message: "layer \(id): \(problem)")
            }
            changes.append(.animation(op))
            return false

        case .removeAnimation(let id, _), .removeAllAnimations(let id):
            _ = try existing(id, i)
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
