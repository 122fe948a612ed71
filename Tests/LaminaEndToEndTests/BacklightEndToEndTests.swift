import Foundation
import Testing
import Lamina
import LaminaProtocol

/// `laminactl display brightness` through a real headless laminad whose sysfs root is a fake
/// tree (LAMINA_SYSFS_ROOT, for tests): the percent lands in the backlight's `brightness` file
/// and `stats` reads it back; without a backlight the request is refused, saying so.
@Suite("Backlight end to end", .serialized)
@MainActor
struct BacklightEndToEndTests {
    /// A sysfs root with, when `maximum` is given, one firmware backlight (acpi_video0) that
    /// belongs to no connector: the only output, headless's, takes it.
    func sysfs(maximum: Int?) throws -> String {
        let root = NSTemporaryDirectory() + "lamina-sysfs-" + UUID().uuidString.prefix(8)
        try FileManager.default.createDirectory(atPath: root + "/class/backlight", withIntermediateDirectories: true)
        if let maximum {
            let dir = root + "/class/backlight/acpi_video0"
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            try "firmware\n".write(toFile: dir + "/type", atomically: false, encoding: .utf8)
            try "\(maximum)\n".write(toFile: dir + "/max_brightness", atomically: false, encoding: .utf8)
            try "\(maximum)\n".write(toFile: dir + "/brightness", atomically: false, encoding: .utf8)
        }
        return root
    }

    @Test("display brightness 40 writes 40 % of max_brightness into the fake brightness file; stats shows backlight.headless")
    func brightnessLandsInTheFile() async throws {
        let root = try sysfs(maximum: 255)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let daemon = try DaemonProcess(environment: ["LAMINA_SYSFS_ROOT": root])
        let file = root + "/class/backlight/acpi_video0/brightness"

        var r = try daemon.laminactl(["display", "brightness", "40"])
        #expect(r.status == 0 && r.output == "headless brightness 40\n", "\(r.output)")
        #expect(try String(contentsOfFile: file, encoding: .utf8) == "102\n", "40 % of 255")

        r = try daemon.laminactl(["display", "brightness", "headless", "0"])
        #expect(r.status == 0 && r.output == "headless brightness 0.39\n", "the dimmest lit level, 1 of 255: \(r.output)")
        #expect(try String(contentsOfFile: file, encoding: .utf8) == "1\n")

        r = try daemon.laminactl(["stats"])
        #expect(r.output.contains("backlight.headless 0.39\n"), "\(r.output)")

        r = try daemon.laminactl(["display", "brightness", "HDMI-A-1", "50"])
        #expect(r.status != 0 && r.output.contains("HDMI-A-1") && r.output.contains("headless"), "an unknown output, with the known ones: \(r.output)")
        r = try daemon.laminactl(["display", "brightness", "140"])
        #expect(r.status != 0 && r.output.contains("malformed brightness '140'"), "\(r.output)")

        // The Swift client's call; laminad refuses what the wire would (a bad percent in a message).
        let c = try Connection.connect(to: daemon.socket, name: "backlight")
        defer { c.close() }
        try await c.setBrightness(100)
        #expect(try String(contentsOfFile: file, encoding: .utf8) == "255\n")
        #expect(try await c.stats().first { $0.name == "backlight.headless" }?.value == 100)
    }

    @Test("without a backlight, display brightness is refused: no output has one")
    func noBacklightIsAClearError() throws {
        let root = try sysfs(maximum: nil)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let daemon = try DaemonProcess(environment: ["LAMINA_SYSFS_ROOT": root])
        var r = try daemon.laminactl(["display", "brightness", "40"])
        #expect(r.status != 0 && r.output.contains("no output has a backlight (outputs: headless;"), "\(r.output)")
        r = try daemon.laminactl(["display", "brightness", "headless", "40"])
        #expect(r.status != 0 && r.output.contains("no backlight for output headless"), "\(r.output)")
        r = try daemon.laminactl(["stats"])
        #expect(r.status == 0 && !r.output.contains("backlight."), "\(r.output)")
        #expect(daemon.process.isRunning, "never fatal")
    }
}
