import Glibc
import Lamina
import LaminaPlatform
import Testing

/// What an application's layer changes become on the wire: the operations of each commit, in
/// the order laminad applies them, under the transaction settings they were made with.
/// Each test is synchronous on the main actor, so no implicit commit runs in the middle; it
/// commits with `Transaction.flush()` or the outermost `commit()`, as the run loop would.
@Suite("commits from layers and transactions")
@MainActor
struct CommitTests {
    static let root = LayerID.root

    @Test func helloAndWelcome() throws {
        let server = try ScriptedLaminad()
        let c = try server.connect(name: "kiosk", session: "wall", keepLayers: true)
        defer { server.finish(c) }
        #expect(server.hello == Hello(clientName: "kiosk", session: "wall", flags: .keepLayers))
        #expect(c.clientID == 7 && c.clock == .virtual && c.currentMediaTime == 100 && !c.isResumedSession)
        #expect(c.displaySize == Size(width: 640, height: 480))
        #expect(c.rootLayer.bounds == Rect(x: 0, y: 0, width: 640, height: 480) && c.rootLayer.position == Point(x: 320, y: 240))
        Transaction.flush()
        #expect(try server.nextMessage() == nil, "nothing to send before a change")
    }

    @Test func noDaemonIsAnErrorNamingThePath() {
        let path = "/nonexistent/lamina.sock"
        #expect(throws: LaminaError.connectionFailed("cannot connect to laminad at \(path) (--socket): No such file or directory")) {
            try Connection.connect(to: path)
        }
    }

    /// A new subtree: every create first (with the properties that differ from the kind's
    /// defaults), then the inserts, the deepest layer's parent first.
    @Test func aNewSubtreeIsCreatedThenInserted() throws {
        let server = try ScriptedLaminad()
        let c = try server.connect()
        defer { server.finish(c) }
        let parent = Layer()
        parent.frame = Rect(x: 10, y: 20, width: 100, height: 50)
        parent.backgroundColor = .red
        let child = Layer.make(kind: .gradient)
        child.opacity = 0.5
        parent.addSublayer(child)
        c.rootLayer.addSublayer(parent)
        #expect(c.hasUncommittedChanges)
        Transaction.flush()
        #expect(try server.nextCommit() == [
            .create(LayerID(1)), .create(LayerID(2), kind: .gradient),
            .set(LayerID(1), .bounds, .rect(Rect(x: 0, y: 0, width: 100, height: 50))),
            .set(LayerID(1), .position, .point(Point(x: 60, y: 45))),
            .set(LayerID(1), .backgroundColor, .color(.red)),
            .set(LayerID(2), .opacity, .number(0.5)),
            .insert(parent: LayerID(1), child: LayerID(2), index: 0),
            .insert(parent: Self.root, child: LayerID(1), index: 0),
        ])
        #expect(!c.hasUncommittedChanges)
    }

    /// A property changed several times in a transaction is sent once, with its last value,
    /// in the place of its last change.
    @Test func aValueIsSentOnceAtItsLastChange() throws {
        let server = try ScriptedLaminad()
        let (c, layer) = try server.connectWithOneLayer()
        defer { server.finish(c) }
        layer.opacity = 0.5
        layer.position = Point(x: 1, y: 2)
        layer.opacity = 0.25
        Transaction.flush()
        #expect(try server.nextCommit() == [
            .set(LayerID(1), .position, .point(Point(x: 1, y: 2))),
            .set(LayerID(1), .opacity, .number(0.25)),
        ])
        Transaction.flush()
        #expect(try server.nextMessage() == nil, "nothing changed since")
    }

    /// Nested transactions: one commit when the outermost closes; the inner one inherits the
    /// duration, and its own `disableActions` covers only its changes.
    @Test func nestedTransactionsSendTheirSettingsWithTheirChanges() throws {
        let server = try ScriptedLaminad()
        let (c, layer) = try server.connectWithOneLayer()
        defer { server.finish(c) }

        Transaction.begin()
        Transaction.animationDuration = 2
        layer.opacity = 0
        Transaction.begin()
        Transaction.disableActions = true
        #expect(Transaction.animationDuration == 2)
        layer.position = Point(x: 5, y: 5)
        Transaction.commit()
        #expect(!Transaction.disableActions && Transaction.animationDuration == 2)
        #expect(try server.nextMessage() == nil, "nothing is sent while the outer transaction is open")
        layer.bounds = Rect(x: 0, y: 0, width: 8, height: 8)
        Transaction.commit()
        #expect(Transaction.animationDuration == 0.25, "back to the default")
        #expect(try server.nextCommit() == [
            .settings(TransactionSettings(duration: 2)),
            .set(LayerID(1), .opacity, .number(0)),
            .settings(TransactionSettings(duration: 2, disableActions: true)),
            .set(LayerID(1), .position, .point(Point(x: 5, y: 5))),
            .settings(TransactionSettings(duration: 2)),
            .set(LayerID(1), .bounds, .rect(Rect(x: 0, y: 0, width: 8, height: 8))),
        ])
    }

    /// Reordering sends inserts from the first difference on; a removal is a remove.
    @Test func sublayerMovesBecomeInsertsAndRemoves() throws {
        let server = try ScriptedLaminad()
        let c = try server.connect()
        defer { server.finish(c) }
        let (a, b, d) = (Layer(), Layer(), Layer())
        c.rootLayer.sublayers = [a, b, d]
        Transaction.flush()
        #expect(try server.nextCommit() == [
            .create(LayerID(1)), .create(LayerID(2)), .create(LayerID(3)),
            .insert(parent: Self.root, child: LayerID(1), index: 0),
            .insert(parent: Self.root, child: LayerID(2), index: 1),
            .insert(parent: Self.root, child: LayerID(3), index: 2),
        ])
        c.rootLayer.insertSublayer(d, above: a)
        Transaction.flush()
        #expect(try server.nextCommit() == [
            .insert(parent: Self.root, child: LayerID(3), index: 1),
            .insert(parent: Self.root, child: LayerID(2), index: 2),
        ])
        b.removeFromSuperlayer()
        Transaction.flush()
        #expect(try server.nextCommit() == [.remove(LayerID(2))])
        // Moved to another superlayer: the insert there moves it, no remove.
        a.addSublayer(d)
        Transaction.flush()
        #expect(try server.nextCommit() == [.insert(parent: LayerID(1), child: LayerID(3), index: 0)])
    }

    /// `compositingFilter` and `cornerCurve` (protocol 1.7) go as their Core Animation names;
    /// a nil compositing filter as the empty name.
    @Test func blendModeAndCornerCurveGoByName() throws {
        let server = try ScriptedLaminad()
        let (c, layer) = try server.connectWithOneLayer()
        defer { server.finish(c) }
        #expect(layer.compositingFilter == nil && layer.cornerCurve == .circular)
        layer.compositingFilter = .softLight
        layer.cornerCurve = .continuous
        Transaction.flush()
        #expect(try server.nextCommit() == [
            .set(LayerID(1), .compositingFilter, .string("softLightBlendMode")),
            .set(LayerID(1), .cornerCurve, .string("continuous")),
        ])
        #expect(layer.compositingFilter == .softLight && layer.cornerCurve == .continuous)
        layer.compositingFilter = nil
        Transaction.flush()
        #expect(try server.nextCommit() == [.set(LayerID(1), .compositingFilter, .string(""))])
        #expect(layer.compositingFilter == nil)
    }

    /// `filters` go as one filter-list value; an input animates by `filters.NAME.input`.
    @Test func filtersGoAsAListAndAnimateByKeyPath() throws {
        let server = try ScriptedLaminad()
        let (c, layer) = try server.connectWithOneLayer()
        defer { server.finish(c) }
        #expect(layer.filters.isEmpty)
        let list: [Filter] = [.gaussianBlur("soft", radius: 8), .amount("grey", .saturate, 0.2)]
        layer.filters = list
        Transaction.flush()
        #expect(try server.nextCommit() == [.set(LayerID(1), .filters, .filters(list))])
        #expect(layer.filters == list)
        let blur = BasicAnimation(keyPath: "filters.soft.inputRadius", fromValue: .number(8), toValue: .number(20))
        layer.add(.basic(blur), forKey: "blur")
        Transaction.flush()
        let ops = try server.nextCommit()
        guard case .addAnimation(LayerID(1), "blur", _, .basic(let sent))? = ops.first else {
            Issue.record("expected the blur animation, got \(ops)")
            return
        }
        #expect(sent.keyPath == "filters.soft.inputRadius" && sent.toValue == .number(20))
    }
}
