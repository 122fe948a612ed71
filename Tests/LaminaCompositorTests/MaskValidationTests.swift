import Testing
import LaminaCore
import LaminaProtocol
@testable import LaminaCompositor

/// `mask` (key 35) refers to another layer of the same client, outside the sublayer tree.
@Suite("Mask layers in the model tree")
struct MaskValidationTests {
    /// Root ← 1 ← 2; layers 3 and 4 exist outside the tree.
    func tree() throws -> ClientTree {
        var t = ClientTree(displayWidth: 640, displayHeight: 480)
        try t.apply([.create(LayerID(1)), .create(LayerID(2)), .create(LayerID(3)), .create(LayerID(4)),
                     .insert(parent: .root, child: LayerID(1), index: .max),
                     .insert(parent: LayerID(1), child: LayerID(2), index: .max)])
        return t
    }

    func rejection(_ t: inout ClientTree, _ ops: [Operation]) -> CommitRejection? {
        do { try t.apply(ops); return nil } catch { return error }
    }

    @Test func aMaskIsSetAndRemembered() throws {
        var t = try tree()
        try t.apply([.set(LayerID(2), .mask, .layer(3))])
        #expect(t[LayerID(2)]?.properties.mask == 3)
        #expect(t[LayerID(3)]?.maskOf == LayerID(2))
        // Replacing the mask frees the old one, which may then join the tree.
        try t.apply([.set(LayerID(2), .mask, .layer(4))])
        #expect(t[LayerID(3)]?.maskOf == nil && t[LayerID(4)]?.maskOf == LayerID(2))
        try t.apply([.insert(parent: .root, child: LayerID(3), index: .max)])
    }

    @Test func badMasksAreRefusedWithClearErrors() throws {
        var t = try tree()
        let unknown = rejection(&t, [.set(LayerID(2), .mask, .layer(99))])
        #expect(unknown?.code == .unknownLayer)
        #expect(unknown?.message.contains("mask #99 does not exist") == true, "\(unknown?.message ?? "")")
        let itself = rejection(&t, [.set(LayerID(2), .mask, .layer(2))])
        #expect(itself?.code == .notAllowed && itself?.message.contains("cannot mask itself") == true, "\(itself?.message ?? "")")
        let ancestor = rejection(&t, [.set(LayerID(2), .mask, .layer(1))])
        #expect(ancestor?.message.contains("is an ancestor") == true, "\(ancestor?.message ?? "")")
        let root = rejection(&t, [.set(LayerID(2), .mask, .layer(0))])
        #expect(root == nil)  // 0 is nil: no mask
        // A layer in a superlayer cannot be a mask.
        try t.apply([.insert(parent: .root, child: LayerID(4), index: .max)])
        let inTree = rejection(&t, [.set(LayerID(1), .mask, .layer(4))])
        #expect(inTree?.message.contains("has no superlayer") == true, "\(inTree?.message ?? "")")
        // A mask masks one layer, and cannot be inserted into the tree while it is a mask.
        try t.apply([.set(LayerID(2), .mask, .layer(3))])
        let twice = rejection(&t, [.set(LayerID(1), .mask, .layer(3))])
        #expect(twice?.message.contains("already the mask of layer #2") == true, "\(twice?.message ?? "")")
        let insert = rejection(&t, [.insert(parent: .root, child: LayerID(3), index: .max)])
        #expect(insert?.code == .notAllowed && insert?.message.contains("is the mask of layer #2") == true, "\(insert?.message ?? "")")
        // Refused commits leave the tree as it was.
        #expect(t[LayerID(3)]?.superlayer == nil && t[LayerID(2)]?.properties.mask == 3)
    }

    @Test func destroyingAMaskClearsItFromTheMaskedLayer() throws {
        var t = try tree()
        try t.apply([.set(LayerID(2), .mask, .layer(3))])
        let result = try t.apply([.destroy(LayerID(3))])
        #expect(t[LayerID(2)]?.properties.mask == 0)
        #expect(result.changes.contains(.set(LayerID(2), .mask, old: .layer(3))))
        #expect(result.visibleChange)
        // Destroying the masked layer frees its mask.
        try t.apply([.set(LayerID(2), .mask, .layer(4))])
        try t.apply([.destroy(LayerID(2))])
        #expect(t[LayerID(4)]?.maskOf == nil)
        try t.apply([.insert(parent: .root, child: LayerID(4), index: .max)])
    }

    @Test func aSnapshotRebuildsMasks() throws {
        var t = try tree()
        try t.apply([.set(LayerID(2), .mask, .layer(3))])
        var copy = ClientTree(displayWidth: 640, displayHeight: 480)
        try copy.apply(t.snapshot())
        #expect(copy[LayerID(2)]?.properties.mask == 3 && copy[LayerID(3)]?.maskOf == LayerID(2))
    }
}
