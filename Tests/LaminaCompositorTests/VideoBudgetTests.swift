import Testing
import LaminaTestSupport
import LaminaCore
import LaminaProtocol
@testable import LaminaCompositor

/// A video's decoded frames are image bytes: they count in the budget all clients share
/// (`max_total_image_bytes`) as images do, in an ordinary commit and in a big commit applied in
/// steps, which checks the shared budgets again after each step.
@Suite("Video frames in the image budgets")
struct VideoBudgetTests {
    /// Budgets of 6000 bytes in all; videos of 32×32 pictures (4096 bytes a frame). Client a
    /// (privileged, for screenshots) shows video 1; b is another client.
    func harness() throws -> (CompositorHarness, a: ClientID, b: ClientID) {
        let h = try CompositorHarness(headlessWidth: 32, height: 32) { $0.limits.maxTotalImageBytes = 6000 }
        let video = FakeVideo()
        video.width = 32
        video.height = 32
        h.compositor.videoDecoding = video
        let (a, _) = h.sayHello(peer: .user(1, privileged: true))
        let (b, _) = h.sayHello(peer: .user(2))
        let show: [LaminaProtocol.Operation] = [.createVideo(image: 1, uri: "/clip.webm"), .create(LayerID(1)),
                                                .set(LayerID(1), .bounds, .rect(Rect(x: 0, y: 0, width: 32, height: 32))),
                                                .set(LayerID(1), .contents, .image(1)),
                                                .insert(parent: .root, child: LayerID(1), index: 0)]
        #expect(h.commit(a, show) == .applied(serial: 1))
        return (h, a, b)
    }

    /// Draws a frame (a's screenshot): a's video takes its first picture.
    func drawFrame(_ h: CompositorHarness, _ a: ClientID) {
        h.feed(a, .request(id: 9, .screenshot))
    }

    func commitImage(_ h: CompositorHarness, _ client: ClientID, side: UInt32, serial: UInt32,
                     then more: [LaminaProtocol.Operation] = []) -> ServerMessage? {
        h.outbox[client] = []
        let ops: [LaminaProtocol.Operation] = [.createImage(image: 7, ImageFormat(width: side, height: side))] + more
        let memory = HeapPixelMemory([UInt8](repeating: 0, count: Int(side * side * 4)))
        h.feed(client, .commit(Commit(serial: serial, operations: ops)), attachments: [.memory(memory)])
        return h.outbox[client]?.first
    }

    @Test func anotherClientsVideoFramesCountInAnOrdinaryCommit() throws {
        let (h, a, b) = try harness()
        drawFrame(h, a)
        #expect(h.compositor.model.entries.first?.tree.imageBytes == 4096, "a's video holds its frame")
        // 4096 bytes of b's own would fit the total alone; beside a's frame they do not.
        guard case .error(let e)? = commitImage(h, b, side: 32, serial: 2) else { Issue.record("accepted"); return }
        #expect(e.code == .limitExceeded && e.message.contains("max_total_image_bytes") && e.message.contains("the others hold 4096"),
                "\(e.message)")
        #expect(commitImage(h, b, side: 16, serial: 3) == .applied(serial: 3), "1024 bytes beside 4096 fit")
    }

    @Test func anotherClientsVideoFramesCountBetweenTheStepsOfABigCommit() throws {
        let (h, a, b) = try harness()
        // b's big commit makes a 4096-byte image in its first step, while a's video has no
        // frame yet: it fits then.
        let layers = StagedCommitTests.creates(1000, from: 10)
        #expect(layers.count + 1 > h.compositor.configuration.commitStepOperations)
        #expect(commitImage(h, b, side: 32, serial: 4, then: layers) == nil, "the first step is taken, no answer yet")
        #expect(h.compositor.hasPendingFrame(b))
        // Between the steps a's video draws its first 4096-byte frame …
        drawFrame(h, a)
        #expect(h.compositor.model.entries.first?.tree.imageBytes == 4096)
        // … so the next step finds the shared budget taken, and the whole commit is refused.
        for _ in 0..<4 where h.outbox[b]?.isEmpty ?? true { h.compositor.handlePending(b, frameBudget: 8) }
        guard case .error(let e)? = h.outbox[b]?.first else { Issue.record("not refused: \(String(describing: h.outbox[b]))"); return }
        #expect(e.code == .limitExceeded && e.serial == 4 && e.message.contains("max_total_image_bytes")
                && e.message.contains("the others hold 4096"), "\(e.message)")
        #expect(h.compositor.model.entries.last?.tree.images.isEmpty == true, "nothing of the refused commit stands")
    }
}
