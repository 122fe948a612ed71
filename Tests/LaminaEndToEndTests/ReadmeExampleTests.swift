import Foundation
import Testing
import LaminaCore
import LaminaImage

/// The README's client example is `Examples/ReadmeExample/main.swift`, built as its own
/// executable with `import Lamina` alone (so every type it uses comes with that import), and run
/// here against a real laminad: its layers appear, a touch reaches its handler and recogniser,
/// and a key ends it.
@Suite("The README's example", .serialized)
struct ReadmeExampleTests {
    static var repository: String {
        var dir = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { dir = dir.deletingLastPathComponent() }
        return dir.path
    }

    /// The README's first scene ("A first scene") applied to a real laminad: it parses, and the
    /// panel and the badge are where the file puts them.
    @Test func theReadmesFirstSceneApplies() async throws {
        let readme = try String(contentsOfFile: Self.repository + "/README.md", encoding: .utf8)
        let lines = readme.components(separatedBy: "\n")
        let start = try #require(lines.firstIndex(of: "```json"))
        let end = try #require(lines[(start + 1)...].firstIndex(of: "```"))
        #expect(end - start - 1 <= 10, "the first scene stays ten lines")
        let daemon = try DaemonProcess(size: "800x400")
        let scene = daemon.directory + "/hello.json"
        try lines[(start + 1)..<end].joined(separator: "\n").write(toFile: scene, atomically: true, encoding: .utf8)
        let applied = try daemon.laminactl(["apply", "--disable-actions", scene])
        #expect(applied.status == 0, "\(applied.output)")
        let shot = daemon.directory + "/hello.png"
        #expect(try daemon.laminactl(["screenshot", shot]).status == 0)
        let image = try ImageFile.read(shot)
        let panel = image.pixel(x: 100, y: 300), badge = image.pixel(x: 660, y: 160)
        #expect(panel.r == 255 && (130...140).contains(Int(panel.g)) && panel.b == 0, "the panel: \(panel)")
        #expect(badge.r == 0x22 && badge.g == 0xAA && badge.b == 0x44, "the badge: \(badge)")
    }

    @Test func theReadmeShowsTheExampleExactlyAsBuilt() throws {
        let readme = try String(contentsOfFile: Self.repository + "/README.md", encoding: .utf8)
        let example = try String(contentsOfFile: Self.repository + "/Examples/ReadmeExample/main.swift", encoding: .utf8)
        // The block under "`Lamina`, the client library", indented two spaces in the list.
        let lines = readme.components(separatedBy: "\n")
        let start = try #require(lines.firstIndex(of: "  ```swift"))
        let end = try #require(lines[(start + 1)...].firstIndex(of: "  ```"))
        let block = lines[(start + 1)..<end].map { $0.hasPrefix("  ") ? String($0.dropFirst(2)) : $0 }.joined(separator: "\n") + "\n"
        #expect(block == example, "README.md's Swift example and Examples/ReadmeExample/main.swift differ")
        #expect(example.hasPrefix("import Lamina\n") && example.components(separatedBy: "import ").count == 2,
                "the example imports Lamina and nothing else")
    }

    @Test func theExampleRunsAgainstLaminad() throws {
        let daemon = try DaemonProcess(size: "640x480")
        let work = daemon.directory + "/example"
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        // logo.png: an opaque green square.
        let green = [UInt8]((0..<(16 * 16)).flatMap { _ in [0, 200, 0, 255] as [UInt8] })
        try PNG.write(try #require(Bitmap(width: 16, height: 16, bytes: green)), toFile: work + "/logo.png")
        // Through stdbuf: print() to a pipe is block-buffered, and the test reads lines as they come.
        let run = try ProcessLines("/usr/bin/stdbuf", ["-oL", DaemonProcess.tool("lamina-readme-example")], directory: work,
                                   environment: ["LAMINA_SOCKET": daemon.socket])
        defer { run.stop() }
        let ready = run.waitForLine { $0 == "waiting for a key" }
        try #require(ready != nil, "the example did not get to its input loop: \(run.lines)\n\(daemon.logText)")
        #expect(run.lines.contains("on screen at (200.0, 300.0)"), "\(run.lines)")
        #expect(run.lines.contains { $0 == "hit true at (10.0, 15.0)" }, "\(run.lines)")

        // Its layers on laminad: the box with its image and the ring, which ignores touches.
        let tree = try daemon.laminactl(["tree"]).output
        #expect(tree.contains("\"contents\""), "\(tree)")
        #expect(tree.contains("\"userInteractionEnabled\":false"), "\(tree)")
        // On the virtual clock nothing has moved yet: the push transition shows the box as it
        // was before it (orange), at its place.
        let before = try daemon.laminactl(["screenshot", work + "/shot.png", "--pixel", "200,300"])
        #expect(before.output.contains("200,300: 255 136 0 255"), "the box's pixel: \(before.output)")

        // A tap on the box: its handler prints where, its recogniser turns it red.
        for step in [["down", "1", "160", "290"], ["up", "1"]] {
            #expect(try daemon.laminactl(["input", "touch"] + step).status == 0)
        }
        let released = run.waitForLine { $0.hasPrefix("released at") }
        #expect(released != nil && run.lines[released!] == "released at (10.0, 15.0)", "\(run.lines)")
        // The recogniser's change is committed with the next implicit transaction: looked for in
        // laminad's tree until it shows (a bound for a broken run, not a wait for time to pass).
        var red = false
        for _ in 0..<200 where !red {
            red = try daemon.laminactl(["tree"]).output.contains("\"backgroundColor\":\"#FF0000FF\"")
        }
        #expect(red, "the tap turned the box red")
        // Keys go to the client that took the last press: the example prints the key and ends.
        #expect(try daemon.laminactl(["input", "key", "press", "a"]).status == 0)
        let key = run.waitForLine { $0.hasPrefix("key") }
        #expect(key.map { run.lines[$0] } == "key a", "\(run.lines)")
        // It ends by itself: waited for (it may not have exited the moment it printed the key).
        #expect(run.waitForExit() == 0, "the example exits cleanly once its loop ends: \(run.lines)")
    }

    /// The client library has no Foundation in it (about 50 MB on a small board): the example,
    /// which links only the library, needs none of Foundation's shared libraries.
    @Test func theClientLibraryLinksNoFoundation() throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/readelf")
        p.arguments = ["-d", DaemonProcess.tool("lamina-readme-example")]
        let pipe = Pipe()
        p.standardOutput = pipe
        try p.run()
        let out = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        #expect(out.contains("NEEDED") && out.contains("libswiftCore"), "\(out)")
        #expect(!out.contains("Foundation"), "the client library links Foundation:\n\(out)")
    }
}
