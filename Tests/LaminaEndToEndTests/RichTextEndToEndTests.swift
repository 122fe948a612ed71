import Foundation
import Testing
import Lamina
import LaminaCore
import LaminaProtocol

/// Text layers' attributed strings drawn by a real laminad (Pango and cairo on the CPU): runs in
/// their colours and weights, colour emoji, bidirectional order, truncation, and bad runs refused.
@Suite("Rich text end to end", .serialized)
@MainActor
struct RichTextEndToEndTests {
    /// The screen's pixels that match `test`, as (x, y) pairs.
    static func pixels(_ shot: Bitmap, _ test: (UInt8, UInt8, UInt8) -> Bool) -> [(x: Int, y: Int)] {
        var out: [(x: Int, y: Int)] = []
        for y in 0..<shot.height {
            for x in 0..<shot.width {
                let p = shot.pixel(x: x, y: y)
                if test(p.r, p.g, p.b) { out.append((x, y)) }
            }
        }
        return out
    }
    static func isRed(_ r: UInt8, _ g: UInt8, _ b: UInt8) -> Bool { r > 150 && g < 90 && b < 90 }
    static func isBlue(_ r: UInt8, _ g: UInt8, _ b: UInt8) -> Bool { b > 150 && r < 90 && g < 90 }

    /// A text layer on a 320 × 120 screen, 300 × 100 points, its top-left at (10, 10).
    static func label(_ c: Connection, _ runs: [TextRun], size: Double = 32, color: Color = .white) async throws -> TextLayer {
        let text = TextLayer()
        text.bounds = Rect(x: 0, y: 0, width: 300, height: 100)
        text.position = Point(x: 160, y: 60)
        text.fontSize = size
        text.foregroundColor = color
        text.attributedString = runs
        c.rootLayer.addSublayer(text)
        try await c.sync()
        return text
    }

    // "HHHH" bold in red, then "HHHH" regular in blue: each run in its colour, red all left of
    // blue, and the bold run has more ink than the same glyphs regular.
    @Test func runsInTheirColoursAndWeights() async throws {
        let daemon = try DaemonProcess(size: "320x120")
        let c = try Connection.connect(to: daemon.socket, name: "rich text")
        _ = try await Self.label(c, [TextRun("HHHH", weight: 700, color: .red), TextRun("HHHH", weight: 400, color: .blue)])
        let shot = try await c.screenshot()
        let red = Self.pixels(shot, Self.isRed), blue = Self.pixels(shot, Self.isBlue)
        #expect(red.count > 200 && blue.count > 200, "both runs drawn: \(red.count) red, \(blue.count) blue")
        #expect((red.map(\.x).max() ?? 999) < (blue.map(\.x).min() ?? 0), "the red run lies left of the blue run")
        #expect(Double(red.count) > 1.2 * Double(blue.count), "bold has more ink: \(red.count) red vs \(blue.count) blue")
        // Nothing in other colours but the antialiased edges between a colour and black.
        let white = Self.pixels(shot) { r, g, b in r > 150 && g > 150 && b > 150 }
        #expect(white.isEmpty, "no run in the layer's white")
        c.close()
    }

    // A run without a colour takes the layer's foregroundColor; an underline draws a line of
    // ink under the run's text; a background colour fills behind it.
    @Test func unsetAttributesTakeTheLayersAndLinesAndBackgroundsDraw() async throws {
        let daemon = try DaemonProcess(size: "320x120")
        let c = try Connection.connect(to: daemon.socket, name: "rich text")
        _ = try await Self.label(c, [TextRun("..... ", underline: true), TextRun("xx", backgroundColor: .blue)], color: .red)
        let shot = try await c.screenshot()
        let red = Self.pixels(shot, Self.isRed)
        // The underline: one row holds a long unbroken run of red (the dots alone never would).
        var longest = 0
        for y in Set(red.map(\.y)) {
            let xs = red.filter { $0.y == y }.map(\.x).sorted()
            var run = 1
            for (a, b) in zip(xs, xs.dropFirst()) { run = b == a + 1 ? run + 1 : 1; longest = max(longest, run) }
        }
        #expect(longest > 40, "an underline under the dots (longest red row \(longest) px)")
        let blue = Self.pixels(shot, Self.isBlue)
        #expect(blue.count > 300, "the second run's blue background (\(blue.count) px)")
        c.close()
    }

