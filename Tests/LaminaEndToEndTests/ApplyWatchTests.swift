import Foundation
import Testing
import LaminaCore
import LaminaImage

/// `laminactl apply --watch`: a real laminad and a real laminactl that stays, edited files,
/// and laminactl's output lines waited for (never slept on).
@Suite("laminactl apply --watch", .serialized)
struct ApplyWatchTests {
    func pixel(_ daemon: DaemonProcess, _ x: Int, _ y: Int) throws -> [Int] {
        let r = try daemon.laminactl(["screenshot", daemon.directory + "/shot.png", "--pixel", "\(x),\(y)"])
        guard let line = r.output.split(separator: "\n").first(where: { $0.hasPrefix("\(x),\(y): ") }) else { return [] }
        return line.dropFirst("\(x),\(y): ".count).split(separator: " ").compactMap { Int($0) }
    }

    /// Saved like an editor saves: a new file renamed over the old one.
    func save(_ text: String, to path: String) throws { try text.write(toFile: path, atomically: true, encoding: .utf8) }

    func scene(box: String, broken: Bool = false) -> String {
        ##"{"sublayers": [{"name": "box", "frame": [0, 0, 40, 40], "backgroundColor": "\##(box)"},"## +
            ##" {"name": "pic", "frame": [50, 0, 20, 20], "contents": "pic.png"}\##(broken ? "," : "")]}"##
    }

    @Test func reappliesOnEveryChangeAndKeepsTheLastGoodScene() throws {
        let daemon = try DaemonProcess()
        let file = daemon.directory + "/scene.json"
        let image = daemon.directory + "/pic.png"
        try PNG.write(Bitmap(width: 2, height: 2, fill: (0, 0, 255, 255)), toFile: image)
        try save(scene(box: "#FF0000"), to: file)
        let watch = try ProcessLines(DaemonProcess.tool("laminactl"), ["apply", "--watch", file, "--socket", daemon.socket])
        func lines() -> String { watch.lines.joined(separator: "\n") }

        guard let first = watch.waitForLine({ $0.hasPrefix("applied ") }) else { Issue.record("no first apply: \(lines())"); return }
        #expect(watch.lines[first].contains(": 2 created, 0 updated"), "\(lines())")
        #expect(try pixel(daemon, 20, 20) == [255, 0, 0, 255])
        #expect(try pixel(daemon, 60, 10) == [0, 0, 255, 255])

        // A broken edit: reported with its place, nothing sent, the last good scene stays.
        try save(scene(box: "#00FF00", broken: true), to: file)
        guard let error = watch.waitForLine(after: first + 1, { $0.contains("not valid JSON") }) else {
            Issue.record("no error line: \(lines())")
            return
        }
        #expect(watch.lines[error].hasPrefix("laminactl: \(file): line 1, column "), "\(lines())")
        #expect(watch.process.isRunning)
        #expect(try daemon.laminactl(["advance", "1"]).status == 0)
        #expect(try pixel(daemon, 20, 20) == [255, 0, 0, 255], "the last good scene stays on screen")

        // The next good edit is applied, the difference animated.
        try save(scene(box: "#00FF00"), to: file)
        guard let second = watch.waitForLine(after: error + 1, { $0.hasPrefix("applied ") }) else {
            Issue.record("no apply after the fix: \(lines())")
            return
        }
        #expect(watch.lines[second].contains(": 0 created, 1 updated, 0 removed, 1 properties set"), "\(lines())")
        #expect(try pixel(daemon, 20, 20) == [255, 0, 0, 255], "the change starts from the old colour")
        #expect(try daemon.laminactl(["advance", "1"]).status == 0)
        #expect(try pixel(daemon, 20, 20) == [0, 255, 0, 255])

        // An image the scene names changes: applied again, the new pixels shown.
        try PNG.write(Bitmap(width: 2, height: 2, fill: (255, 255, 0, 255)), toFile: image + ".new")
        #expect(rename(image + ".new", image) == 0)
        guard watch.waitForLine(after: second + 1, { $0.hasPrefix("applied ") }) != nil else {
            Issue.record("no apply after the image changed: \(lines())")
            return
        }
        #expect(try daemon.laminactl(["advance", "1"]).status == 0)
        #expect(try pixel(daemon, 60, 10) == [255, 255, 0, 255])

        // SIGTERM: a clean stop; the layers stay.
        #expect(watch.stop(SIGTERM) == 0, "\(lines())")
        #expect(lines().contains("stopped watching"), "\(lines())")
        #expect(try pixel(daemon, 20, 20) == [0, 255, 0, 255])
    }
}
