import CCairo
import Foundation
import LaminaCore
import LaminaRaster
import Testing

/// SVG documents parsed and drawn by `SVGDocument` (librsvg), against the same figure drawn
/// with cairo's own calls here, at 1× and 2×; sharp at 4×; bad documents refused with the
/// reason; external references never loaded.
@Suite("SVG documents")
struct SVGDocumentTests {
    static let limit = 4 << 20
    /// A 60 × 40 document: a red rectangle and a half-transparent blue circle.
    static let figure = """
        <svg xmlns="http://www.w3.org/2000/svg" width="60" height="40">
          <rect x="5" y="5" width="30" height="20" fill="#ff0000"/>
          <circle cx="40" cy="20" r="15" fill="#0000ff" fill-opacity="0.5"/>
        </svg>
        """

    static func document(_ text: String) throws -> SVGDocument {
        try SVGDocument(data: Array(text.utf8), maximumBytes: limit)
    }

    /// The figure drawn by cairo alone (premultiplied RGBA).
    static func reference(scale: Double) -> [UInt8] {
        CairoReference.draw(width: 60, height: 40, scale: scale) { cr in
            cairo_rectangle(cr, 5, 5, 30, 20)
            cairo_set_source_rgba(cr, 1, 0, 0, 1)
            cairo_fill(cr)
            cairo_arc(cr, 40, 20, 15, 0, 2 * Double.pi)
            cairo_set_source_rgba(cr, 0, 0, 1, 0.5)
            cairo_fill(cr)
        }
    }

    @Test(arguments: [1.0, 2.0])
    func figureMatchesCairo(scale: Double) throws {
        let doc = try Self.document(Self.figure)
        #expect(doc.size == Size(width: 60, height: 40))
        let image = try #require(doc.rasterize(scale: scale))
        #expect(image.bitmap.width == Int(60 * scale) && image.bitmap.height == Int(40 * scale))
        #expect(image.frame == Rect(x: 0, y: 0, width: 60, height: 40))
        let reference = Self.reference(scale: scale)
        #expect(reference.count == image.bitmap.bytes.count)
        let (differing, worst) = CairoReference.difference(reference, image.bitmap.bytes, tolerance: 3)
        #expect(differing <= image.bitmap.bytes.count / 200, "\(differing) channels differ by more than 3 (worst \(worst)) at \(scale)x")
        let red = image.bitmap.pixel(x: Int(10 * scale), y: Int(10 * scale))
        #expect(red.r == 255 && red.a == 255 && red.b == 0, "red rectangle: \(red)")
    }

