import LaminaCore
import LaminaImage
import LaminaRaster
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A five-pointed star drawn as one self-crossing subpath (a pentagram): its centre is wound
/// twice, so non-zero fills it and even-odd leaves it empty.
func star(center c: Point, radius r: Double) -> Path {
    var p = Path()
    for i in 0..<5 {
        let a = -Double.pi / 2 + Double(i) * 4 * Double.pi / 5
        let q = Point(x: c.x + r * cos(a), y: c.y + r * sin(a))
        if i == 0 { p.move(to: q) } else { p.addLine(to: q) }
    }
    p.closeSubpath()
    return p
}

func shapeLayer(_ path: Path, _ configure: (inout LayerProperties) -> Void = { _ in }) -> LayerProperties {
    var p = LayerProperties(kind: .shape)
    p.bounds = Rect(0, 0, 100, 100)
    p.path = path
    configure(&p)
    return p
}

func textLayer(_ string: String, width: Double = 160, height: Double = 40, _ configure: (inout LayerProperties) -> Void = { _ in }) -> LayerProperties {
    var p = LayerProperties(kind: .text)
    p.bounds = Rect(0, 0, width, height)
    p.string = string
    p.font = "DejaVu Sans"
    p.fontSize = 16
    configure(&p)
    return p
}

extension Bitmap {
    /// The premultiplied image composited over an opaque colour: what it looks like on screen.
    func over(_ r: UInt8, _ g: UInt8, _ b: UInt8) -> Bitmap {
        var out = self
        for i in stride(from: 0, to: bytes.count, by: 4) {
            let a = Int(bytes[i + 3])
            out.bytes[i] = UInt8(min(255, Int(bytes[i]) + Int(r) * (255 - a) / 255))
            out.bytes[i + 1] = UInt8(min(255, Int(bytes[i + 1]) + Int(g) * (255 - a) / 255))
            out.bytes[i + 2] = UInt8(min(255, Int(bytes[i + 2]) + Int(b) * (255 - a) / 255))
            out.bytes[i + 3] = 255
        }
        return out
    }

    /// Alpha at (x, y); 0 outside the image.
    func alpha(_ x: Int, _ y: Int) -> UInt8 { x >= 0 && y >= 0 && x < width && y < height ? pixel(x: x, y: y).a : 0 }

    /// The mean x of alpha (ink), in pixels; nil for an empty image.
    var inkCentroidX: Double? {
        var sum = 0.0, weight = 0.0
        for y in 0..<height { for x in 0..<width { let a = Double(alpha(x, y)); sum += a * Double(x); weight += a } }
        return weight > 0 ? sum / weight : nil
    }

    /// The rows that hold any ink.
    var inkedRows: [Int] { (0..<height).filter { y in (0..<width).contains { alpha($0, y) > 0 } } }
}

func expectReference(_ image: Bitmap, _ name: String, filePath: String = #filePath,
                     sourceLocation: SourceLocation = #_sourceLocation) {
    let directory = filePath.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
    if let problem = ReferenceImage.mismatch(image, reference: "\(directory)/Reference/\(name).png", tolerance: 3, allowedPixels: 10) {
        Issue.record(Comment(rawValue: problem), sourceLocation: sourceLocation)
    }
}

@Suite("Shape layers rasterised with cairo")
struct ShapeRasterTests {
    @Test func fillRulesDecideTheStarsCentre() throws {
        let path = star(center: Point(50, 50), radius: 45)
        let nonZero = try #require(ShapeRasterizer.rasterize(ShapeStyle(shapeLayer(path) { $0.fillColor = .red }), scale: 1))
        let evenOdd = try #require(ShapeRasterizer.rasterize(ShapeStyle(shapeLayer(path) { $0.fillColor = .red; $0.fillRule = .evenOdd }), scale: 1))
        // The image covers the star's extent (7.2…92.8 across, 5…86.4 down) with a pixel to spare.
        #expect(nonZero.frame.minX <= 7.2 && nonZero.frame.minX >= 5)
        #expect(nonZero.frame.maxX >= 92.8 && nonZero.frame.maxX <= 95)
        #expect(nonZero.frame.minY <= 5 && nonZero.frame.maxY >= 86.4 && nonZero.frame.maxY <= 89)
        func at(_ image: RasterImage, _ x: Double, _ y: Double) -> (r: UInt8, g: UInt8, b: UInt8, a: UInt8) {
            image.bitmap.pixel(x: Int(x - image.frame.minX), y: Int(y - image.frame.minY))
        }
        #expect(at(nonZero, 50, 55) == (255, 0, 0, 255))
        #expect(at(evenOdd, 50, 55).a == 0)
        // A point: filled by both rules.
        #expect(at(nonZero, 50, 12) == (255, 0, 0, 255) && at(evenOdd, 50, 12) == (255, 0, 0, 255))
        expectReference(nonZero.bitmap.over(255, 255, 255), "star-non-zero")
        expectReference(evenOdd.bitmap.over(255, 255, 255), "star-even-odd")
    }

