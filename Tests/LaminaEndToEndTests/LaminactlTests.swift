import Foundation
import Testing
import LaminaCore
import LaminaImage

/// laminactl as a new user meets it: exit statuses, messages, where it looks for laminad.
@Suite("laminactl rough edges", .serialized)
struct LaminactlTests {
    func write(_ text: String, to path: String) throws { try text.write(toFile: path, atomically: true, encoding: .utf8) }

    /// Data errors print the error alone with a sysexits status; only wrong usage prints the
    /// usage (64).
    @Test func exitStatusesFollowSysexits() throws {
        let daemon = try DaemonProcess()
        let scene = daemon.directory + "/scene.json"

        try write(#"{"sublayers": [{"name": "a", "opacity": "x"}]}"#, to: scene)
        var r = try daemon.laminactl(["apply", scene])
        #expect(r.status == 65, "\(r.output)")
        #expect(r.output == "laminactl: \(scene): $.sublayers[0].opacity: expected a number, not a string\n", "\(r.output)")

        try write("{\"sublayers\": [\n  {\"name\": \"a\" \"opacity\": 1}]}", to: scene)
        r = try daemon.laminactl(["apply", scene])
        #expect(r.status == 65, "\(r.output)")
        #expect(r.output.contains("\(scene): line 2, column 16: not valid JSON: expected ',' or '}' after the value of \"name\""), "\(r.output)")
        #expect(!r.output.contains("Usage"), "\(r.output)")

        r = try daemon.laminactl(["eval", scene, "--at", "0"], withSocket: false)
        #expect(r.status == 65 && r.output.contains("line 2, column 16") && !r.output.contains("Usage"), "\(r.output)")

        // laminad refuses: 65, its message alone.
        r = try daemon.laminactl(["display", "on", "HDMI-A-1"])
        #expect(r.status == 65 && r.output.contains("no output named 'HDMI-A-1'") && !r.output.contains("Usage"), "\(r.output)")
        r = try daemon.laminactl(["input", "key", "press", "NoSuchKeyName"])
        #expect(r.status == 65 && !r.output.contains("Usage"), "\(r.output)")

        // Wrong usage: 64 with the usage.
        r = try daemon.laminactl(["display", "dim"])
        #expect(r.status == 64 && r.output.contains("display takes off or on") && r.output.contains("Usage"), "\(r.output)")
        r = try daemon.laminactl(["apply"])
        #expect(r.status == 64 && r.output.contains("Usage"), "\(r.output)")
        r = try daemon.laminactl(["apply", scene, "--duration", "-1"])
        #expect(r.status == 64, "\(r.output)")

        // Nobody there: 69.
        r = try DaemonProcess.laminactl(["stats", "--socket", daemon.directory + "/nobody.sock"])
        #expect(r.status == 69, "\(r.output)")
        #expect(r.output.contains("cannot connect to laminad at \(daemon.directory)/nobody.sock (--socket): No such file or directory"), "\(r.output)")

        // The help says what the statuses mean.
        r = try DaemonProcess.laminactl(["--help"])
        let help = r.output.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(r.status == 0 && help.contains("65 bad input") && help.contains("69 laminad unavailable"), "\(r.output)")
    }

    /// Without --socket or LAMINA_SOCKET, laminactl tries $XDG_RUNTIME_DIR/lamina-0 and then the
    /// system socket, and names both when neither answers.
    @Test func socketLookupFallsBackAndSaysWhatItTried() throws {
        let daemon = try DaemonProcess()
        let runtime = daemon.directory + "/runtime"
        try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: true)
        let env: [String: String?] = ["LAMINA_SOCKET": nil, "XDG_RUNTIME_DIR": runtime]
        #expect(!FileManager.default.fileExists(atPath: "/run/lamina/lamina.sock"), "a system laminad runs here; this test needs none")
        var r = try DaemonProcess.laminactl(["stats"], environment: env)
        #expect(r.status == 69, "\(r.output)")
        #expect(r.output.contains("no laminad answered; tried \(runtime)/lamina-0 ($XDG_RUNTIME_DIR/lamina-0): No such file or directory; /run/lamina/lamina.sock (the system socket): No such file or directory"), "\(r.output)")

        // The user's own daemon answers first.
        try FileManager.default.createSymbolicLink(atPath: runtime + "/lamina-0", withDestinationPath: daemon.socket)
        r = try DaemonProcess.laminactl(["stats"], environment: env)
        #expect(r.status == 0 && r.output.contains("framesRendered"), "\(r.output)")

        // LAMINA_SOCKET is a choice, not a hint: no fallback from it.
        r = try DaemonProcess.laminactl(["stats"], environment: ["LAMINA_SOCKET": runtime + "/other", "XDG_RUNTIME_DIR": runtime])
        #expect(r.status == 69 && r.output.contains("cannot connect to laminad at \(runtime)/other ($LAMINA_SOCKET)"), "\(r.output)")
    }

