import Foundation
import LaminaPlatform
import Testing

/// A sysfs tree of its own in a temporary folder, laid out as the kernel lays /sys out:
/// devices under devices/, class/drm and class/backlight entries as links to them.
final class FakeSysfs {
    let root: String
    private let fm = FileManager.default

    init() throws {
        root = NSTemporaryDirectory() + "lamina-sysfs-\(UUID().uuidString)"
        try fm.createDirectory(atPath: root + "/class/backlight", withIntermediateDirectories: true)
        try fm.createDirectory(atPath: root + "/class/drm", withIntermediateDirectories: true)
    }

    deinit { try? fm.removeItem(atPath: root) }

    /// A GPU at devices/`gpu` with card `card` and its connectors ("eDP-1"):
    /// class/drm/card0-eDP-1 → devices/pci0/drm/card0/card0-eDP-1.
    func addCard(_ card: String = "card0", gpu: String = "pci0", connectors: [String]) throws {
        let cardPath = root + "/devices/\(gpu)/drm/\(card)"
        try fm.createDirectory(atPath: cardPath, withIntermediateDirectories: true)
        try fm.createSymbolicLink(atPath: cardPath + "/device", withDestinationPath: "../..")
        for c in connectors {
            try fm.createDirectory(atPath: cardPath + "/\(card)-\(c)", withIntermediateDirectories: true)
            try fm.createSymbolicLink(atPath: root + "/class/drm/\(card)-\(c)", withDestinationPath: "../../devices/\(gpu)/drm/\(card)/\(card)-\(c)")
        }
    }

    /// class/backlight/`name` with its files; `parent` is a path under devices/ its `device`
    /// link points to (nil: none), `type` nil leaves the file out.
    @discardableResult
    func addBacklight(_ name: String, type: String?, max: Int, level: Int, actual: Int? = nil, parent: String? = nil) throws -> String {
        let dir = root + "/class/backlight/" + name
        try fm.createDirectory(atPath: dir, withIntermediateDirectories: true)
        if let type { try write(dir + "/type", type + "\n") }
        try write(dir + "/max_brightness", "\(max)\n")
        try write(dir + "/brightness", "\(level)\n")
        if let actual { try write(dir + "/actual_brightness", "\(actual)\n") }
        if let parent { try fm.createSymbolicLink(atPath: dir + "/device", withDestinationPath: "../../../devices/" + parent) }
        return dir
    }

    func write(_ path: String, _ text: String) throws {
        try text.write(toFile: path, atomically: false, encoding: .utf8)
    }

    func read(_ path: String) throws -> String {
        try String(contentsOfFile: path, encoding: .utf8)
    }

    func resolved(_ devicePath: String) -> String {
        URL(fileURLWithPath: root + "/devices/" + devicePath).resolvingSymlinksInPath().path
    }
}

/// Finding an output's backlight and percent ↔ level (`Backlight.swift`), over fake sysfs trees.
@Suite("Backlight")
struct BacklightTests {
    @Test("intel_backlight, whose parent is card0-eDP-1, is eDP-1's; it wins over acpi_video0 (firmware) there")
    func theConnectorsOwnBacklightComesFirst() throws {
        let fs = try FakeSysfs()
        try fs.addCard(connectors: ["eDP-1", "HDMI-A-1"])
        try fs.addBacklight("intel_backlight", type: "raw", max: 937, level: 500, parent: "pci0/drm/card0/card0-eDP-1")
        try fs.addBacklight("acpi_video0", type: "firmware", max: 15, level: 7, parent: "pci0")
        let sysfs = SysfsBacklights(root: fs.root)
        #expect(sysfs.devices().map(\.name) == ["acpi_video0", "intel_backlight"])
        let edp = try #require(try sysfs.backlight(for: "eDP-1", soleOutput: false))
        #expect(edp.device.name == "intel_backlight" && edp.device.kind == .raw && edp.maxBrightness == 937)
        #expect(edp.directory == fs.root + "/class/backlight/intel_backlight")
        #expect(try sysfs.backlight(for: "HDMI-A-1", soleOutput: false) == nil, "an external monitor has no sysfs backlight")
        let connector = try #require(sysfs.connector(named: "eDP-1"))
        #expect(connector.connector == fs.resolved("pci0/drm/card0/card0-eDP-1"))
        #expect(connector.gpu == fs.resolved("pci0"))
        #expect(sysfs.connector(named: "DP-1") == nil)
    }

