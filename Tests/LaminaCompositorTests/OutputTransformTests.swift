import LaminaCore
import LaminaCompositor
import Testing

@Suite("output transforms")
struct OutputTransformTests {
    func corner(_ t: OutputTransform, _ x: Double, _ y: Double, w: Double = 800, h: Double = 1280) -> (Double, Double) {
        let p = t.matrix(logicalWidth: w, logicalHeight: h).apply(to: Point(x: x, y: y))!
        return (p.x.rounded(), p.y.rounded())
    }

    @Test func quarterTurnsAreClockwise() {
        // An 800x1280 picture on a 1280x800 panel: its top-left goes to the top-right.
        #expect(corner(.rotate90, 0, 0) == (1280, 0))
        #expect(corner(.rotate90, 800, 0) == (1280, 800))
        #expect(corner(.rotate270, 0, 0) == (0, 800))
        #expect(corner(.rotate180, 0, 0, w: 1280, h: 800) == (1280, 800))
        #expect(corner(.flipped, 0, 0, w: 1280, h: 800) == (1280, 0))
        #expect(corner(.normal, 3, 4) == (3, 4))
    }

    @Test func sizesSwapForQuarterTurns() {
        #expect(OutputTransform.rotate90.logicalSize(width: 1280, height: 800) == (800, 1280))
        #expect(OutputTransform.flipped180.logicalSize(width: 1280, height: 800) == (1280, 800))
    }
}