    /// `contents` names the sessions that have the layer when the chosen one does not.
    @Test func contentsNamesTheSessionsThatHaveTheLayer() throws {
        let daemon = try DaemonProcess()
        let scene = daemon.directory + "/scene.json"
        try write(#"{"sublayers": [{"name": "logo", "frame": [0, 0, 40, 40]}]}"#, to: scene)
        #expect(try daemon.laminactl(["apply", scene, "--session", "kiosk"]).status == 0)
        var r = try daemon.laminactl(["contents", "logo", fixturePath("orange.jpg")])
        #expect(r.status == 65, "\(r.output)")
        #expect(r.output == "laminactl: session 'laminactl' has no layer named 'logo'; session 'kiosk' has one: add --session kiosk\n", "\(r.output)")
        #expect(try daemon.laminactl(["apply", scene, "--session", "signage"]).status == 0)
        r = try daemon.laminactl(["contents", "logo", fixturePath("orange.jpg")])
        #expect(r.output.contains("sessions 'kiosk', 'signage' have one: choose with --session"), "\(r.output)")
        r = try daemon.laminactl(["contents", "nothing", fixturePath("orange.jpg"), "--session", "kiosk"])
        #expect(r.status == 65 && r.output.contains("session 'kiosk' has no layer named 'nothing'; no session has one"), "\(r.output)")
        r = try daemon.laminactl(["contents", "logo", fixturePath("orange.jpg"), "--session", "kiosk"])
        #expect(r.status == 0, "\(r.output)")
    }

    /// A first apply's summary counts layers once: created, not also updated.
    @Test func applySummaryCountsWhatHappened() throws {
        let daemon = try DaemonProcess()
        let scene = daemon.directory + "/scene.json"
        try write(#"{"sublayers": [{"name": "a", "opacity": 0.5}, {"name": "b", "sublayers": [{"name": "c", "cornerRadius": 3}]}]}"#, to: scene)
        var r = try daemon.laminactl(["apply", scene])
        #expect(r.output.contains(": 3 created, 0 updated, 0 removed"), "\(r.output)")
        try write(#"{"sublayers": [{"name": "a", "opacity": 0.7}]}"#, to: scene)
        r = try daemon.laminactl(["apply", scene])
        #expect(r.output.contains(": 0 created, 1 updated, 1 removed, 1 properties set"), "\(r.output)")
    }

    /// `watch` reports an animation's start and stop with the same client, also when the client
    /// that added it (laminactl apply) has gone by the stop.
    @Test func watchNamesTheSameClientAtStartAndStop() throws {
        let daemon = try DaemonProcess()
        let scene = daemon.directory + "/scene.json"
        try write(#"{"sublayers": [{"name": "a", "frame": [0, 0, 10, 10], "opacity": 1}]}"#, to: scene)
        #expect(try daemon.laminactl(["apply", scene]).status == 0)
        let watch = try ProcessLines(DaemonProcess.tool("laminactl"), ["watch", "--socket", daemon.socket])
        #expect(watch.waitForLine { $0 == "laminactl: watching" } != nil, "\(watch.lines)")
        try write(#"{"sublayers": [{"name": "a", "frame": [0, 0, 10, 10], "opacity": 0.2}]}"#, to: scene)
        #expect(try daemon.laminactl(["apply", scene]).status == 0)
        #expect(try daemon.laminactl(["advance", "1"]).status == 0)
        let start = watch.waitForLine { $0.contains(#""event":"didStart""#) }
        let stop = watch.waitForLine { $0.contains(#""event":"didStop""#) }
        let lines = watch.lines
        guard let start, let stop else { Issue.record("no didStart/didStop: \(lines)"); return }
        func field(_ line: String, _ name: String) -> String? {
            guard let json = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], let v = json[name] else { return nil }
            return "\(v)"
        }
        #expect(field(lines[start], "client") != nil && field(lines[start], "client") != "0", "\(lines[start])")
        #expect(field(lines[start], "client") == field(lines[stop], "client"), "\(lines[start]) / \(lines[stop])")
        #expect(field(lines[stop], "session") == "laminactl", "\(lines[stop])")
        watch.stop()
    }
}

extension LaminactlTests {
    /// `watch` ends with 69 when laminad goes away, saying so once.
    @Test func watchEndsWithUnavailableWhenLaminadGoes() throws {
        let daemon = try DaemonProcess()
        let watch = try ProcessLines(DaemonProcess.tool("laminactl"), ["watch", "--socket", daemon.socket])
        #expect(watch.waitForLine { $0 == "laminactl: watching" } != nil, "\(watch.lines)")
        daemon.kill(SIGTERM)
        #expect(watch.stop(0) == 69, "\(watch.lines)")
        #expect(watch.lines.filter { $0.contains("connection closed") }.count == 1, "\(watch.lines)")
    }
}
