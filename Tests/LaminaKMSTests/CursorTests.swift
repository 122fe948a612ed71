import LaminaCore
import LaminaKMS
import LaminaCompositor
import Testing

/// The cursor's arithmetic, hand-computed: a desktop point → the output holding it → the panel
/// pixel under the hot spot (through the output's origin, scale and transform) → where the
/// turned arrow's buffer goes (that pixel less the turned hot spot).
@Suite("cursor placement")
struct CursorPlacementTests {
    /// The panel pixel under the hot spot and the turned arrow's hot spot, for one transform.
    struct Expected {
        var transform: OutputTransform
        var pixel: (x: Int, y: Int)
        var hot: (x: Int, y: Int)
    }

    /// Point (100, 200) on a 1280x800 panel at the desktop's origin, scale 1. The logical pixel
    /// (100, 200) has its centre at (100.5, 200.5); each transform moves that centre:
    /// - 90: (x, y) → (h − y, x), h = 1280 (the picture is 800x1280): (1079.5, 100.5);
    /// - 180: (1280 − x, 800 − y): (1179.5, 599.5);
    /// - 270: (y, w − x), w = 800: (200.5, 699.5);
    /// - flipped: (1280 − x, y): (1179.5, 200.5);
    /// - flipped-90: mirror in the 800-wide picture (699.5, 200.5), then 90: (1079.5, 699.5);
    /// - flipped-180: mirror (1179.5, 200.5), then 180: (100.5, 599.5);
    /// - flipped-270: mirror (699.5, 200.5), then 270: (200.5, 100.5) (a transposition).
    /// The arrow is 11x17 with its tip at (0, 0), centre (0.5, 0.5), turned the same way in an
    /// 11x17 (or 17x11) picture: 90 → (16, 0), 180 → (10, 16), 270 → (0, 10), flipped → (10, 0),
    /// flipped-90 → (16, 10), flipped-180 → (0, 16), flipped-270 → (0, 0).
    static let expected: [Expected] = [
        Expected(transform: .normal, pixel: (100, 200), hot: (0, 0)),
        Expected(transform: .rotate90, pixel: (1079, 100), hot: (16, 0)),
        Expected(transform: .rotate180, pixel: (1179, 599), hot: (10, 16)),
        Expected(transform: .rotate270, pixel: (200, 699), hot: (0, 10)),
        Expected(transform: .flipped, pixel: (1179, 200), hot: (10, 0)),
        Expected(transform: .flipped90, pixel: (1079, 699), hot: (16, 10)),
        Expected(transform: .flipped180, pixel: (100, 599), hot: (0, 16)),
        Expected(transform: .flipped270, pixel: (200, 100), hot: (0, 0)),
    ]

