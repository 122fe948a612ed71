#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The kind of a backlight device (its sysfs `type` attribute), most preferred first, as
/// systemd-backlight, wlroots and GNOME prefer them: firmware (ACPI) knows the panel's curve,
/// platform drivers next, raw register access last.
public enum BacklightKind: String, Sendable, CaseIterable, Comparable {
    case firmware, platform, raw

    public static func < (a: Self, b: Self) -> Bool { a.rank < b.rank }
    private var rank: Int { Self.allCases.firstIndex(of: self)! }
}

/// One device under `/sys/class/backlight`.
public struct BacklightDevice: Sendable, Hashable {
    /// Its directory's name ("intel_backlight", "acpi_video0").
    public var name: String
    public var kind: BacklightKind
    /// The device it hangs off (its `device` link, resolved); nil without one.
    public var parent: String?

    public init(name: String, kind: BacklightKind, parent: String? = nil) {
        self.name = name
        self.kind = kind
        self.parent = parent
    }
}

/// Where a DRM connector sits in sysfs: the connector's own device, its card, and the GPU the
/// card belongs to (resolved paths).
public struct ConnectorDevices: Sendable, Hashable {
    public var connector: String
    public var card: String
    public var gpu: String?

    public init(connector: String, card: String, gpu: String? = nil) {
        self.connector = connector
        self.card = card
        self.gpu = gpu
    }
}

/// Which backlight belongs to an output, and percent ↔ level: pure, so tests need no sysfs.
public enum BacklightChoice {
    /// Connector kinds that are a built-in panel (a laptop's, a tablet's, a Raspberry Pi's
    /// DSI touchscreen): only these take a backlight that is not the connector's own.
    public static let internalPanelKinds = ["eDP", "LVDS", "DSI", "DPI"]

    /// Whether the output named `output` ("eDP-1") is a built-in panel.
    public static func isInternalPanel(_ output: String) -> Bool {
        internalPanelKinds.contains { output.hasPrefix($0 + "-") }
    }

    /// The backlight of `output` among `devices`, as systemd-backlight, wlroots and GNOME find
    /// it: a device whose parent is the connector first; then, for a built-in panel or the only
    /// output (`soleOutput`), one whose parent is the connector's card or GPU, else the system's
    /// (one not tied to another connector); each time by kind, firmware > platform > raw, then
    /// by name. Nil where the output has none.
    public static func choose(for output: String, connector: ConnectorDevices?, among devices: [BacklightDevice],
                              soleOutput: Bool) -> BacklightDevice? {
        func best(_ candidates: [BacklightDevice]) -> BacklightDevice? {
            candidates.min { ($0.kind, $0.name) < ($1.kind, $1.name) }
        }
        if let connector, let own = best(devices.filter { $0.parent == connector.connector }) { return own }
        guard isInternalPanel(output) || soleOutput else { return nil }
        if let connector, let gpu = best(devices.filter { $0.parent != nil && ($0.parent == connector.card || $0.parent == connector.gpu) }) {
            return gpu
        }
        return best(devices.filter { !isConnector($0.parent) })
    }

    /// Whether a sysfs path is a DRM connector's ("…/drm/card0/card0-eDP-1").
    static func isConnector(_ path: String?) -> Bool {
        guard let last = path?.split(separator: "/").last else { return false }
        return last.hasPrefix("card") && last.contains("-")
    }

    /// The level for `percent` of `max`: rounded, clamped to 1…max. 0 % is the lowest lit level,
    /// never off (blanking is DPMS's job: `display off`, `[power] blank_after`).
    public static func level(percent: Double, max: Int) -> Int {
        guard max > 0 else { return 0 }
        let p = percent.isFinite ? Swift.min(Swift.max(percent, 0), 100) : 100
        return Swift.min(Swift.max(Int((p / 100 * Double(max)).rounded()), 1), max)
    }

    /// `level` of `max` in percent.
    public static func percent(level: Int, max: Int) -> Double {
        max > 0 ? Double(Swift.min(Swift.max(level, 0), max)) / Double(max) * 100 : 0
    }

    /// `level` dimmed to `percent` of itself, at least 1 (never off) and never brighter.
    public static func dimmed(_ level: Int, to percent: Double) -> Int {
        guard level > 1 else { return level }
        let p = percent.isFinite ? Swift.min(Swift.max(percent, 0), 100) : 100
        return Swift.min(Swift.max(Int((Double(level) * p / 100).rounded()), 1), level)
    }
}

/// A backlight that could not be found, read or written; the message names the output or file.
public struct BacklightError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// One backlight's files: `max_brightness`, `actual_brightness` (else `brightness`) read,
/// `brightness` written.
public struct Backlight: Sendable, Hashable {
    public let device: BacklightDevice
    /// Its sysfs directory ("/sys/class/backlight/intel_backlight").
    public let directory: String
    public let maxBrightness: Int

    /// Reads `directory`'s `max_brightness`.
    public init(device: BacklightDevice, directory: String) throws(BacklightError) {
        self.device = device
        self.directory = directory
        let max = try Self.readInteger(directory + "/max_brightness")
        guard max > 0 else { throw BacklightError("\(directory)/max_brightness is \(max): a backlight needs a maximum above 0") }
        maxBrightness = max
    }

