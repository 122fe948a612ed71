import Testing
import LaminaCore
import LaminaProtocol
@testable import LaminaCompositor

@Suite("A client's model tree")
struct ClientTreeTests {
    func tree() -> ClientTree { ClientTree(displayWidth: 640, displayHeight: 480) }

    @Test func buildsATree() throws {
        var t = tree()
        let changed = try t.apply([
            .create(LayerID(1)), .create(LayerID(2)),
            .insert(parent: .root, child: LayerID(1), index: .max),
            .insert(parent: LayerID(1), child: LayerID(2), index: 0),
            .set(LayerID(2), .opacity, .number(0.5)),
        ])
        #expect(changed.visibleChange)
        #expect(changed.changes.first == .created(LayerID(1)))
        #expect(t[.root]?.sublayers == [LayerID(1)])
        #expect(t[LayerID(1)]?.sublayers == [LayerID(2)])
        #expect(t[LayerID(2)]?.superlayer == LayerID(1))
        #expect(t[LayerID(2)]?.properties.opacity == 0.5)
    }

    @Test func insertMovesAndOrders() throws {
        var t = tree()
        try t.apply((1...3).map { .create(LayerID($0)) } + (1...3).map { .insert(parent: .root, child: LayerID($0), index: .max) })
        try t.apply([.insert(parent: .root, child: LayerID(3), index: 0)])
        #expect(t[.root]?.sublayers == [LayerID(3), LayerID(1), LayerID(2)])
        try t.apply([.insert(parent: LayerID(1), child: LayerID(2), index: 99)])
        #expect(t[.root]?.sublayers == [LayerID(3), LayerID(1)])
        #expect(t[LayerID(1)]?.sublayers == [LayerID(2)])
    }

    /// A bad operation late in a commit leaves nothing of the earlier ones behind.
    @Test func aRejectedCommitChangesNothing() throws {
        var t = tree()
        try t.apply([.create(LayerID(1)), .insert(parent: .root, child: LayerID(1), index: .max)])
        let before = t.layers
        #expect(throws: CommitRejection(code: .unknownLayer, operationIndex: 4, message: "layer #9 does not exist (it was never created by this client, or was destroyed)")) {
            try t.apply([
                .create(LayerID(2)),
                .insert(parent: LayerID(1), child: LayerID(2), index: 0),
                .set(LayerID(1), .opacity, .number(0.1)),
                .destroy(LayerID(1)),
                .set(LayerID(9), .opacity, .number(1)),
            ])
        }
        #expect(t.layers == before)
    }

    @Test func cyclesAreRefused() throws {
        var t = tree()
        try t.apply([.create(LayerID(1)), .create(LayerID(2)),
                     .insert(parent: LayerID(1), child: LayerID(2), index: 0)])
        #expect(throws: CommitRejection(code: .cycle, operationIndex: 0, message: "inserting #1 into #2 would make #1 its own ancestor")) {
            try t.apply([.insert(parent: LayerID(2), child: LayerID(1), index: 0)])
        }
        #expect(throws: CommitRejection(code: .cycle, operationIndex: 0, message: "inserting #1 into #1 would make #1 its own ancestor")) {
            try t.apply([.insert(parent: LayerID(1), child: LayerID(1), index: 0)])
        }
        #expect(t[LayerID(1)]?.superlayer == nil)
    }

    @Test func theRootIsProtected() {
        var t = tree()
        #expect(throws: CommitRejection.self) { try t.apply([.destroy(.root)]) }
        #expect(throws: CommitRejection.self) { try t.apply([.create(.root)]) }
        #expect(throws: CommitRejection.self) {
            try t.apply([.create(LayerID(1)), .insert(parent: LayerID(1), child: .root, index: 0)])
        }
        #expect(t.layers.count == 1)
    }

    @Test func badValuesNameTheProperty() {
        var t = tree()
        #expect(throws: CommitRejection(code: .invalidProperty, operationIndex: 1, message: "layer #1: property 'position' must be finite (got NaN or infinity)")) {
            try t.apply([.create(LayerID(1)), .set(LayerID(1), .position, .point(Point(x: .infinity, y: 0)))])
        }
        #expect(throws: CommitRejection.self) {
            try t.apply([.create(LayerID(1)), .set(LayerID(1), .opacity, .string("opaque"))])
        }
    }

    @Test func destroyDetachesSublayersAndLimitsHold() throws {
        var t = tree()
        try t.apply([.create(LayerID(1)), .create(LayerID(2)), .insert(parent: .root, child: LayerID(1), index: 0),
                     .insert(parent: LayerID(1), child: LayerID(2), index: 0), .destroy(LayerID(1))])
        #expect(t[LayerID(1)] == nil)
        #expect(t[LayerID(2)]?.superlayer == nil)
        #expect(t[.root]?.sublayers == [])
        #expect(throws: CommitRejection.self) {
            try t.apply((10..<20).map { .create(LayerID($0)) }, limits: ClientLimits(maxLayers: 5))
        }
        #expect(t.layers.count == 2)
    }

    @Test func snapshotRebuildsTheTree() throws {
        var t = tree()
        try t.apply([.create(LayerID(4)), .create(LayerID(2)), .insert(parent: .root, child: LayerID(4), index: 0),
                     .insert(parent: LayerID(4), child: LayerID(2), index: 0), .set(LayerID(2), .backgroundColor, .color(.red)),
                     .set(.root, .opacity, .number(0.5))])
        var copy = tree()
        try copy.apply(t.snapshot())
        #expect(copy.layers == t.layers)
    }
}
