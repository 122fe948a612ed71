import Foundation
import Testing
import Lamina
import LaminaCore
import LaminaImage

/// Font files that ship with an app: registered over the socket (bytes in a memory file) and
/// named by a scene file's `font`.
@Suite("fonts end to end", .serialized)
@MainActor
struct FontEndToEndTests {
    /// A 704-byte TrueType font, family "Lamina Test Blocks": A is a 1 em square (baseline
    /// −0.2 em to 0.8 em), B a half-em square. No installed font draws A as a solid block.
    static let blocksFont = fixturePath("LaminaTestBlocks.ttf")

    @Test func theClientLibraryRegistersAFontOnce() async throws {
        let daemon = try DaemonProcess()
        let c = try Connection.connect(to: daemon.socket, name: "fonts")
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Self.blocksFont)))
        #expect(try await c.registerFont(bytes: bytes) == ["Lamina Test Blocks"])
        #expect(try await c.registerFont(bytes: bytes) == ["Lamina Test Blocks"], "the same bytes again")
        // Refusals name what was wrong; the connection goes on.
        await #expect(throws: LaminaError.self) { _ = try await c.registerFont(bytes: Array("not a font".utf8)) }
        let dejavu = [UInt8](try Data(contentsOf: URL(fileURLWithPath: "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")))
        do {
            _ = try await c.registerFont(bytes: dejavu)
            Issue.record("an installed family was registered again")
        } catch let e as LaminaError {
            #expect(e.description.contains("'DejaVu Sans' is installed already"), "\(e)")
        }
        #expect(try await c.stats().contains { $0.name == "framesRendered" })
        c.close()
    }

    @Test func aSceneNamesAFontFileBesideIt() throws {
        let daemon = try DaemonProcess()
        try FileManager.default.copyItem(atPath: Self.blocksFont, toPath: daemon.directory + "/Blocks.ttf")
        let scene = daemon.directory + "/scene.json"
        try ##"""
        {"sublayers": [{"name": "title", "class": "text", "frame": [0, 0, 200, 60], "string": "AAAA", "fontSize": 40,
                        "foregroundColor": "#FFFFFF", "font": "Blocks.ttf"}]}
        """##.write(toFile: scene, atomically: true, encoding: .utf8)
        var r = try daemon.laminactl(["apply", scene])
        #expect(r.status == 0, "\(r.output)")
        #expect(try daemon.laminactl(["tree"]).output.contains(#""font":"Lamina Test Blocks""#))
        r = try daemon.laminactl(["screenshot", daemon.directory + "/shot.png"])
        let shot = try PNG.read(fromFile: daemon.directory + "/shot.png")
        var white = 0
        for y in 0..<60 { for x in 0..<200 where shot.pixel(x: x, y: y).r > 200 { white += 1 } }
        // Four 40×40 blocks: 6400 pixels (antialiased edges aside); DejaVu's AAAA inks a fraction.
        #expect(white > 6000 && white < 6800, "\(white) white pixels")

        // Applying again registers nothing new; bad font files are refused with exit 65.
        #expect(try daemon.laminactl(["apply", scene]).status == 0)
        try "not a font".write(toFile: daemon.directory + "/Bogus.ttf", atomically: true, encoding: .utf8)
        try ##"{"sublayers": [{"class": "text", "string": "x", "font": "Bogus.ttf"}]}"##.write(toFile: scene, atomically: true, encoding: .utf8)
        r = try daemon.laminactl(["apply", scene])
        #expect(r.status == 65 && r.output.contains("font \(daemon.directory)/Bogus.ttf: laminad refused it: not a font file"), "\(r.output)")
        try ##"{"sublayers": [{"class": "text", "string": "x", "font": "Missing.otf"}]}"##.write(toFile: scene, atomically: true, encoding: .utf8)
        r = try daemon.laminactl(["apply", scene])
        #expect(r.status == 65 && r.output.contains("Missing.otf: cannot read the file"), "\(r.output)")
    }
}