    @Test func strokesReachOutsideTheBoundsAndScale() throws {
        var line = Path()
        line.move(to: Point(0, 50)); line.addLine(to: Point(100, 50))
        let style = ShapeStyle(shapeLayer(line) { $0.fillColor = .clear; $0.strokeColor = .blue; $0.lineWidth = 10; $0.lineCap = .square })
        let one = try #require(ShapeRasterizer.rasterize(style, scale: 1))
        // Square caps reach half the width beyond each end: −5 … 105, and 45 … 55 across.
        #expect(one.frame.minX <= -5 && one.frame.minX >= -7)
        #expect(one.frame.maxX >= 105 && one.frame.maxX <= 107)
        #expect(one.frame.minY <= 45 && one.frame.maxY >= 55)
        #expect(one.frame.minX == one.frame.minX.rounded(), "whole pixels at scale 1")
        let two = try #require(ShapeRasterizer.rasterize(style, scale: 2))
        #expect(two.scale == 2)
        #expect(abs(Double(two.bitmap.width) - 2 * Double(one.bitmap.width)) <= 2)
        #expect(two.bitmap.width == Int((two.frame.width * 2).rounded()))
        // Nothing to draw: no image.
        #expect(ShapeRasterizer.rasterize(ShapeStyle(shapeLayer(line) { $0.fillColor = .clear }), scale: 1) == nil)
        #expect(ShapeRasterizer.rasterize(ShapeStyle(shapeLayer(Path()) { $0.strokeColor = .red }), scale: 1) == nil)
    }

    @Test func strokeEndDrawsPartOfACircle() throws {
        // CGPath(ellipseIn:) starts at the right-hand point and runs clockwise on screen (through
        // the bottom), so the first half is the lower half.
        let circle = Path(ellipseIn: Rect(10, 10, 80, 80))
        let style = ShapeStyle(shapeLayer(circle) { $0.fillColor = .clear; $0.strokeColor = .green; $0.lineWidth = 8; $0.strokeEnd = 0.5 })
        let image = try #require(ShapeRasterizer.rasterize(style, scale: 1))
        func a(_ x: Int, _ y: Int) -> UInt8 { image.bitmap.alpha(x - Int(image.frame.minX), y - Int(image.frame.minY)) }
        #expect(a(50, 89) == 255, "bottom of the circle is stroked")
        #expect(a(50, 11) == 0, "top is not")
        #expect(a(12, 45) == 0 && a(88, 45) == 0, "just above both ends, nothing")
        #expect(a(12, 55) == 255 && a(88, 55) == 255, "just below both ends, stroke")
        // The image only covers the drawn half.
        #expect(image.frame.minY > 40)
        expectReference(image.bitmap.over(0, 0, 0), "circle-stroke-end-half")
    }

