import Foundation
import Testing
import Lamina
import LaminaCore
import LaminaProtocol

/// Outputs changed at run time through a real headless laminad: `laminactl output` lists and
/// changes the mode; the scene's autoresizing follows by pixels, and a Swift client hears of it.
@Suite("Outputs at run time end to end", .serialized)
@MainActor
struct OutputEndToEndTests {
    func write(_ text: String, to path: String) throws { try text.write(toFile: path, atomically: true, encoding: .utf8) }

    /// The screen's pixel at (x, y) now, through `laminactl screenshot --pixel`.
    func pixel(_ daemon: DaemonProcess, _ x: Int, _ y: Int) throws -> [Int] {
        let r = try daemon.laminactl(["screenshot", daemon.directory + "/shot.png", "--pixel", "\(x),\(y)"])
        guard let line = r.output.split(separator: "\n").first(where: { $0.hasPrefix("\(x),\(y): ") }) else { return [] }
        return line.dropFirst("\(x),\(y): ".count).split(separator: " ").compactMap { Int($0) }
    }

    static let black = [0, 0, 0, 255], blue = [0, 0, 255, 255], red = [255, 0, 0, 255]

    /// A 1280×720 laminad showing a blue panel 40 points from every edge (width and height
    /// sizable) and a 100×100 red badge centred by flexible margins.
    func marginsScene() throws -> DaemonProcess {
        let daemon = try DaemonProcess(size: "1280x720")
        let scene = daemon.directory + "/scene.json"
        try write(##"""
            {"sublayers": [
              {"name": "panel", "frame": [40, 40, 1200, 640], "backgroundColor": "#0000FF", "autoresizingMask": ["widthSizable", "heightSizable"]},
              {"name": "badge", "frame": [590, 310, 100, 100], "backgroundColor": "#FF0000",
               "autoresizingMask": ["minXMargin", "maxXMargin", "minYMargin", "maxYMargin"]}
            ]}
            """##, to: scene)
        #expect(try daemon.laminactl(["apply", scene]).status == 0)
        return daemon
    }

    /// A blue panel 40 points from every edge and a red badge centred by flexible margins, applied
    /// at 1280×720; then `laminactl output headless mode 800x600`.
    @Test func aModeChangeLaysTheSceneOutAndTellsTheClients() async throws {
        let daemon = try marginsScene()
        #expect(try pixel(daemon, 640, 360) == Self.red)
        #expect(try pixel(daemon, 1250, 360) == Self.black)

        let c = try Connection.connect(to: daemon.socket, name: "watcher")
        var heard: [DisplayLayout] = []
        c.onDisplayChange = { heard.append($0) }
        #expect(c.displaySize == Size(width: 1280, height: 720))

        var r = try daemon.laminactl(["output"])
        #expect(r.status == 0 && r.output == "headless mode 1280x720 transform normal scale 1 position 0,0 size 1280x720 power on modes 1280x720\n", "\(r.output)")
        r = try daemon.laminactl(["output", "--json"])
        let json = try JSONSerialization.jsonObject(with: Data(r.output.utf8)) as? [String: Any]
        let listed = (json?["outputs"] as? [[String: Any]])?.first
        #expect(json?["backend"] as? String == "headless" && listed?["name"] as? String == "headless", "\(r.output)")
        #expect((listed?["mode"] as? [String: Any])?["width"] as? Int == 1280, "\(r.output)")

        r = try daemon.laminactl(["output", "headless", "mode", "800x600"])
        #expect(r.status == 0 && r.output.hasPrefix("headless mode 800x600 "), "\(r.output)")

        // The client hears of it (the message comes before laminactl's reply; wait for it to be read).
        for _ in 0..<200 where heard.isEmpty {
            try await c.sync()
            if heard.isEmpty { try await Task.sleep(for: .milliseconds(10)) }  // waits for the message, not a timing assertion
        }
        #expect(heard.count == 1)
        #expect(heard.first?.width == 800 && heard.first?.height == 600)
        #expect(heard.first?.outputs.map(\.name) == ["headless"] && heard.first?.outputs.first?.frame == Rect(x: 0, y: 0, width: 800, height: 600))
        #expect(c.displaySize == Size(width: 800, height: 600))
        #expect(c.rootLayer.bounds == Rect(x: 0, y: 0, width: 800, height: 600))

        // Layout animates by the layers' actions; once done, margins are kept and the badge centred.
        #expect(try daemon.laminactl(["advance", "1"]).status == 0)
        #expect(try pixel(daemon, 20, 300) == Self.black, "left margin")
        #expect(try pixel(daemon, 50, 300) == Self.blue)
        #expect(try pixel(daemon, 770, 300) == Self.black, "right margin kept (panel 40…760)")
        #expect(try pixel(daemon, 750, 300) == Self.blue)
        #expect(try pixel(daemon, 400, 20) == Self.black, "top margin")
        #expect(try pixel(daemon, 400, 570) == Self.black, "bottom margin kept (panel 40…560)")
        #expect(try pixel(daemon, 400, 300) == Self.red, "the badge stays centred (350…450, 250…350)")
        #expect(try pixel(daemon, 340, 300) == Self.blue)
        #expect(try pixel(daemon, 460, 300) == Self.blue)
        #expect(try pixel(daemon, 400, 240) == Self.blue)
        c.close()
    }

    /// The same scene turned a quarter at run time (`transform 90`): the desktop becomes 720×1280,
    /// the panel keeps its margins along the new edges and the badge is centred; the screenshot
    /// is the desktop, upright. Then scale 2 halves the desktop in points.
    @Test func aRotationLaysTheSceneOutAgain() async throws {
        let daemon = try marginsScene()
        var r = try daemon.laminactl(["output", "headless", "transform", "90"])
        #expect(r.status == 0 && r.output.hasPrefix("headless mode 1280x720 transform 90 scale 1 position 0,0 size 720x1280 "), "\(r.output)")
        #expect(try daemon.laminactl(["advance", "1"]).status == 0)
        #expect(try pixel(daemon, 20, 640) == Self.black, "left margin")
        #expect(try pixel(daemon, 50, 640) == Self.blue)
        #expect(try pixel(daemon, 700, 640) == Self.black, "right margin kept (panel 40…680)")
        #expect(try pixel(daemon, 670, 640) == Self.blue)
        #expect(try pixel(daemon, 360, 1260) == Self.black, "bottom margin kept (panel 40…1240)")
        #expect(try pixel(daemon, 360, 1230) == Self.blue)
        #expect(try pixel(daemon, 360, 640) == Self.red, "the badge stays centred (310…410, 590…690)")
        #expect(try pixel(daemon, 300, 640) == Self.blue)
        #expect(try pixel(daemon, 360, 580) == Self.blue)

        r = try daemon.laminactl(["output", "headless", "scale", "2"])
        #expect(r.status == 0 && r.output.contains(" scale 2 position 0,0 size 360x640 "), "\(r.output)")
        #expect(try daemon.laminactl(["advance", "1"]).status == 0)
        #expect(try pixel(daemon, 180, 320) == Self.red, "centred in 360×640")
        #expect(try pixel(daemon, 300, 320) == Self.blue, "panel 40…320")
        #expect(try pixel(daemon, 340, 320) == Self.black, "right margin kept")
    }

    /// `laminactl output …` made at run time survives a restart over the same configuration;
    /// SIGHUP reads the file again and makes the outputs what it says (the run-time change
    /// undone, the file's own applied); a restart after that starts from the file.
    @Test func runTimeChangesSurviveARestartUntilTheConfigurationChanges() throws {
        let directory = NSTemporaryDirectory() + "lamina-e2e-" + UUID().uuidString.prefix(8)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let config = directory + "/config.toml"
        try write("# a kiosk\n", to: config)
        let first = try DaemonProcess(size: "320x240", extra: ["--config", config], directory: directory)
        func listed(_ d: DaemonProcess) throws -> String { try d.laminactl(["output", "headless"]).output }
        #expect(try first.laminactl(["output", "headless", "transform", "90"]).status == 0)
        #expect(try listed(first).contains(" transform 90 scale 1 position 0,0 size 240x320 "))
        first.kill(SIGTERM)

        let second = try DaemonProcess(size: "320x240", extra: ["--config", config], directory: first.directory)
        #expect(try listed(second).contains(" transform 90 scale 1 position 0,0 size 240x320 "), "kept across the restart")
        #expect(second.logText.contains("outputs: headless transform 90 (kept from before the restart)"))

        try write("# a kiosk\n[[output]]\nname = \"headless\"\nscale = 2\n", to: config)
        Foundation.kill(second.process.processIdentifier, SIGHUP)
        // The signal is handled on laminad's loop; each listing is a round trip after it.
        var now = ""
        for _ in 0..<100 {
            now = try listed(second)
            if now.contains(" scale 2 ") { break }
        }
        #expect(now.contains(" transform normal scale 2 position 0,0 size 160x120 "), "the file's settings, the run-time change undone: \(now)")
        second.kill(SIGTERM)

        let third = try DaemonProcess(size: "320x240", extra: ["--config", config], directory: first.directory)
        #expect(try listed(third).contains(" transform normal scale 2 position 0,0 size 160x120 "), "from the file")
        #expect(!third.logText.contains("kept from before the restart"))
    }

    @Test func badOutputRequestsAreRefusedWithWhatWasWrong() throws {
        let daemon = try DaemonProcess()
        var r = try daemon.laminactl(["output", "nope", "mode", "800x600"])
        #expect(r.status == 65 && r.output.contains("no output named 'nope' (outputs: headless)") && !r.output.contains("Usage"), "\(r.output)")
        r = try daemon.laminactl(["output", "nope"])
        #expect(r.status == 65 && r.output.contains("no output named 'nope' (outputs: headless)"), "\(r.output)")
        r = try daemon.laminactl(["output", "headless", "mode", "800by600"])
        #expect(r.status == 64 && r.output.contains("malformed mode '800by600'"), "\(r.output)")
        r = try daemon.laminactl(["output", "headless", "mode", "0x0"])
        #expect(r.status == 65 && r.output.contains("mode 0x0 is out of range: width and height must each be 1 to 8192 pixels"), "\(r.output)")
        r = try daemon.laminactl(["output", "headless", "mode", "100000x100000"])
        #expect(r.status == 65 && r.output.contains("mode 100000x100000 is out of range"), "\(r.output)")
        r = try daemon.laminactl(["output", "headless", "mode", "800x600@60"])
        #expect(r.status == 65 && r.output.contains("has no refresh"), "\(r.output)")
        r = try daemon.laminactl(["output", "headless", "transform", "sideways"])
        #expect(r.status == 65 && r.output.contains("unknown transform 'sideways'"), "\(r.output)")
        r = try daemon.laminactl(["output", "headless", "scale", "lots"])
        #expect(r.status == 64 && r.output.contains("malformed scale 'lots'"), "\(r.output)")
        r = try daemon.laminactl(["output", "headless", "position", "1"])
        #expect(r.status == 64 && r.output.contains("position X Y"), "\(r.output)")
        r = try daemon.laminactl(["output", "headless", "disable"])
        #expect(r.status == 65 && r.output.contains("headless is the only output"), "\(r.output)")
        // Nothing changed.
        r = try daemon.laminactl(["output"])
        #expect(r.output.hasPrefix("headless mode 320x240 "), "\(r.output)")
    }
}