    /// The level now: `actual_brightness` (what the hardware shows), else `brightness`.
    public func level() throws(BacklightError) -> Int {
        let actual = directory + "/actual_brightness"
        return try Self.readInteger(Files.exists(actual) ? actual : directory + "/brightness")
    }

    public func percent() throws(BacklightError) -> Double {
        BacklightChoice.percent(level: try level(), max: maxBrightness)
    }

    /// Writes `level` (clamped to 0…max) into `brightness`.
    public func setLevel(_ level: Int) throws(BacklightError) {
        let path = directory + "/brightness"
        let bytes = Array("\(Swift.min(Swift.max(level, 0), maxBrightness))\n".utf8)
        let fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC)
        guard fd >= 0 else { throw Self.failure("write", path, errno) }
        defer { _ = close(fd) }
        let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        guard written == bytes.count else { throw Self.failure("write", path, written < 0 ? errno : EIO) }
    }

    /// Sets `percent` (0 to 100; 0 is the lowest lit level) and returns the level written.
    @discardableResult
    public func setPercent(_ percent: Double) throws(BacklightError) -> Int {
        let level = BacklightChoice.level(percent: percent, max: maxBrightness)
        try setLevel(level)
        return level
    }

    static func readInteger(_ path: String) throws(BacklightError) -> Int {
        let bytes: [UInt8]
        do { bytes = try Files.read(path, limit: 4096) } catch { throw failure("read", path, error.errno) }
        let text = String(decoding: bytes, as: UTF8.self).trimmingWhitespace
        guard let value = Int(text) else { throw BacklightError("\(path) holds '\(text)', not an integer") }
        return value
    }

    static func failure(_ what: String, _ path: String, _ code: Int32) -> BacklightError {
        let reason = String(cString: strerror(code))
        let hint = code == EACCES || code == EPERM ? " (laminad's user needs write access to it: a udev rule giving the video group the brightness file, or run laminad as root)" : ""
        return BacklightError("cannot \(what) \(path): \(reason)\(what == "write" ? hint : "")")
    }
}

/// The backlights of a sysfs tree: `/sys`, or a fake tree a test builds (`root`).
/// `/sys/class/backlight` is what udev enumerates for the subsystem "backlight"; read as a
/// directory so a test can point `root` at a tree of its own.
public struct SysfsBacklights: Sendable {
    public let root: String

    public init(root: String = "/sys") {
        self.root = root.count > 1 && root.hasSuffix("/") ? String(root.dropLast()) : root
    }

    /// Every device under `class/backlight`, by name; unreadable ones are left out.
    public func devices() -> [BacklightDevice] {
        let folder = root + "/class/backlight"
        guard let names = try? Files.list(folder) else { return [] }
        return names.sorted().compactMap { name -> BacklightDevice? in
            let dir = folder + "/" + name
            let type = (try? Files.read(dir + "/type", limit: 4096)).map { String(decoding: $0, as: UTF8.self).trimmingWhitespace }
            // A device without a type (old kernels) is raw: register access.
            let kind = type.flatMap(BacklightKind.init(rawValue:)) ?? .raw
            guard Files.exists(dir + "/max_brightness") else { return nil }
            return BacklightDevice(name: name, kind: kind, parent: Self.resolve(dir + "/device"))
        }
    }

    /// The connector named `output` ("eDP-1") under `class/drm` ("card0-eDP-1"), resolved.
    public func connector(named output: String) -> ConnectorDevices? {
        let folder = root + "/class/drm"
        guard let names = try? Files.list(folder) else { return nil }
        for name in names.sorted() where name.hasPrefix("card") && name.hasSuffix("-" + output) {
            let card = name.dropFirst(4).prefix { $0 != "-" }
            guard !card.isEmpty, card.allSatisfy(\.isNumber), name == "card\(card)-\(output)",
                  let connector = Self.resolve(folder + "/" + name) else { continue }
            let cardPath = String(connector[..<(connector.lastIndex(of: "/") ?? connector.endIndex)])
            return ConnectorDevices(connector: connector, card: cardPath, gpu: Self.resolve(cardPath + "/device"))
        }
        return nil
    }

    /// The backlight of `output`, nil where it has none (`BacklightChoice.choose`).
    /// Throws where one is found but its files cannot be read.
    public func backlight(for output: String, soleOutput: Bool) throws(BacklightError) -> Backlight? {
        guard let device = BacklightChoice.choose(for: output, connector: connector(named: output), among: devices(), soleOutput: soleOutput) else {
            return nil
        }
        return try Backlight(device: device, directory: root + "/class/backlight/" + device.name)
    }

    /// The canonical path `path` names, following links; nil where it does not exist.
    /// The corresponding C function is `realpath`.
    static func resolve(_ path: String) -> String? {
        guard let p = realpath(path, nil) else { return nil }
        defer { free(p) }
        return String(cString: p)
    }
}

extension String {
    fileprivate var trimmingWhitespace: String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "\r" }
        return String(self.drop(while: isSpace).reversed().drop(while: isSpace).reversed())
    }
}
