import Foundation
import Testing
import LaminaCore

/// How `laminactl apply` and `eval` treat time and place: first appearances, actions, the root.
@Suite("Scene apply semantics", .serialized)
struct SceneApplyTests {
    func write(_ text: String, to path: String) throws { try text.write(toFile: path, atomically: true, encoding: .utf8) }

    /// The screen's pixel at (x, y) now, through `laminactl screenshot --pixel`.
    func pixel(_ daemon: DaemonProcess, _ x: Int, _ y: Int) throws -> [Int] {
        let r = try daemon.laminactl(["screenshot", daemon.directory + "/shot.png", "--pixel", "\(x),\(y)"])
        guard let line = r.output.split(separator: "\n").first(where: { $0.hasPrefix("\(x),\(y): ") }) else { return [] }
        return line.dropFirst("\(x),\(y): ".count).split(separator: " ").compactMap { Int($0) }
    }

    /// The `presentation` object `laminactl tree --presentation` gives the layer named `name`
    /// (the values that differ from its model), or nil when it has none.
    func presentation(_ daemon: DaemonProcess, layer name: String) throws -> [String: Any]? {
        let out = try daemon.laminactl(["tree", "--presentation"]).output
        let json = try JSONSerialization.jsonObject(with: Data(out.utf8)) as? [String: Any]
        func find(_ l: [String: Any]) -> [String: Any]?? {
            if l["name"] as? String == name { return .some(l["presentation"] as? [String: Any]) }
            for s in l["sublayers"] as? [[String: Any]] ?? [] { if let hit = find(s) { return hit } }
            return nil
        }
        for c in json?["clients"] as? [[String: Any]] ?? [] {
            if let root = c["root"] as? [String: Any], let hit = find(root) { return hit }
        }
        return nil
    }

    /// A first apply shows its values at once, the new session's root included (Core Animation
    /// does not animate a first appearance); a later apply animates the differences.
    @Test func firstApplyIsImmediateLaterAppliesAnimate() throws {
        let daemon = try DaemonProcess()
        let scene = daemon.directory + "/scene.json"
        try write(##"{"backgroundColor": "#FF0000", "sublayers": [{"name": "box", "frame": [0, 0, 40, 40], "backgroundColor": "#00FF00"}]}"##, to: scene)
        #expect(try daemon.laminactl(["apply", scene]).status == 0)
        #expect(try pixel(daemon, 200, 200) == [255, 0, 0, 255], "the root's colour shows right after the first apply")
        #expect(try pixel(daemon, 20, 20) == [0, 255, 0, 255])

        try write(##"{"backgroundColor": "#0000FF", "sublayers": [{"name": "box", "frame": [0, 0, 40, 40], "backgroundColor": "#00FF00"}, {"name": "new", "frame": [60, 0, 40, 40], "backgroundColor": "#FFFFFF"}]}"##, to: scene)
        #expect(try daemon.laminactl(["apply", scene]).status == 0)
        #expect(try pixel(daemon, 200, 200) == [255, 0, 0, 255], "a later change starts from the old value")
        #expect(try pixel(daemon, 80, 20) == [255, 255, 255, 255], "a layer created by a later apply appears at once")
        #expect(try daemon.laminactl(["advance", "1"]).status == 0)
        #expect(try pixel(daemon, 200, 200) == [0, 0, 255, 255])

        // A resumed session's root is not new: its change animates.
        try write(##"{"backgroundColor": "#FFFF00", "sublayers": []}"##, to: scene)
        #expect(try daemon.laminactl(["apply", scene]).status == 0)
        #expect(try pixel(daemon, 200, 200) == [0, 0, 255, 255])
    }

    /// `"actions": {"opacity": null}`: that key changes at once while the others animate.
    @Test func aNullActionMakesThatKeyImmediate() throws {
        let daemon = try DaemonProcess()
        let scene = daemon.directory + "/scene.json"
        try write(##"{"sublayers": [{"name": "card", "frame": [0, 0, 40, 40], "backgroundColor": "#FFFFFF", "opacity": 1, "actions": {"opacity": null}}]}"##, to: scene)
        #expect(try daemon.laminactl(["apply", scene]).status == 0)
        try write(##"{"sublayers": [{"name": "card", "frame": [100, 0, 40, 40], "backgroundColor": "#FFFFFF", "opacity": 0.5, "actions": {"opacity": null}}]}"##, to: scene)
        #expect(try daemon.laminactl(["apply", scene]).status == 0)
        let p = try presentation(daemon, layer: "card")
        #expect(p?["opacity"] == nil, "opacity has no action: \(String(describing: p))")
        #expect((p?["position"] as? [Double])?.first == 20, "position animates from its old place: \(String(describing: p))")
        // On screen: the old place, at half opacity already.
        let shown = try pixel(daemon, 20, 20)
        #expect(shown.count == 4 && abs(shown[0] - 128) <= 1, "\(shown)")
        #expect(try daemon.laminactl(["advance", "1"]).status == 0)
        #expect(try presentation(daemon, layer: "card") == nil)
        #expect(try pixel(daemon, 20, 20) == [0, 0, 0, 255])

        // Without the action, opacity animates again (the file is declarative).
        try write(##"{"sublayers": [{"name": "card", "frame": [100, 0, 40, 40], "backgroundColor": "#FFFFFF", "opacity": 1}]}"##, to: scene)
        #expect(try daemon.laminactl(["apply", scene]).status == 0)
        #expect(try presentation(daemon, layer: "card")?["opacity"] as? Double == 0.5)
    }

    /// `eval` places the root as laminad does: the display's bounds, centred.
    @Test func evalPlacesTheRootAsLaminadDoes() throws {
        let daemon = try DaemonProcess(size: "320x240")
        let scene = daemon.directory + "/scene.json"
        try write(##"{"opacity": 0.5, "sublayers": [{"name": "a", "frame": [0, 0, 10, 10]}]}"##, to: scene)
        #expect(try daemon.laminactl(["apply", scene]).status == 0)
        let tree = try JSONSerialization.jsonObject(with: Data(try daemon.laminactl(["tree"]).output.utf8)) as? [String: Any]
        let root = (tree?["clients"] as? [[String: Any]])?.first { $0["session"] as? String == "laminactl" }?["root"] as? [String: Any]
        #expect(root?["position"] as? [Double] == [160, 120] && root?["bounds"] as? [Double] == [0, 0, 320, 240], "\(String(describing: root))")
        var r = try daemon.laminactl(["eval", scene, "--at", "0", "--layer", "root", "--size", "320x240"], withSocket: false)
        #expect(r.output.contains(#"{"root":{"bounds":[0,0,320,240],"position":[160,120],"opacity":0.5}}"#), "\(r.output)")
        r = try daemon.laminactl(["eval", scene, "--at", "0", "--layer", "root", "--key", "position"], withSocket: false)
        #expect(r.output.contains(#"{"root":{"position":[640,360]}}"#), "laminad's default display is 1280x720: \(r.output)")
        r = try daemon.laminactl(["eval", scene, "--at", "0", "--size", "0x5"], withSocket: false)
        #expect(r.status == 64 && r.output.contains("--size takes WIDTHxHEIGHT"), "\(r.output)")
    }
}
