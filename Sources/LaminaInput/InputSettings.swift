/// laminad's input settings (the `[input]` table of laminad.toml and its `[[input.device]]`
/// tables).
public struct InputSettings: Sendable, Equatable {
    /// Open the seat's input devices (KMS backend only; headless has none).
    public var enabled = true
    /// The libinput/udev seat whose devices are used.
    public var seat = "seat0"
    /// The keymap keys are translated with (devices and injected keys alike).
    public var keymap = KeymapNames()
    /// The key repeat Wayland apps are told to make (wl_keyboard.repeat_info; apps repeat a
    /// held key themselves).
    public var keyRepeat = KeyRepeat()
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

/// How a held key repeats: `rate` times a second after `delayMilliseconds`; rate 0 turns repeat
/// off. The default is most desktops' (25 a second after 600 ms).
public struct KeyRepeat: Sendable, Equatable {
    public var rate: Int = 25
    public var delayMilliseconds: Int = 600

    public init(rate: Int = 25, delayMilliseconds: Int = 600) {
        self.rate = rate
        self.delayMilliseconds = delayMilliseconds
    }
}
