import LaminaCore

/// One input event as laminad's router takes it: from a device (libinput, after the device is
/// mapped to an output and the output's transform and calibration are applied) or injected by
/// a privileged client (`laminactl input`). Points are in display (layout) points.
public enum InputAction: Hashable, Sendable {
    /// A finger touched the screen. `id` is the touch's number while it lasts (libinput's seat
    /// slot, or the injector's number).
    case touchDown(id: Int32, at: Point)
    case touchMotion(id: Int32, to: Point)
    case touchUp(id: Int32)
    /// The touch will not finish (the session was switched away, the device went): its
    /// receiver gets a cancel instead of an up.
    case touchCancel(id: Int32)
    /// The pointer is now at this display point (absolute devices report it; relative motion
    /// is summed and kept on the output layout by the device host).
    case pointerMotion(to: Point)
    /// A pointer button (evdev code: BTN_LEFT 0x110, BTN_RIGHT 0x111, BTN_MIDDLE 0x112).
    case pointerButton(code: UInt32, pressed: Bool)
    /// Scrolling, in points (positive: content moves up/left, as libinput reports wheel
    /// and finger scrolling).
    case pointerAxis(horizontal: Double, vertical: Double)
    /// A key, already translated by the keymap: evdev code, keysym, its name and the UTF-8
    /// text it types (empty for none).
    case key(code: UInt32, pressed: Bool, keysym: UInt32, name: String, text: String)
    /// Every touch and press in flight ends without completing (a VT/session switch).
    case cancelAll
}

/// Where an input event came from, and when.
public struct InputOrigin: Hashable, Sendable {
    /// True for events a client injected (`laminactl input`).
    public var injected: Bool
    /// The kernel's timestamp of the device event (CLOCK_MONOTONIC seconds); 0 for injected ones.
    public var deviceTime: Double

    public init(injected: Bool, deviceTime: Double = 0) {
        self.injected = injected
        self.deviceTime = deviceTime
    }

    public static let injected = InputOrigin(injected: true)
}