    @Test func dashesTheirPhaseAndTrimmingKeepTheirPlace() throws {
        var line = Path()
        line.move(to: Point(0, 10)); line.addLine(to: Point(100, 10))
        func dashed(_ configure: (inout LayerProperties) -> Void) throws -> [Bool] {
            let s = ShapeStyle(shapeLayer(line) {
                $0.fillColor = .clear; $0.strokeColor = .white; $0.lineWidth = 4; $0.lineDashPattern = [10, 5]
                configure(&$0)
            })
            let image = try #require(ShapeRasterizer.rasterize(s, scale: 1))
            return (0..<100).map { x in
                let ix = x - Int(image.frame.minX)
                return ix >= 0 && ix < image.bitmap.width && image.bitmap.alpha(ix, 10 - Int(image.frame.minY)) > 127
            }
        }
        let plain = try dashed { _ in }
        // 10 on, 5 off: pixel 12 is in the first gap, 17 in the second dash.
        #expect(plain[2] && !plain[12] && plain[17] && !plain[27])
        let phased = try dashed { $0.lineDashPhase = 5 }
        // Phase 5 starts the pattern 5 into the first dash: on 0…5, off 5…10, on 10…20.
        #expect(phased[2] && !phased[7] && phased[12] && !phased[22])
        let trimmed = try dashed { $0.strokeStart = 0.1 }
        // Trimming the first 10 points leaves the dashes where they were.
        #expect(!trimmed[5] && !trimmed[12] && trimmed[17] && !trimmed[27])
        #expect(Array(trimmed[15...]) == Array(plain[15...]))
    }
}

@Suite("Text layers rasterised with pango")
struct TextRasterTests {
    @Test func alignmentPlacesTheLineInTheBounds() throws {
        var centroids: [TextAlignment: Double] = [:]
        for a in [TextAlignment.left, .center, .right, .natural] {
            let image = try #require(TextRasterizer.rasterize(TextStyle(textLayer("Lamina") { $0.alignmentMode = a }), scale: 1))
            #expect(image.bitmap.width == 160 && image.bitmap.height == 40 && image.frame == Rect(0, 0, 160, 40))
            let c: Double = try #require(image.bitmap.inkCentroidX)
            centroids[a] = c
        }
        #expect(centroids[.left]! < 40)
        #expect(abs(centroids[.center]! - 80) < 3)
        #expect(centroids[.right]! > 120)
        #expect(centroids[.natural] == centroids[.left])
    }

    @Test func wrappingBreaksLinesAtTheBoundsWidth() throws {
        let text = "The quick brown fox jumps over the lazy dog"
        let one = try #require(TextRasterizer.rasterize(TextStyle(textLayer(text, width: 120, height: 100)), scale: 1))
        let wrapped = try #require(TextRasterizer.rasterize(TextStyle(textLayer(text, width: 120, height: 100) { $0.isWrapped = true }), scale: 1))
        // One line of 16-point text has ink in ~15 rows; wrapped there are several lines.
        #expect(one.bitmap.inkedRows.max()! < 22)
        #expect(wrapped.bitmap.inkedRows.max()! > 60)
        // Unwrapped text runs off the right edge; wrapped stays inside with a margin.
        #expect((0..<100).contains { one.bitmap.alpha(119, $0) > 0 })
        #expect(!(0..<100).contains { wrapped.bitmap.alpha(119, $0) > 0 })
    }

    @Test func truncationPutsTheEllipsisWhereAsked() throws {
        let text = "Lamina composes layers"
        func render(_ mode: TruncationMode) throws -> Bitmap {
            try #require(TextRasterizer.rasterize(TextStyle(textLayer(text, width: 120, height: 30) { $0.truncationMode = mode }), scale: 1)).bitmap
        }
        let none = try render(.none), end = try render(.end), middle = try render(.middle), start = try render(.start)
        // Without truncation the text is cut at the edge; truncated at the end it stops short.
        #expect((0..<30).contains { none.alpha(119, $0) > 0 })
        #expect(!(0..<30).contains { end.alpha(119, $0) > 0 })
        #expect(end.bytes != middle.bytes && end.bytes != start.bytes && middle.bytes != start.bytes)
        // "Lamina com…" keeps the beginning; "…poses layers" and "Lamin… layers" keep the end.
        func columns(_ b: Bitmap, _ xs: Range<Int>) -> [UInt8] { (0..<b.height).flatMap { y in xs.map { b.alpha($0, y) } } }
        #expect(columns(none, 0..<40) == columns(end, 0..<40))
        #expect(columns(middle, 0..<40) != columns(start, 0..<40))
        #expect(columns(middle, 80..<120) == columns(start, 80..<120))
        #expect(columns(none, 80..<120) != columns(start, 80..<120))
    }