    /// A viewBox alone gives the size; the document is drawn to fill it.
    @Test func viewBoxGivesTheSize() throws {
        let doc = try Self.document(##"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 16"><rect width="32" height="16" fill="#00ff00"/></svg>"##)
        #expect(doc.size == Size(width: 32, height: 16))
        let image = try #require(doc.rasterize(scale: 1))
        #expect(image.bitmap.pixel(x: 31, y: 15).g == 255)
    }

    /// At 4× the edge of a filled shape is as sharp as one drawn natively at 4×: the run of
    /// part-covered pixels across a vertical edge is at most 2 pixels wide, not the 4 a 1×
    /// bitmap scaled up would give.
    @Test func sharpAtFourTimes() throws {
        let doc = try Self.document(#"<svg xmlns="http://www.w3.org/2000/svg" width="20" height="20"><rect x="5.3" y="0" width="10" height="20" fill="black"/></svg>"#)
        let image = try #require(doc.rasterize(scale: 4))
        #expect(image.bitmap.width == 80)
        let y = 40
        var partial = 0
        for x in 0..<80 {
            let a = image.bitmap.pixel(x: x, y: y).a
            if a > 8 && a < 247 { partial += 1 }
        }
        // Two edges, each at most one part-covered pixel (5.3 × 4 = 21.2; 15.3 × 4 = 61.2).
        #expect(partial <= 2, "\(partial) part-covered pixels across two edges")
        #expect(image.bitmap.pixel(x: 22, y: y).a == 255 && image.bitmap.pixel(x: 20, y: y).a == 0)
    }

    /// A document far larger than the raster limit is drawn smaller, never allocated at full size.
    @Test func bigScaleIsDrawnSmallerNotRefused() throws {
        let doc = try Self.document(#"<svg xmlns="http://www.w3.org/2000/svg" width="2000" height="1000"/>"#)
        let image = try #require(doc.rasterize(scale: 8))
        #expect(image.bitmap.width == rasterMaximumSide && image.bitmap.height == rasterMaximumSide / 2)
    }

    @Test func badDocumentsAreRefusedWithTheReason() throws {
        #expect(throws: SVGDocument.Failure.empty) { try SVGDocument(data: [], maximumBytes: Self.limit) }
        #expect(throws: SVGDocument.Failure.tooManyBytes(101, limit: 100)) {
            try SVGDocument(data: [UInt8](repeating: 0x20, count: 101), maximumBytes: 100)
        }
        let truncated = String(Self.figure.prefix(70))
        for bad in [truncated, "not xml at all", "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"10\" height=\"10\"><rect></svg>"] {
            do {
                _ = try Self.document(bad)
                Issue.record("accepted \(bad)")
            } catch let error as SVGDocument.Failure {
                guard case .malformed(let why) = error else { Issue.record("\(error) for \(bad)"); continue }
                #expect(!why.isEmpty)
                #expect(error.description.contains("could not be parsed"))
            } catch {
                Issue.record("\(error)")
            }
        }
        #expect(throws: SVGDocument.Failure.noSize) { try Self.document(#"<svg xmlns="http://www.w3.org/2000/svg"/>"#) }
        #expect(throws: SVGDocument.Failure.noSize) {
            try Self.document(#"<svg xmlns="http://www.w3.org/2000/svg" width="100%" height="50%"/>"#)
        }
        #expect(throws: SVGDocument.Failure.sizeTooLarge(width: 100_000, height: 10, limit: SVGDocument.maximumSide)) {
            try Self.document(#"<svg xmlns="http://www.w3.org/2000/svg" width="100000" height="10"/>"#)
        }
    }

    /// Bombs: a gzip-compressed document (librsvg would inflate it past the byte limit) is
    /// refused; nested entities (a billion laughs in 600 bytes) are refused by the parser or
    /// expand within libxml2's amplification bound, drawn without running away.
    @Test func bombsAreRefusedOrBounded() throws {
        #expect(throws: SVGDocument.Failure.compressed) {
            try SVGDocument(data: [0x1F, 0x8B, 0x08, 0x00] + [UInt8](repeating: 0, count: 20), maximumBytes: Self.limit)
        }
        var laughs = "<?xml version=\"1.0\"?>\n<!DOCTYPE svg [\n<!ENTITY a \"aaaaaaaaaa\">\n"
        var previous = "a"
        for name in ["b", "c", "d", "e", "f", "g", "h", "i", "j"] {
            laughs += "<!ENTITY \(name) \"" + String(repeating: "&\(previous);", count: 10) + "\">\n"
            previous = name
        }
        laughs += "]>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"10\" height=\"10\"><text>&\(previous);</text></svg>"
        do {
            let doc = try Self.document(laughs)
            let image = doc.rasterize(scale: 1)
            #expect(image == nil || image!.bitmap.width == 10)
        } catch let error as SVGDocument.Failure {
            guard case .malformed = error else { Issue.record("\(error)"); return }
        }
    }

    /// An `<image>` naming a file (absolute, relative, file: URL) or an `xi:include` draws nothing:
    /// the document has no base URL, so librsvg loads nothing outside it. A `data:` URL inside
    /// the document is drawn (it is not external).
    @Test func externalReferencesAreNeverLoaded() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("lamina-svg-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        // A 1×1 opaque red PNG.
        let png = Data(base64Encoded: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==")!
        let file = dir.appendingPathComponent("red.png")
        try png.write(to: file)
        let secret = dir.appendingPathComponent("secret.txt")
        try Data("secret".utf8).write(to: secret)
        for href in [file.path, "file://" + file.path, "red.png"] {
            let doc = try Self.document(#"<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="10" height="10"><image x="0" y="0" width="10" height="10" xlink:href="\#(href)" href="\#(href)"/></svg>"#)
            let image = try #require(doc.rasterize(scale: 1))
            #expect(image.bitmap.bytes.allSatisfy { $0 == 0 }, "\(href) was loaded")
        }
        let include = #"<svg xmlns="http://www.w3.org/2000/svg" xmlns:xi="http://www.w3.org/2001/XInclude" width="10" height="10"><text x="0" y="9"><xi:include href="\#(secret.path)" parse="text"/></text></svg>"#
        if let doc = try? Self.document(include), let image = doc.rasterize(scale: 1) {
            #expect(image.bitmap.bytes.allSatisfy { $0 == 0 }, "xi:include was loaded")
        }
        let inline = try Self.document(#"<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><image x="0" y="0" width="10" height="10" href="data:image/png;base64,\#(png.base64EncodedString())"/></svg>"#)
        let drawn = try #require(inline.rasterize(scale: 1))
        #expect(drawn.bitmap.pixel(x: 5, y: 5).r > 200)
    }
}