    // 😀 in colour: yellow pixels (Noto Color Emoji), not a grey or black box.
    @Test func colourEmojiDrawInColour() async throws {
        let daemon = try DaemonProcess(size: "320x120")
        let c = try Connection.connect(to: daemon.socket, name: "emoji")
        let text = try await Self.label(c, [TextRun("😀")], size: 48)
        var shot = try await c.screenshot()
        let yellow = Self.pixels(shot) { r, g, b in r > 200 && g > 140 && b < 110 }
        #expect(yellow.count > 300, "the grinning face is yellow (\(yellow.count) yellow pixels)")
        let single = Self.inkWidth(shot)

        // A ZWJ family (man, woman, girl) is one glyph: about one emoji wide, not three.
        text.attributedString = [TextRun("👨\u{200D}👩\u{200D}👧")]
        try await c.sync()
        shot = try await c.screenshot()
        let family = Self.inkWidth(shot)
        #expect(family > single / 2 && family < single * 3 / 2, "the family is one emoji wide (\(family) vs \(single))")
        // A flag (regional indicators F R): one glyph, in blue, white and red.
        text.attributedString = [TextRun("🇫🇷")]
        try await c.sync()
        shot = try await c.screenshot()
        let flag = Self.inkWidth(shot)
        #expect(flag > single / 2 && flag < single * 3 / 2, "the flag is one emoji wide (\(flag) vs \(single))")
        #expect(Self.pixels(shot) { r, g, b in b > 120 && r < 80 }.count > 100, "the flag's blue")
        #expect(Self.pixels(shot) { r, g, b in r > 180 && g < 90 && b < 90 }.count > 100, "the flag's red")
        // A skin tone modifier joins its emoji: one glyph, medium brown, no yellow.
        text.attributedString = [TextRun("👍🏽")]
        try await c.sync()
        shot = try await c.screenshot()
        let thumb = Self.inkWidth(shot)
        #expect(thumb > single / 2 && thumb < single * 3 / 2, "the thumb with its tone is one emoji wide (\(thumb) vs \(single))")
        #expect(Self.pixels(shot) { r, g, b in r > 150 && g > 90 && g < 170 && b > 40 && b < 120 && r > g + 30 }.count > 100,
                "the medium skin tone's brown")
        c.close()
    }

    /// Columns from the first to the last holding any ink (a pixel not black).
    static func inkWidth(_ shot: Bitmap) -> Int {
        let xs = pixels(shot) { r, g, b in Int(r) + Int(g) + Int(b) > 60 }.map(\.x)
        guard let lo = xs.min(), let hi = xs.max() else { return 0 }
        return hi - lo + 1
    }

    // The bidirectional algorithm orders the runs: in a paragraph that starts with Arabic (or
    // Hebrew) the paragraph runs right to left, so the Latin run that follows the Arabic one
    // lies left of it; in one that starts with Latin, the Latin run lies left and the Arabic
    // right. (Drawn in logical order, the Arabic would lie left in both.)
    @Test(arguments: [("مرحبا ", true), ("שלום ", true)])
    func bidiOrdersTheRuns(_ rtl: String, _ rtlFirst: Bool) async throws {
        let daemon = try DaemonProcess(size: "320x120")
        let c = try Connection.connect(to: daemon.socket, name: "bidi")
        let text = try await Self.label(c, [TextRun(rtl, color: .blue), TextRun("abc", color: .red)])
        var shot = try await c.screenshot()
        var red = Self.pixels(shot, Self.isRed), blue = Self.pixels(shot, Self.isBlue)
        #expect(red.count > 50 && blue.count > 50, "both runs drawn")
        #expect((red.map(\.x).max() ?? 999) < (blue.map(\.x).min() ?? 0),
                "right to left: the Latin run (red, x ≤ \(red.map(\.x).max() ?? -1)) lies left of the \(rtl)run (blue, x ≥ \(blue.map(\.x).min() ?? -1))")
        // Natural alignment of a right-to-left paragraph is to the right edge.
        #expect((blue.map(\.x).max() ?? 0) > 250, "the right-to-left paragraph is aligned right")
        // `left` is meant literally, whatever the paragraph's direction.
        text.alignmentMode = .left
        try await c.sync()
        shot = try await c.screenshot()
        #expect((Self.pixels(shot, Self.isRed).map(\.x).min() ?? 999) < 30, "aligned left when asked")
        text.alignmentMode = .natural

        text.attributedString = [TextRun("abc ", color: .red), TextRun(rtl, color: .blue)]
        try await c.sync()
        shot = try await c.screenshot()
        red = Self.pixels(shot, Self.isRed)
        blue = Self.pixels(shot, Self.isBlue)
        #expect((red.map(\.x).max() ?? 999) < (blue.map(\.x).min() ?? 0), "left to right: Latin left, \(rtl)right")
        #expect((red.map(\.x).min() ?? 999) < 30, "the left-to-right paragraph is aligned left")
        c.close()
    }

    // Truncation at the end: a line that does not fit ends in "…" — three dots, each low and
    // small, sitting on the baseline, after the last glyphs that fit; on one line and on the
    // last line of wrapped text.
    @Test(arguments: [false, true])
    func truncationEndShowsAnEllipsis(_ wrapped: Bool) async throws {
        let daemon = try DaemonProcess(size: "320x120")
        let c = try Connection.connect(to: daemon.socket, name: "truncation")
        let text = TextLayer()
        text.bounds = Rect(x: 0, y: 0, width: 200, height: wrapped ? 60 : 40)
        text.position = Point(x: 110, y: 60)
        text.fontSize = 24
        text.isWrapped = wrapped
        text.truncationMode = .end
        text.attributedString = [TextRun("MM ", color: .red), TextRun("MMMM MMMM MMMM MMMM MMMM MMMM", color: .blue)]
        c.rootLayer.addSublayer(text)
        try await c.sync()
        let shot = try await c.screenshot()
        let ink = Self.pixels(shot) { r, g, b in Int(r) + Int(g) + Int(b) > 200 }
        let lastLineTop = (ink.map(\.y).max() ?? 0) - 20
        let line = ink.filter { $0.y >= lastLineTop }
        #expect(line.map(\.x).max() ?? 999 < 210, "nothing past the bounds")
        // Columns of ink on the last line grouped into glyphs (clusters of adjacent columns).
        let columns = Set(line.map(\.x)).sorted()
        var clusters: [[Int]] = []
        for x in columns {
            if let last = clusters.last?.last, x == last + 1 { clusters[clusters.count - 1].append(x) } else { clusters.append([x]) }
        }
        #expect(clusters.count >= 4, "glyphs and the ellipsis' dots: \(clusters.count) clusters")
        let glyphHeight = Set(line.filter { $0.x < columns.first! + 15 }.map(\.y)).count
        let bottom = line.map(\.y).max() ?? 0
        for dot in clusters.suffix(3) {
            let ys = line.filter { dot.contains($0.x) }.map(\.y)
            #expect(dot.count <= 6, "a dot is narrow (\(dot.count) px)")
            #expect(Set(ys).count * 3 < glyphHeight, "a dot is low (\(Set(ys).count) rows; an M is \(glyphHeight))")
            #expect((ys.max() ?? 0) >= bottom - 1, "a dot sits on the baseline")
        }
        // The ellipsis is drawn in the colour of the run it replaces (the blue run).
        let lastDot = try #require(clusters.last)
        let dotPixels = line.filter { lastDot.contains($0.x) }.map { shot.pixel(x: $0.x, y: $0.y) }
        #expect(dotPixels.contains { $0.b > 150 && $0.r < 90 }, "the ellipsis takes the blue run's colour")
        c.close()
    }

    // The rich-text label with an emoji (docs/clients.md; the same program as Python's
    // test_rich_text_label_with_an_emoji and C's rich_text_label): "Sale " red bold, "today "
    // blue, then 😀; each run's colour found in order from left to right, the emoji yellow.
    @Test func sameProgram() async throws {
        let daemon = try DaemonProcess(size: "320x240")
        let c = try Connection.connect(to: daemon.socket, name: "rich-text label")
        let label = TextLayer()
        label.bounds = Rect(x: 0, y: 0, width: 300, height: 60)
        label.position = Point(x: 160, y: 40)
        label.fontSize = 32
        label.attributedString = [TextRun("Sale ", weight: 700, color: .red), TextRun("today ", color: .blue), TextRun("😀")]
        c.rootLayer.addSublayer(label)
        try await c.sync()
        let shot = try await c.screenshot()
        let yellow = Self.pixels(shot) { r, g, b in r > 200 && g > 140 && b < 110 }
        // The words' ink, left of the emoji (whose own colours hold reds).
        let emojiStart = yellow.map(\.x).min() ?? 0
        let red = Self.pixels(shot, Self.isRed).filter { $0.x < emojiStart - 2 }
        let blue = Self.pixels(shot, Self.isBlue).filter { $0.x < emojiStart - 2 }
        #expect(red.count > 150 && blue.count > 150 && yellow.count > 150, "\(red.count) red, \(blue.count) blue, \(yellow.count) yellow")
        #expect((red.map(\.x).max() ?? 999) < (blue.map(\.x).min() ?? 0), "Sale left of today")
        #expect((blue.map(\.x).max() ?? 999) < (yellow.map(\.x).min() ?? 0), "today left of the emoji")
        #expect((red + blue + yellow).allSatisfy { $0.x >= 10 && $0.x < 310 && $0.y >= 10 && $0.y < 70 }, "inside the bounds")
        c.close()
    }

    // A scene file's attributedString, applied by laminactl: the runs in their colours, in
    // order; a misspelt run key is refused with a did-you-mean.
    @Test func sceneFileRuns() async throws {
        let daemon = try DaemonProcess(size: "320x120")
        let scene = daemon.directory + "/label.json"
        try ##"""
        {"sublayers": [{"name": "label", "class": "text", "frame": [10, 10, 300, 60], "fontSize": 32,
          "attributedString": [{"text": "Sale ", "color": "#FF0000", "weight": "bold"}, {"text": "today", "color": "#0000FF"}]}]}
        """##.write(toFile: scene, atomically: true, encoding: .utf8)
        var r = try daemon.laminactl(["apply", scene])
        #expect(r.status == 0, "\(r.output)")
        let c = try Connection.connect(to: daemon.socket, name: "viewer")
        let shot = try await c.screenshot()
        let red = Self.pixels(shot, Self.isRed), blue = Self.pixels(shot, Self.isBlue)
        #expect(red.count > 150 && blue.count > 150, "\(red.count) red, \(blue.count) blue")
        #expect((red.map(\.x).max() ?? 999) < (blue.map(\.x).min() ?? 0), "Sale left of today")
        let bad = daemon.directory + "/bad.json"
        try ##"{"sublayers": [{"class": "text", "attributedString": [{"text": "x", "colour": "#FF0000"}]}]}"##
            .write(toFile: bad, atomically: true, encoding: .utf8)
        r = try daemon.laminactl(["apply", bad])
        #expect(r.status != 0 && r.output.contains("did you mean 'color'"), "\(r.output)")
        c.close()
    }

    // Bad runs are refused with messages that name what is wrong; the layer keeps its runs.
    @Test func badRunsAreRefused() async throws {
        let daemon = try DaemonProcess(size: "320x120")
        let c = try Connection.connect(to: daemon.socket, name: "bad runs")
        let text = try await Self.label(c, [TextRun("ok", color: .red)])
        text.attributedString = (0..<257).map { TextRun("\($0)") }
        await #expect { try await c.sync() } throws: { "\($0)".contains("257 runs") && "\($0)".contains("256") }
        text.attributedString = [TextRun(String(repeating: "x", count: 40_000)), TextRun(String(repeating: "y", count: 40_000))]
        await #expect { try await c.sync() } throws: { "\($0)".contains("65536") }
        // (Swift's Color clamps; a colour out of range comes from another client, sent raw.)
        text.attributedString = [TextRun("x", weight: 5000)]
        await #expect { try await c.sync() } throws: { "\($0)".contains("run 0: weight") }
        text.attributedString = [TextRun("x", fontSize: .nan)]
        await #expect { try await c.sync() } throws: { "\($0)".contains("finite") }
        let raw = try ContentsEndToEndTests.RawClient(socket: daemon.socket)
        let marker = 0.123_456_789
        var bytes = ClientMessage.commit(Commit(serial: 1, operations: [
            .create(LayerID(1), kind: .text),
            .set(LayerID(1), .attributedString, .attributedString([TextRun("x", color: Color(red: marker, green: 0, blue: 0))])),
        ])).encoded()
        let pattern = withUnsafeBytes(of: marker.bitPattern.littleEndian) { Array($0) }
        let at = try #require((0...(bytes.count - 8)).first { Array(bytes[$0..<($0 + 8)]) == pattern })
        bytes.replaceSubrange(at..<(at + 8), with: withUnsafeBytes(of: (2.0).bitPattern.littleEndian) { Array($0) })
        try raw.send(bytes)
        let e = try raw.error()
        #expect(e?.message.contains("colour components must be in [0, 1], got 2.0") == true, "\(String(describing: e))")
        #expect(e?.message.contains("run 0 color") == true, "\(String(describing: e))")
        // laminad still draws the last good runs.
        let shot = try await c.screenshot()
        #expect(Self.pixels(shot, Self.isRed).count > 50, "the layer keeps its good runs")
        c.close()
    }
}
