import Testing
import LaminaCore
import LaminaProtocol
import LaminaCompositor
import LaminaTestSupport

/// Animated images in the compositor (CompositorAnimatedImages.swift): frames chosen by the
/// clock from the commit that made the image, and on a real clock the repaint loop woken when
/// the next frame is due, with nothing drawn in between.
@Suite("Animated images")
struct AnimatedImageTests {
    final class Clock: @unchecked Sendable { var now = 100.0 }

    /// Decodes any file to two flat 2 × 2 frames, red for 0.1 s then green for 0.2 s, looping.
    final class TwoFrames: EncodedImageDecoding {
        func decode(_ format: EncodedImageFormat, _ bytes: UnsafeRawBufferPointer, maximumFileBytes: Int,
                    maximumPixelBytes: Int) throws(ImageDecodingFailure) -> DecodedImage {
            let red = Bitmap(width: 2, height: 2, bytes: Array([UInt8]([255, 0, 0, 255]).repeated(4)))!
            let green = Bitmap(width: 2, height: 2, bytes: Array([UInt8]([0, 255, 0, 255]).repeated(4)))!
            return .frames([red, green], delays: [0.1, 0.2], loopCount: 0)
        }
    }

    @Test("on a real clock the loop sleeps until the next frame is due, and draws it then")
    func realClockWakesAtFrameBoundaries() throws {
        let clock = Clock()
        let h = CompositorHarness(presenter: try HeadlessDisplay(width: 32, height: 32).presenter,
                                  clock: FrameClock(.real(refreshRate: 60)), realTime: { clock.now })
        h.compositor.imageDecoder = TwoFrames()
        let a = h.hello("a")
        h.feed(a, .commit(Commit(serial: 1, operations: [
            .createEncodedImage(image: 1, .gif, byteCount: 4), .create(LayerID(1)),
            .set(LayerID(1), .bounds, .rect(Rect(x: 0, y: 0, width: 32, height: 32))),
            .set(LayerID(1), .position, .point(Point(x: 16, y: 16))), .set(LayerID(1), .contents, .image(1)),
            .insert(parent: .root, child: LayerID(1), index: .max),
        ])), attachments: [.memory(HeapPixelMemory([0, 0, 0, 0]))])
        #expect(h.take(a) == [.applied(serial: 1)])
        func shown() -> Int? { h.compositor.model.entries.first?.tree.encodedImages[1]?.shownFrame }
        #expect(h.fireFrameTimer())
        #expect(shown() == 0)
        // Asleep until 100.1: no frame is wanted before then.
        #expect(h.compositor.repaint.timed?.time == 100.1 && h.timer.armedAt == 100.1)
        let frames = h.compositor.stats.framesRendered
        clock.now = 100.1
        #expect(h.fireFrameTimer())
        #expect(h.compositor.stats.framesRendered == frames + 1 && shown() == 1)
        #expect(h.timer.armedAt.map { abs($0 - 100.3) < 1e-9 } == true, "then at 100.3, red again")
        // The frame drawn shows it: green where the layer is.
        let shot = try h.screenshot(a)
        #expect(shot.pixel(x: 16, y: 16).g > 200 && shot.pixel(x: 16, y: 16).r < 50)
    }
}

extension Array {
    func repeated(_ n: Int) -> [Element] { (0..<n).flatMap { _ in self } }
}
