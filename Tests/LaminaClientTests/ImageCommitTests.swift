import Lamina
import LaminaPlatform
import Testing

/// Images: pixels in a sealed memory file that rides on the commit's frame, updates that name
/// only the rectangle rewritten, and creates a destroy cancels before they are sent.
@Suite("commits from images")
@MainActor
struct ImageCommitTests {
    @Test func pixelsTravelAsASealedMemoryFile() throws {
        let server = try ScriptedLaminad()
        let c = try server.connect()
        defer { server.finish(c) }
        let image = try Image(width: 2, height: 1, pixels: [1, 2, 3, 4, 5, 6, 7, 8], connection: c)
        let layer = Layer()
        layer.contents = image
        c.rootLayer.addSublayer(layer)
        Transaction.flush()
        #expect(try server.nextCommit() == [
            .createImage(image: 1, ImageFormat(width: 2, height: 1, stride: 8, order: .rgba, alpha: .premultiplied)),
            .create(LayerID(1)),
            .set(LayerID(1), .contents, .image(1)),
            .insert(parent: .root, child: LayerID(1), index: 0),
        ])
        try #require(server.receivedDescriptors.count == 1)
        // What laminad maps: the client's own pages, so an update needs no copy through the socket.
        let mapping = try ReadOnlyMapping(closing: server.receivedDescriptors[0])
        #expect(mapping.byteCount == 8)
        #expect(Array(UnsafeRawBufferPointer(start: mapping.base, count: 8)) == [1, 2, 3, 4, 5, 6, 7, 8])

        try image.update(rect: PixelRect(x: 1, y: 0, width: 1, height: 1), pixels: [9, 9, 9, 9])
        Transaction.flush()
        #expect(try server.nextCommit() == [.updateImage(image: 1, PixelRect(x: 1, y: 0, width: 1, height: 1))])
        #expect(Array(UnsafeRawBufferPointer(start: mapping.base, count: 8)) == [1, 2, 3, 4, 9, 9, 9, 9])
        #expect(throws: LaminaError.invalidArgument("update rectangle (1, 0, 2×1) is empty or reaches outside the 2×1 image")) {
            try image.update(rect: PixelRect(x: 1, y: 0, width: 2, height: 1), pixels: [UInt8](repeating: 0, count: 8))
        }

        // Made and destroyed within one transaction: laminad never hears of it.
        let brief = try Image(width: 1, height: 1, pixels: [0, 0, 0, 0], connection: c)
        brief.destroy()
        Transaction.flush()
        #expect(try server.nextMessage() == nil)
        #expect(server.receivedDescriptors.count == 1)

        layer.contents = nil
        image.destroy()
        Transaction.flush()
        #expect(try server.nextCommit() == [.set(LayerID(1), .contents, .image(0)), .destroyImage(image: 1)],
                "the destroy goes after the change that stops naming it")
    }

    @Test func wrongSizesAreRefusedBeforeAnythingIsSent() throws {
        let server = try ScriptedLaminad()
        let c = try server.connect()
        defer { server.finish(c) }
        #expect(throws: LaminaError.invalidArgument("a 2×2 image takes 16 bytes of pixels, got 4")) {
            try Image(width: 2, height: 2, pixels: [0, 0, 0, 0], connection: c)
        }
        #expect(throws: LaminaError.self) { try Image(width: 0, height: 1, pixels: [], connection: c) }
        Transaction.flush()
        #expect(try server.nextMessage() == nil)
    }
}
