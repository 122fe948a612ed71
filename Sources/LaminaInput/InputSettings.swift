/// laminad's input settings (the `[input]` table of laminad.toml and its `[[input.device]]`
/// tables).
public struct InputSettings: Sendable, Equatable {
    /// Open the seat's input devices (KMS backend only; headless has none).
    public var enabled = true
    /// The libinput/udev seat whose devices are used.
    public var seat = "seat0"
    /// The keymap keys are translated with (devices and injected keys alike).
    public var keymap = KeymapNames()
    /// Per-device settings, the first whose `match` is in the device's name applying.
    public var devices: [DeviceRule] = []

    public init() {}

    /// The first rule whose `match` occurs in `deviceName`.
    public func rule(forDeviceNamed deviceName: String) -> DeviceRule? {
        devices.first { deviceName.contains($0.match) }
    }
}

/// Settings for the devices whose name contains `match` (an `[[input.device]]` table).
public struct DeviceRule: Sendable, Equatable {
    /// A part of the kernel's device name ("ILITEK", "QEMU Virtio Tablet"); case matters.
    public var match: String
    /// The output (connector name) the device's absolute positions map onto; nil: udev's
    /// `WL_OUTPUT`, else the first output.
    public var output: String?
    /// A calibration matrix `[a, b, c, d, e, f]` replacing libinput's default (udev's
    /// `LIBINPUT_CALIBRATION_MATRIX`): normalised (x, y) becomes (a·x + b·y + c, d·x + e·y + f)
    /// before it is mapped onto the output.
    public var calibration: [Float]?

    public init(match: String, output: String? = nil, calibration: [Float]? = nil) {
        self.match = match
        self.output = output
        self.calibration = calibration
    }
}
