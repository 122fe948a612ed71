import Testing
import LaminaKMS
import LaminaProtocol
@testable import LaminaDaemon

/// Run-time output changes kept across restarts, and the changes between two configurations:
/// no display, no files.
@Suite("Output overrides")
struct OutputOverridesTests {
    @Test func aChangeReplacesTheSameKindOnTheSameOutputAndTheFileReadsBack() throws {
        var o = OutputOverrides(base: 0xfeed)
        o.record(.transform("90"), output: "HDMI-A-1")
        o.record(.mode(OutputMode(width: 1024, height: 768, refresh: 60)), output: "HDMI-A-1")
        o.record(.transform("180"), output: "HDMI-A-1")
        o.record(.enabled(false), output: "DP-1")
        o.record(.enabled(true), output: "DP-1")
        o.record(.position(x: 1920, y: 0), output: "DP-1")
        o.record(.none, output: "DP-1")
        #expect(o.changes.map { "\($0.output) \($0.change.description)" }
            == ["HDMI-A-1 mode 1024x768@60", "HDMI-A-1 transform 180", "DP-1 enable", "DP-1 position 1920 0"])
        let text = o.encoded()
        #expect(text.hasPrefix("lamina-outputs 1\nbase feed\nHDMI-A-1\tmode 1024x768@60\n"))
        #expect(try OutputOverrides.decode(text) == o)
    }

    @Test("a malformed file is refused naming the line", arguments: [
        ("", "not a lamina-outputs 1 file"),
        ("lamina-outputs 2\nbase 1\n", "not a lamina-outputs 1 file"),
        ("lamina-outputs 1\nbase zz\n", "line 2: expected 'base HEX'"),
        ("lamina-outputs 1\nbase 1\nHDMI-A-1 transform 90\n", "line 3: expected 'OUTPUT<tab>CHANGE'"),
        ("lamina-outputs 1\nbase 1\nHDMI-A-1\ttransform sideways\n", "line 3"),
        ("lamina-outputs 1\nbase 1\nHDMI-A-1\tscale nan\n", "line 3"),
        ("lamina-outputs 1\nbase 1\nHDMI-A-1\tposition 1\n", "line 3"),
    ])
    func malformed(text: String, message: String) {
        #expect {
            _ = try OutputOverrides.decode(text)
        } throws: { error in
            "\(error)".contains(message)
        }
    }

    @Test func theFingerprintFollowsTheFileAndTheBackend() {
        let a = OutputOverrides.fingerprint(of: Array("[[output]]\nname = \"HDMI-A-1\"\n".utf8), backend: "kms")
        #expect(a == OutputOverrides.fingerprint(of: Array("[[output]]\nname = \"HDMI-A-1\"\n".utf8), backend: "kms"))
        #expect(a != OutputOverrides.fingerprint(of: Array("[[output]]\nname = \"HDMI-A-1\" \n".utf8), backend: "kms"))
        #expect(a != OutputOverrides.fingerprint(of: Array("[[output]]\nname = \"HDMI-A-1\"\n".utf8), backend: "headless"))
    }

    @Test func theChangesBetweenTwoConfigurations() {
        let old = [
            OutputConfiguration(name: "HDMI-A-1", mode: ModeRequest(width: 1920, height: 1080), transform: .normal),
            OutputConfiguration(name: "DP-1", position: (1920, 0)),
            OutputConfiguration(name: "eDP-1", enabled: false),
        ]
        let new = [
            OutputConfiguration(name: "HDMI-A-1", mode: ModeRequest(width: 1280, height: 720, refreshRate: 50), scale: 1.5, transform: .rotate90),
            OutputConfiguration(name: "eDP-1"),
            OutputConfiguration(name: "VGA-1", enabled: false),
        ]
        let (changes, notes) = OutputOverrides.changes(from: old, to: new)
        #expect(changes.map { "\($0.output) \($0.change.description)" } == [
            "HDMI-A-1 mode 1280x720@50", "HDMI-A-1 transform 90", "HDMI-A-1 scale 1.5",
            "eDP-1 enable", "VGA-1 disable",
        ])
        #expect(notes == ["DP-1: no position set any more; it is placed after the others at the next start"])
        #expect(OutputOverrides.changes(from: old, to: old).changes.isEmpty)
    }

    @Test func changesMadeAtRunTimeFoldIntoTheSettings() {
        var o = OutputOverrides(base: 1)
        o.record(.transform("270"), output: "HDMI-A-1")
        o.record(.position(x: 0, y: 1080), output: "DP-1")
        let settings = o.applied(to: [OutputConfiguration(name: "HDMI-A-1", scale: 2)])
        #expect(settings == [OutputConfiguration(name: "HDMI-A-1", scale: 2, transform: .rotate270),
                             OutputConfiguration(name: "DP-1", position: (0, 1080))])
        // SIGHUP with the file as it was: the run-time changes are undone.
        let back = OutputOverrides.changes(from: settings, to: [OutputConfiguration(name: "HDMI-A-1", scale: 2)])
        #expect(back.changes.map { "\($0.output) \($0.change.description)" } == ["HDMI-A-1 transform normal"])
        #expect(back.notes == ["DP-1: no position set any more; it is placed after the others at the next start"])
    }
}