    @Test func scaleSharpensWithoutMovingTheLayout() throws {
        let style = TextStyle(textLayer("Sharp"))
        let one = try #require(TextRasterizer.rasterize(style, scale: 1))
        let two = try #require(TextRasterizer.rasterize(style, scale: 2))
        #expect(two.bitmap.width == 320 && two.bitmap.height == 80 && two.frame == one.frame)
        // The same ink in points (unhinted layout at both scales), to within antialiasing.
        func ink(_ b: Bitmap) -> Double { b.bytes.enumerated().reduce(0) { $1.offset % 4 == 3 ? $0 + Double($1.element) : $0 } / 255 }
        #expect(abs(ink(two.bitmap) / 4 - ink(one.bitmap)) / ink(one.bitmap) < 0.05)
        #expect(abs(two.bitmap.inkCentroidX! / 2 - one.bitmap.inkCentroidX!) < 0.5)
    }

    @Test func fontNamesMapToFontconfigFamilies() throws {
        #expect(TextRasterizer.fontFamily("Helvetica") == ("sans-serif", false, false))
        #expect(TextRasterizer.fontFamily("Helvetica-Bold") == ("sans-serif", true, false))
        #expect(TextRasterizer.fontFamily("Courier-BoldOblique") == ("monospace", true, true))
        #expect(TextRasterizer.fontFamily("DejaVu Serif") == ("DejaVu Serif", false, false))
        // Helvetica, an unknown family and DejaVu Sans draw the same pixels here.
        func draw(_ font: String) throws -> Bitmap {
            try #require(TextRasterizer.rasterize(TextStyle(textLayer("Font") { $0.font = font }), scale: 1)).bitmap
        }
        let dejaVu = try draw("DejaVu Sans")
        #expect(try draw("Helvetica") == dejaVu)
        #expect(try draw("No Such Font Family") == dejaVu)
        #expect(try draw("DejaVu Serif") != dejaVu)
        #expect(try draw("Helvetica-Bold") != dejaVu)
    }
}


@Suite("Rasterising hostile values")
struct HostileRasterTests {
    @Test func extremeShapesDrawBoundedImagesOrNothing() {
        var far = Path()
        far.move(to: Point(1e20, 1e20)); far.addLine(to: Point(1e20 + 50, 1e20))
        var huge = Path()
        huge.move(to: Point(-1e12, 0)); huge.addLine(to: Point(1e12, 0))
        var zigzag = Path()
        zigzag.move(to: Point(0, 0))
        for i in 0..<2000 { zigzag.addLine(to: Point(Double(i % 2) * 4000, Double(i) * 2)) }
        let cases: [(String, LayerProperties)] = [
            ("far away", shapeLayer(far) { $0.strokeColor = .red; $0.lineWidth = 4 }),
            ("huge", shapeLayer(huge) { $0.strokeColor = .red; $0.lineWidth = 1e9 }),
            ("huge phase", shapeLayer(huge) { $0.strokeColor = .red; $0.lineDashPattern = [1, 1]; $0.lineDashPhase = 1e300 }),
            ("fine dashes on a long zigzag", shapeLayer(zigzag) { $0.strokeColor = .red; $0.lineDashPattern = [0.001, 0.001] }),
            ("zero dashes", shapeLayer(zigzag) { $0.strokeColor = .red; $0.lineDashPattern = [0, 0] }),
        ]
        for (name, p) in cases {
            for scale in [1.0, 16.0] {
                if let image = ShapeRasterizer.rasterize(ShapeStyle(p), scale: scale) {
                    #expect(image.bitmap.width <= rasterMaximumSide && image.bitmap.height <= rasterMaximumSide, "\(name)")
                    #expect(image.bitmap.bytes.count == image.bitmap.width * image.bitmap.height * 4, "\(name)")
                }
            }
        }
        // The fine pattern strokes solid rather than cutting a hundred million dashes.
        let solid = ShapeRasterizer.rasterize(ShapeStyle(cases[3].1), scale: 1)
        #expect(solid != nil)
    }

