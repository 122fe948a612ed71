import Testing
import LaminaCore
@testable import LaminaRaster

/// Attributed strings rasterised with Pango attributes, and colour emoji from Noto Color Emoji
/// (scripts/deps.sh installs fonts-noto-color-emoji).
@Suite("Rich text rasterised with pango")
struct RichTextRasterTests {
    func runs(_ runs: [TextRun], width: Double = 300, height: Double = 60, _ configure: (inout LayerProperties) -> Void = { _ in }) -> TextStyle {
        TextStyle(textLayer("", width: width, height: height) { p in
            p.attributedString = runs
            p.fontSize = 32
            configure(&p)
        })
    }

    /// Columns holding ink (alpha above half), left to right.
    func inkColumns(_ b: Bitmap) -> [Int] {
        (0..<b.width).filter { x in (0..<b.height).contains { y in b.alpha(x, y) > 127 } }
    }

    /// Every emoji Unicode 15.0 added (faces, hearts, animals, objects, hands) and sequences —
    /// flags, skin tones, ZWJ families and the black bird — have glyphs: no boxes.
    @Test(arguments: ["😀", "🫨", "🩷", "🩵", "🩶", "🫎", "🫏", "🪽", "🐦‍⬛", "🪿", "🪼", "🫚", "🫛", "🪭", "🪮", "🪇",
                      "🪈", "🪯", "🛜", "🫷🏽", "🫸🏿", "🇫🇷", "🇯🇵", "🏴‍☠️", "👍🏽", "👨‍👩‍👧", "🧑🏾‍🚀", "❤️‍🔥"])
    func emojiHaveGlyphs(_ emoji: String) {
        #expect(TextRasterizer.unknownGlyphCount(runs([TextRun("a "), TextRun(emoji)])) == 0,
                "\(emoji) draws a box: install scripts/deps.sh's fonts-noto-color-emoji")
    }

    /// 😀 comes out yellow (the font's colour bitmap), however the run is coloured.
    @Test func emojiKeepTheirColours() throws {
        let image = try #require(TextRasterizer.rasterize(runs([TextRun("😀", color: .blue)]), scale: 1))
        let b = image.bitmap.over(0, 0, 0)
        var yellow = 0
        for y in 0..<b.height { for x in 0..<b.width { let p = b.pixel(x: x, y: y); if p.r > 200, p.g > 140, p.b < 110 { yellow += 1 } } }
        #expect(yellow > 200, "\(yellow) yellow pixels")
    }

    /// ZWJ sequences, flags and skin tones are one glyph each: as wide as one emoji.
    @Test(arguments: ["👨‍👩‍👧", "🇫🇷", "👍🏽", "🧑🏾‍🚀"])
    func sequencesAreOneGlyph(_ sequence: String) throws {
        let one = inkColumns(try #require(TextRasterizer.rasterize(runs([TextRun("👨")]), scale: 1)).bitmap)
        let seq = inkColumns(try #require(TextRasterizer.rasterize(runs([TextRun(sequence)]), scale: 1)).bitmap)
        let w1 = (one.last ?? 0) - (one.first ?? 0), w = (seq.last ?? 0) - (seq.first ?? 0)
        #expect(w > 0 && Double(w) < 1.4 * Double(w1), "\(sequence): \(w) px wide, one emoji \(w1)")
    }

    /// Kerning widens the run, a baseline offset raises it, a larger size makes it taller.
    @Test func spacingOffsetAndSizeMoveInk() throws {
        func ink(_ r: TextRun) throws -> (columns: [Int], top: Int) {
            let b = try #require(TextRasterizer.rasterize(runs([r], height: 80), scale: 1)).bitmap
            var top = -1
            for y in 0..<b.height where top < 0 && (0..<b.width).contains(where: { b.alpha($0, y) > 127 }) { top = y }
            return (inkColumns(b), top)
        }
        let plain = try ink(TextRun("HHH"))
        let kerned = try ink(TextRun("HHH", kerning: 10))
        #expect((kerned.columns.last ?? 0) - (plain.columns.last ?? 0) >= 18, "two gaps of 10 more")
        // Raised against an unraised run on the same line: its ink's top is 8 points higher.
        let b = try #require(TextRasterizer.rasterize(runs([TextRun("HHH "), TextRun("HHH", baselineOffset: 8)], height: 80), scale: 1)).bitmap
        func top(_ xs: Range<Int>) -> Int {
            for y in 0..<b.height where xs.contains(where: { b.alpha($0, y) > 127 }) { return y }
            return -1
        }
        let columns = inkColumns(b), middle = columns[columns.count / 2]
        #expect(abs((top(0..<middle) - top(middle..<b.width)) - 8) <= 1, "raised 8: \(top(0..<middle)) vs \(top(middle..<b.width))")
        let big = try ink(TextRun("HHH", fontSize: 48))
        #expect((big.columns.last ?? 0) > (plain.columns.last ?? 0) * 4 / 3, "larger glyphs")
    }

    /// Line spacing adds to the gap between wrapped lines.
    @Test func lineSpacingMovesTheSecondLine() throws {
        func rows(_ spacing: Double) throws -> [Int] {
            let b = try #require(TextRasterizer.rasterize(runs([TextRun("HHH HHH")], width: 100, height: 160) {
                $0.isWrapped = true
                $0.lineSpacing = spacing
            }, scale: 1)).bitmap
            return (0..<b.height).filter { y in (0..<b.width).contains { b.alpha($0, y) > 127 } }
        }
        let tight = try rows(0), loose = try rows(20)
        #expect(abs((loose.last ?? 0) - (tight.last ?? 0) - 20) <= 1,
                "the second line moves down by the spacing: \(tight.last ?? -1) → \(loose.last ?? -1)")
    }

    /// Wrapped right-to-left text: natural alignment is to the right edge, `left` and `right`
    /// are literal; left-to-right text is unchanged.
    @Test(arguments: [("مرحبا بالعالم", TextAlignment.natural, true), ("مرحبا بالعالم", .left, false), ("مرحبا بالعالم", .right, true),
                      ("Hello", .natural, false), ("Hello", .right, true), ("Hello", .left, false)])
    func alignmentFollowsTheParagraphsDirection(_ text: String, _ alignment: TextAlignment, _ atRight: Bool) throws {
        for wrapped in [false, true] {
            let b = try #require(TextRasterizer.rasterize(runs([TextRun(text)], width: 300, height: 60) {
                $0.alignmentMode = alignment
                $0.isWrapped = wrapped
            }, scale: 1)).bitmap
            let columns = inkColumns(b)
            let right = (columns.last ?? 0) > 280, left = (columns.first ?? 999) < 20
            #expect(atRight ? right && !left : left && !right, "\(text) \(alignment) wrapped \(wrapped): ink \(columns.first ?? -1)…\(columns.last ?? -1)")
        }
    }

    /// An empty attributed string draws the layer's string; runs replace it.
    @Test func runsReplaceTheString() {
        var p = textLayer("plain")
        #expect(TextStyle(p).text == "plain")
        p.attributedString = [TextRun("a"), TextRun("b")]
        #expect(TextStyle(p).text == "ab")
    }
}
