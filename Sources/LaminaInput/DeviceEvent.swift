/// What an input device can do (libinput's capabilities).
public struct DeviceCapabilities: OptionSet, Sendable, Hashable, CustomStringConvertible {
    public var rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    public static let keyboard = DeviceCapabilities(rawValue: 1 << 0)
    public static let pointer = DeviceCapabilities(rawValue: 1 << 1)
    public static let touch = DeviceCapabilities(rawValue: 1 << 2)
    public static let tabletTool = DeviceCapabilities(rawValue: 1 << 3)
    public static let tabletPad = DeviceCapabilities(rawValue: 1 << 4)
    public static let gesture = DeviceCapabilities(rawValue: 1 << 5)
    public static let `switch` = DeviceCapabilities(rawValue: 1 << 6)

    /// "keyboard, pointer", in this order.
    public var description: String {
        let names: [(DeviceCapabilities, String)] = [
            (.keyboard, "keyboard"), (.pointer, "pointer"), (.touch, "touch"), (.tabletTool, "tablet tool"),
            (.tabletPad, "tablet pad"), (.gesture, "gesture"), (.switch, "switch"),
        ]
        let list = names.filter { contains($0.0) }.map(\.1)
        return list.isEmpty ? "none" : list.joined(separator: ", ")
    }
}

/// One input device as libinput reports it when it is added.
public struct InputDeviceInfo: Sendable, Equatable {
    /// This process's number for the device while it is present (a re-added device gets a new one).
    public var id: Int
    /// The kernel's name ("QEMU Virtio Tablet").
    public var name: String
    /// The event node's name ("event3").
    public var sysname: String
    public var capabilities: DeviceCapabilities
    /// Reports absolute positions (a touchscreen, a tablet such as QEMU's): libinput offers a
    /// calibration matrix exactly for devices with absolute axes.
    public var isAbsolute: Bool
    /// The udev property `WL_OUTPUT`: the connector a touchscreen is mounted on, where set.
    public var udevOutput: String?
    /// libinput's default calibration (udev's `LIBINPUT_CALIBRATION_MATRIX`, else identity), row
    /// major `[a, b, c, d, e, f]`; nil for devices without one.
    public var defaultCalibration: [Float]?

    public init(id: Int, name: String, sysname: String, capabilities: DeviceCapabilities, isAbsolute: Bool,
                udevOutput: String? = nil, defaultCalibration: [Float]? = nil) {
        self.id = id
        self.name = name
        self.sysname = sysname
        self.capabilities = capabilities
        self.isAbsolute = isAbsolute
        self.udevOutput = udevOutput
        self.defaultCalibration = defaultCalibration
    }
}

/// One event from an input device, in device terms: positions are normalised to the device's
/// range (0…1 from the top-left, after libinput applied the calibration), not yet mapped to an
/// output.
public struct DeviceEvent: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        case added(InputDeviceInfo)
        case removed(InputDeviceInfo)
        /// evdev key code (KEY_A is 30).
        case key(code: UInt32, pressed: Bool)
        /// Relative pointer motion, in libinput's accelerated units (about points).
        case pointerMotion(dx: Double, dy: Double)
        /// An absolute pointer (a tablet) at `x`, `y` in 0…1 of its area.
        case pointerMotionAbsolute(x: Double, y: Double)
        /// evdev button code (BTN_LEFT 0x110).
        case pointerButton(code: UInt32, pressed: Bool)
        /// Scrolling by a wheel, a finger or a continuous source: nil for an axis not in the event.
        case pointerScroll(source: ScrollSource, horizontal: Double?, vertical: Double?)
        /// A touch, numbered by its seat slot, at `x`, `y` in 0…1 of the touchscreen.
        case touchDown(slot: Int32, x: Double, y: Double)
        case touchMotion(slot: Int32, x: Double, y: Double)
        case touchUp(slot: Int32)
        case touchCancel(slot: Int32)
        /// The end of a set of touch changes that belong together.
        case touchFrame
    }

    public enum ScrollSource: String, Sendable, Equatable {
        case wheel, finger, continuous
    }

    /// The device's number (`InputDeviceInfo.id`).
    public var device: Int
    /// The kernel's timestamp, CLOCK_MONOTONIC seconds (0 for device added and removed).
    public var time: Double
    public var kind: Kind

    public init(device: Int, time: Double, kind: Kind) {
        self.device = device
        self.time = time
        self.kind = kind
    }
}