    @Test("without a backlight of its own, a built-in panel takes the GPU's, else the system's: firmware > platform > raw")
    func typePreference() throws {
        let fs = try FakeSysfs()
        try fs.addCard(connectors: ["eDP-1", "DSI-1", "HDMI-A-1"])
        try fs.addBacklight("amdgpu_bl0", type: "raw", max: 255, level: 100, parent: "pci0")
        try fs.addBacklight("acpi_video0", type: "firmware", max: 100, level: 50)
        try fs.addBacklight("dell_backlight", type: "platform", max: 100, level: 50)
        let sysfs = SysfsBacklights(root: fs.root)
        #expect(try sysfs.backlight(for: "eDP-1", soleOutput: false)?.device.name == "amdgpu_bl0", "the GPU's")
        #expect(try sysfs.backlight(for: "HDMI-A-1", soleOutput: false) == nil)

        let devices = [BacklightDevice(name: "raw0", kind: .raw), BacklightDevice(name: "platform0", kind: .platform),
                       BacklightDevice(name: "firmware0", kind: .firmware),
                       BacklightDevice(name: "other_panel", kind: .firmware, parent: "/sys/devices/pci0/drm/card0/card0-eDP-2")]
        #expect(BacklightChoice.choose(for: "DSI-1", connector: nil, among: devices, soleOutput: false)?.name == "firmware0",
                "firmware first; one tied to another connector is not the system's")
        #expect(BacklightChoice.choose(for: "DSI-1", connector: nil, among: Array(devices.prefix(2)), soleOutput: false)?.name == "platform0")
        #expect(BacklightChoice.choose(for: "LVDS-1", connector: nil, among: [devices[0]], soleOutput: false)?.name == "raw0")
        #expect(BacklightChoice.choose(for: "HDMI-A-1", connector: nil, among: devices, soleOutput: false) == nil)
        #expect(BacklightChoice.choose(for: "headless", connector: nil, among: devices, soleOutput: true)?.name == "firmware0",
                "the only output takes the system's backlight")
        #expect(BacklightChoice.choose(for: "eDP-1", connector: nil, among: [devices[3]], soleOutput: false) == nil)
        #expect(BacklightKind.firmware < .platform && BacklightKind.platform < .raw)
    }

    @Test("percent ↔ level: rounded, clamped; 0 % is the dimmest lit level, never off")
    func percentMapping() {
        #expect(BacklightChoice.level(percent: 40, max: 255) == 102)
        #expect(BacklightChoice.level(percent: 100, max: 937) == 937)
        #expect(BacklightChoice.level(percent: 0, max: 937) == 1)
        #expect(BacklightChoice.level(percent: 0.01, max: 15) == 1)
        #expect(BacklightChoice.level(percent: 150, max: 15) == 15)
        #expect(BacklightChoice.level(percent: -5, max: 15) == 1)
        #expect(BacklightChoice.level(percent: .nan, max: 15) == 15)
        #expect(BacklightChoice.percent(level: 102, max: 255) == 40)
        #expect(BacklightChoice.percent(level: 500, max: 100) == 100)
        #expect(BacklightChoice.dimmed(500, to: 30) == 150)
        #expect(BacklightChoice.dimmed(2, to: 0) == 1, "dimmed, never off")
        #expect(BacklightChoice.dimmed(1, to: 30) == 1)
        #expect(BacklightChoice.dimmed(100, to: 150) == 100, "never brighter")
    }

    @Test("reads actual_brightness (else brightness), writes brightness; 40 % of 937 is 375")
    func readsAndWrites() throws {
        let fs = try FakeSysfs()
        try fs.addCard(connectors: ["eDP-1"])
        let dir = try fs.addBacklight("intel_backlight", type: "raw", max: 937, level: 500, actual: 480, parent: "pci0/drm/card0/card0-eDP-1")
        let b = try #require(try SysfsBacklights(root: fs.root).backlight(for: "eDP-1", soleOutput: true))
        #expect(try b.level() == 480, "actual_brightness: what the hardware shows")
        try FileManager.default.removeItem(atPath: dir + "/actual_brightness")
        #expect(try b.level() == 500)
        #expect(try b.setPercent(40) == 375)
        #expect(try fs.read(dir + "/brightness") == "375\n")
        #expect(abs(try b.percent() - 40.02) < 0.01)
        #expect(try b.setPercent(0) == 1)
        #expect(try fs.read(dir + "/brightness") == "1\n")
    }

    @Test("errors name the file: unreadable maximum, a garbled level, a brightness that may not be written")
    func errorsNameTheFile() throws {
        let fs = try FakeSysfs()
        let dir = try fs.addBacklight("acpi_video0", type: "firmware", max: 0, level: 3)
        let sysfs = SysfsBacklights(root: fs.root)
        #expect(throws: BacklightError("\(dir)/max_brightness is 0: a backlight needs a maximum above 0")) {
            try sysfs.backlight(for: "headless", soleOutput: true)
        }
        try fs.write(dir + "/max_brightness", "15\n")
        try fs.write(dir + "/brightness", "bright\n")
        let b = try #require(try sysfs.backlight(for: "headless", soleOutput: true))
        #expect(throws: BacklightError("\(dir)/brightness holds 'bright', not an integer")) { try b.level() }
        try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: dir + "/brightness")
        if getuid() != 0 {
            do {
                try b.setPercent(50)
                Issue.record("a read-only brightness file was written")
            } catch {
                #expect(error.message.hasPrefix("cannot write \(dir)/brightness: Permission denied"), "\(error)")
            }
        }
        #expect(SysfsBacklights(root: fs.root + "/nowhere").devices().isEmpty, "no class/backlight: none, no error")
    }
}