    @Test func everyTransformMapsThePointAndTheHotSpot() throws {
        #expect(Self.expected.count == OutputTransform.allCases.count)
        for e in Self.expected {
            let output = CursorOutput(origin: (0, 0), panelWidth: 1280, panelHeight: 800, transform: e.transform)
            let spot = try #require(CursorGeometry.spot(Point(x: 100, y: 200), on: [output]))
            #expect(spot.output == 0)
            #expect(spot.pixelX == e.pixel.x && spot.pixelY == e.pixel.y,
                    "\(e.transform): pixel \(spot.pixelX),\(spot.pixelY), expected \(e.pixel)")
            let image = CursorSprite.image(for: e.transform)
            #expect(image.hotX == e.hot.x && image.hotY == e.hot.y, "\(e.transform): hot spot \(image.hotX),\(image.hotY), expected \(e.hot)")
            // The tip is the arrow's outline, black, wherever it went.
            #expect(image.pixel(image.hotX, image.hotY) == 0xFF00_0000, "\(e.transform): the tip")
            #expect((image.width, image.height) == (e.transform.swapsAxes ? (17, 11) : (11, 17)))
        }
        // So the 90° buffer's top-left goes to (1079 − 16, 100 − 0).
        let image = CursorSprite.image(for: .rotate90)
        #expect((1079 - image.hotX, 100 - image.hotY) == (1063, 100))
    }

    /// Two outputs side by side: "A" 1280x800 unturned at (0, 0), "B" a 1280x800 panel turned
    /// 90° at scale 2 at (1280, 0), so 400x640 points.
    @Test func outputsOffsetScaleAndClamping() throws {
        let a = CursorOutput(origin: (0, 0), panelWidth: 1280, panelHeight: 800)
        let b = CursorOutput(origin: (1280, 0), scale: 2, panelWidth: 1280, panelHeight: 800, transform: .rotate90)
        #expect(b.logicalSize == (400, 640))
        func spot(_ x: Double, _ y: Double) throws -> (Int, Int, Int) {
            let s = try #require(CursorGeometry.spot(Point(x: x, y: y), on: [a, b]))
            return (s.output, s.pixelX, s.pixelY)
        }
        // (1380, 50) is (100, 50) in B: (200, 100) in the 800x1280 picture's pixels, centre
        // (200.5, 100.5) → (1280 − 100.5, 200.5).
        #expect(try spot(1380, 50) == (1, 1179, 200))
        #expect(try spot(1279.5, 799.5) == (0, 1279, 799))
        // Right of everything: onto B's right edge, local x 399.99… → pixel column 799 of the
        // picture: (1280 − 200.5, 799.5).
        #expect(try spot(5000, 100) == (1, 1079, 799))
        // Above and left: A's top-left pixel.
        #expect(try spot(-10, -10) == (0, 0, 0))
        // Below B (640 high) but right of A: A's right edge is nearer (20) than B's bottom (60).
        #expect(try spot(1300, 700) == (0, 1279, 700))
        #expect(CursorGeometry.spot(Point(x: .nan, y: 0), on: [a, b]) == nil)
        #expect(CursorGeometry.spot(Point(x: 0, y: 0), on: []) == nil)
    }

    /// The arrow turned 90°: its tip goes from the top-left to the top-right corner of the
    /// 17x11 picture, and the rest follows (x, y) → (16 − y, x).
    @Test func rotatedSpritePixels() {
        let upright = CursorSprite.image(for: .normal)
        #expect(upright.pixel(0, 0) == 0xFF00_0000)
        #expect(upright.pixel(1, 2) == 0xFFFF_FFFF, "row 2 is X.X")
        #expect(upright.pixel(10, 0) == 0, "transparent right of the tip")
        let turned = CursorSprite.image(for: .rotate90)
        #expect(turned.pixel(16, 0) == 0xFF00_0000, "the tip at the top-right corner")
        #expect(turned.pixel(0, 0) == 0, "the top-left is transparent now")
        #expect(turned.pixel(14, 1) == 0xFFFF_FFFF, "upright (1, 2), white")
        #expect(turned.pixel(6, 10) == 0xFF00_0000, "upright (10, 10), the end of row 10's outline")
        #expect(turned.pixel(0, 6) == 0xFF00_0000, "upright (6, 16), the tail's bottom")
        let mirrored = CursorSprite.image(for: .flipped)
        #expect(mirrored.pixel(10, 0) == 0xFF00_0000 && mirrored.pixel(0, 0) == 0, "mirrored: the tip at the top-right")
        // In a 64x64 cursor buffer the turned arrow sits at the top-left.
        let buffer = CursorSprite.argb8888(width: 64, height: 64, transform: .rotate90)
        #expect(buffer.count == 64 * 64)
        #expect(buffer[16] == 0xFF00_0000 && buffer[0] == 0 && buffer[17] == 0)
        #expect(buffer[10 * 64 + 6] == 0xFF00_0000)
        #expect(CursorSprite.argb8888(width: 64, height: 64) == CursorSprite.argb8888(width: 64, height: 64, transform: .normal))
    }
}
