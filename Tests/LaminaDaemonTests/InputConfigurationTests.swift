import Foundation
import LaminaDaemon
import LaminaInput
import Testing

/// `[input]` and `[[input.device]]` in laminad.toml.
@Suite("input configuration")
struct InputConfigurationTests {
    @Test func parsesTheInputTables() throws {
        let c = try LaminadConfiguration.parse("""
            [input]
            enabled = true
            seat = "seat1"
            keyboard_layout = "de,us"
            keyboard_variant = "nodeadkeys,"
            keyboard_options = "grp:alt_shift_toggle"
            keyboard_model = "pc104"
            key_repeat_rate = 0
            key_repeat_delay = 250

            [[input.device]]
            match = "ILITEK"
            output = "HDMI-A-1"
            calibration = [0.5, 0, 0.1, 0, 0.5, 0.2]

            [[input.device]]
            match = "QEMU Virtio Tablet"
            """)
        #expect(c.daemon.input.enabled && c.daemon.input.seat == "seat1")
        #expect(c.daemon.input.keymap == KeymapNames(model: "pc104", layout: "de,us", variant: "nodeadkeys,", options: "grp:alt_shift_toggle"))
        #expect(c.daemon.input.keyRepeat == KeyRepeat(rate: 0, delayMilliseconds: 250))
        #expect(c.daemon.input.devices == [
            DeviceRule(match: "ILITEK", output: "HDMI-A-1", calibration: [0.5, 0, 0.1, 0, 0.5, 0.2]),
            DeviceRule(match: "QEMU Virtio Tablet"),
        ])
        #expect(c.daemon.input.rule(forDeviceNamed: "ILITEK Multi-Touch V3000")?.output == "HDMI-A-1")
        #expect(c.daemon.input.rule(forDeviceNamed: "ilitek") == nil, "match is case-sensitive")
        let defaults = try LaminadConfiguration.parse("")
        #expect(defaults.daemon.input == InputSettings())
        #expect(try LaminadConfiguration.parse("[input]\nenabled = false\n").daemon.input.enabled == false)
    }

    /// config/laminad.toml states the defaults, and its example device table is valid.
    @Test func theShippedFileStatesTheDefaults() throws {
        let shipped = try LaminadConfiguration.load(path: ConfigurationTests.shipped)
        #expect(shipped.daemon.input == InputSettings())
        // The commented example, uncommented (its own comment lines stay comments).
        let text = try String(contentsOfFile: ConfigurationTests.shipped, encoding: .utf8)
        let example = text.components(separatedBy: "# [[input.device]]")[1].split(separator: "\n")
            .filter { !$0.hasPrefix("# #") }.map { $0.hasPrefix("# ") ? String($0.dropFirst(2)) : String($0) }.joined(separator: "\n")
        let c = try LaminadConfiguration.parse("[[input.device]]" + example)
        #expect(c.daemon.input.devices == [DeviceRule(match: "ILITEK", output: "HDMI-A-1", calibration: [1, 0, 0, 0, 1, 0])])
    }

    @Test(arguments: [
        ("[input]\nkeyboard_layot = \"us\"\n", "input.keyboard_layot: is not a setting laminad knows"),
        ("[[input.device]]\noutput = \"HDMI-A-1\"\n", "input.device[0].match: every [[input.device]] needs"),
        ("[[input.device]]\nmatch = \"x\"\ncalibration = [1, 0, 0, 0, 1]\n", "input.device[0].calibration: must be six numbers"),
        ("[[input.device]]\nmatch = \"x\"\ncalibration = [1, 0, 0, 0, 1, \"a\"]\n", "item 6 is not a finite number"),
        ("[[input.device]]\nmatch = \"x\"\nmatrix = [1, 0, 0, 0, 1, 0]\n", "input.device[0].matrix: is not a setting"),
        ("[input]\nenabled = \"yes\"\n", "input.enabled: must be true or false"),
        ("[input]\nkey_repeat_rate = -1\n", "input.key_repeat_rate: must be in 0…1000 (got -1)"),
        ("[input]\nkey_repeat_delay = 0\n", "input.key_repeat_delay: must be in 1…10000 (got 0)"),
    ])
    func refusesMistakes(text: String, message: String) {
        #expect {
            _ = try LaminadConfiguration.parse(text)
        } throws: { error in
            "\(error)".contains(message)
        }
    }
}