    @Test func extremeTextDrawsBoundedImagesOrNothing() {
        let cases: [LayerProperties] = [
            textLayer("Big", width: 1e308, height: 30),
            textLayer("Big", width: 100, height: 1e300) { $0.isWrapped = true; $0.truncationMode = .end },
            textLayer("Huge font") { $0.fontSize = 1e300 },
            textLayer("HWg", width: 200, height: 200) { $0.fontSize = 5000 },
            textLayer("Tiny font") { $0.fontSize = 1e-300 },
            textLayer(String(repeating: "wrap ", count: 5000), width: 50, height: 4000) { $0.isWrapped = true },
            textLayer("\u{0}\u{FFFF}\u{202E}mixed עברית", width: 100, height: 30) { $0.truncationMode = .middle },
        ]
        for p in cases {
            for scale in [1.0, 16.0] {
                if let image = TextRasterizer.rasterize(TextStyle(p), scale: scale) {
                    #expect(image.bitmap.width <= rasterMaximumSide && image.bitmap.height <= rasterMaximumSide)
                }
                // Nothing poisons later text (cairo keeps font errors in shared fonts).
                #expect(TextRasterizer.rasterize(TextStyle(textLayer("Still drawn")), scale: 1) != nil, "after \(p.fontSize) pt at \(scale)")
            }
        }
    }
}

/// The default install draws CJK and the scripts kiosks show with real glyphs (scripts/deps.sh
/// installs fonts-noto-cjk and fonts-noto-core beside DejaVu), not boxes with code points, while
/// DejaVu stays the default family.
@Suite("Script coverage")
struct ScriptCoverageTests {
    func ink(_ s: String) throws -> Int {
        let image = try #require(TextRasterizer.rasterize(TextStyle(textLayer(s, width: 48, height: 48) { $0.font = "sans-serif"; $0.fontSize = 40 }), scale: 1))
        return stride(from: 3, to: image.bitmap.bytes.count, by: 4).reduce(0) { $0 + (image.bitmap.bytes[$1] > 0 ? 1 : 0) }
    }

    @Test(arguments: ["永", "一", "漢字", "繁體字", "ひらがな", "カタカナ", "한국어", "Ελληνικά", "Кириллица", "العربية", "עברית",
                      "ภาษาไทย", "हिन्दी", "বাংলা", "தமிழ்", "ქართული", "Հայերեն", "አማርኛ", "ລາວ", "ខ្មែរ", "मराठी", "ગુજરાતી"])
    func everyCharacterHasAGlyph(_ text: String) {
        let style = TextStyle(textLayer(text, width: 400, height: 60) { $0.font = "Helvetica" })
        #expect(TextRasterizer.unknownGlyphCount(style) == 0, "\(text) draws boxes: install scripts/deps.sh's fonts")
    }

    /// Two different ideographs differ in ink, as boxes would not: 永 has eight strokes, 一 one.
    @Test func distinctIdeographsDrawDistinctGlyphs() throws {
        let eternity = try ink("永"), one = try ink("一")
        #expect(one > 0 && eternity > 2 * one, "永 \(eternity) px of ink, 一 \(one)")
    }

    /// Latin text keeps DejaVu Sans however many other fonts are installed: "sans-serif" and an
    /// unknown family both come out the same as DejaVu Sans named outright.
    @Test func dejaVuStaysTheDefault() throws {
        func pixels(_ family: String) throws -> [UInt8] {
            try #require(TextRasterizer.rasterize(TextStyle(textLayer("Lamina 0123", width: 200, height: 40) { $0.font = family; $0.fontSize = 20 }), scale: 1)).bitmap.bytes
        }
        let dejaVu = try pixels("DejaVu Sans")
        #expect(try pixels("sans-serif") == dejaVu)
        #expect(try pixels("NoSuchFamily") == dejaVu)
        #expect(try pixels("Noto Sans") != dejaVu, "the comparison can fail: another family draws differently")
    }

    /// The check can fail: a code point no font has is counted.
    @Test func aCodePointNoFontHasIsCounted() {
        #expect(TextRasterizer.unknownGlyphCount(TextStyle(textLayer("a\u{10FFFD}b"))) == 1)
    }
}
