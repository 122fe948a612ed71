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

    /// Truncation of runs: the ellipsis — three low dots on the baseline — comes first for
    /// `start`, between glyphs for `middle`, last for `end`, on one line and on the last line
    /// of wrapped text.
    @Test(arguments: [TruncationMode.start, .middle, .end])
    func truncationOfRunsPutsTheEllipsisWhereAsked(_ mode: TruncationMode) throws {
        for wrapped in [false, true] {
            let b = try #require(TextRasterizer.rasterize(runs([TextRun("MMMM MMMM ", color: .red), TextRun("MMMM MMMM MMMM MMMM", weight: 700)],
                                                               width: 200, height: wrapped ? 70 : 40) {
                $0.fontSize = 24
                $0.isWrapped = wrapped
                $0.truncationMode = mode
            }, scale: 1)).bitmap
            let inkRows = (0..<b.height).filter { y in (0..<b.width).contains { b.alpha($0, y) > 127 } }
            let bottom = inkRows.last ?? 0
            let lineTop = bottom - 18  // the last line: an M is some 17 px tall at 24 pt
            // Columns whose ink on the last line is all within 4 rows of its baseline: dots.
            var clusters: [(columns: [Int], low: Bool)] = []
            for x in 0..<b.width {
                let ys = (lineTop...bottom).filter { b.alpha(x, $0) > 127 }
                guard !ys.isEmpty else { continue }
                let low = ys.allSatisfy { $0 >= bottom - 4 }
                if let last = clusters.last, last.columns.last == x - 1 {
                    clusters[clusters.count - 1].columns.append(x)
                    clusters[clusters.count - 1].low = last.low && low
                } else {
                    clusters.append(([x], low))
                }
            }
            let lows = clusters.indices.filter { clusters[$0].low }
            #expect(lows.count == 3, "\(mode) wrapped \(wrapped): three dots (\(clusters.map(\.low)))")
            guard lows.count == 3 else { continue }
            #expect(lows == [lows[0], lows[0] + 1, lows[0] + 2], "the dots are together")
            switch mode {
            case .start: #expect(lows[0] == 0, "\(mode): the ellipsis first")
            case .end: #expect(lows[2] == clusters.count - 1, "\(mode): the ellipsis last")
            default: #expect(lows[0] > 0 && lows[2] < clusters.count - 1, "\(mode): glyphs on both sides")
            }
        }
    }

    /// Strikethrough draws a line through the middle of the run; italic slants it.
    @Test func strikethroughAndItalic() throws {
        func bitmap(_ r: TextRun) throws -> Bitmap {
            try #require(TextRasterizer.rasterize(runs([r], height: 60), scale: 1)).bitmap
        }
        func longestRow(_ b: Bitmap) -> Int {
            (0..<b.height).map { y in
                var best = 0, run = 0
                for x in 0..<b.width { run = b.alpha(x, y) > 127 ? run + 1 : 0; best = max(best, run) }
                return best
            }.max() ?? 0
        }
        let plain = longestRow(try bitmap(TextRun("iiiiiiii"))), struck = longestRow(try bitmap(TextRun("iiiiiiii", strikethrough: true)))
        #expect(plain < 15 && struck > 50, "a line through the run: longest row of ink \(plain) px, struck \(struck)")
        // An upright l's ink starts in the same column at its top and bottom; an italic one leans right.
        func leftEdge(_ b: Bitmap, row: Int) -> Int { (0..<b.width).first { b.alpha($0, row) > 127 } ?? -1 }
        func rows(_ b: Bitmap) -> [Int] { (0..<b.height).filter { y in (0..<b.width).contains { b.alpha($0, y) > 127 } } }
        let upright = try bitmap(TextRun("l")), italic = try bitmap(TextRun("l", italic: true))
        let u = rows(upright), i = rows(italic)
        #expect(abs(leftEdge(upright, row: u.first! + 1) - leftEdge(upright, row: u.last! - 1)) <= 1)
        #expect(leftEdge(italic, row: i.first! + 1) - leftEdge(italic, row: i.last! - 1) >= 4, "italic leans right")
    }

    /// An empty attributed string draws the layer's string; runs replace it.
    @Test func runsReplaceTheString() {
        var p = textLayer("plain")
        #expect(TextStyle(p).text == "plain")
        p.attributedString = [TextRun("a"), TextRun("b")]
        #expect(TextStyle(p).text == "ab")
    }
}
