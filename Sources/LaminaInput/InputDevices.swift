#if canImport(Glibc)
import Glibc
#endif
import CInput
import CUdev
import LaminaPlatform
import Logging

/// Input devices could not be opened: the platform's `SystemError`, naming the call and errno.
public typealias InputError = SystemError

/// The seat's input devices through libinput's udev backend: found at start, hotplugged as udev
/// reports them, opened and closed through the closures the owner supplies (libseat for an
/// ordinary user, open(2) for root).
///
/// Watch `fd` for readability and call `dispatch()`; libinput then reads the devices and the
/// udev monitor. Everything runs on the caller's thread.
public final class InputDevices {
    /// Opens a device node: returns the descriptor, or −errno. `flags` are open(2)'s.
    public typealias Open = (_ path: String, _ flags: Int32) -> Int32
    /// Closes a descriptor `Open` returned.
    public typealias Close = (_ fd: Int32) -> Void

    private let libinput: OpaquePointer
    private let interface: UnsafeMutablePointer<libinput_interface>
    private let callbacks: Callbacks
    /// Devices present, by this process's number, each holding a libinput reference.
    private var devices: [Int: (handle: OpaquePointer, info: InputDeviceInfo)] = [:]
    private var nextID = 1
    /// The seat this context serves ("seat0").
    public let seat: String
    /// Readable when devices or udev have events: call `dispatch()`.
    /// The corresponding C function is `libinput_get_fd`.
    public var fd: Int32 { libinput_get_fd(libinput) }

    /// Creates the udev context and assigns `seat`: every input device of that seat is opened
    /// (through `open`) and reported as `added` by the first `dispatch()`.
    /// The corresponding C functions are `libinput_udev_create_context` and `libinput_udev_assign_seat`.
    public init(seat: String = "seat0", logger: Logger, open: @escaping Open, close: @escaping Close) throws(InputError) {
        self.seat = seat
        callbacks = Callbacks(open: open, close: close, logger: logger)
        interface = .allocate(capacity: 1)
        interface.initialize(to: libinput_interface(
            open_restricted: { path, flags, data in
                guard let path, let data else { return -EINVAL }
                return Unmanaged<Callbacks>.fromOpaque(data).takeUnretainedValue().open(String(cString: path), flags)
            },
            close_restricted: { fd, data in
                guard let data else { return }
                Unmanaged<Callbacks>.fromOpaque(data).takeUnretainedValue().close(fd)
            }))
        guard let udev = udev_new() else {
            interface.deallocate()
            throw InputError("udev_new", errno: errno == 0 ? ENOMEM : errno)
        }
        defer { udev_unref(udev) }
        guard let li = libinput_udev_create_context(interface, Unmanaged.passUnretained(callbacks).toOpaque(), udev) else {
            interface.deallocate()
            throw InputError("libinput_udev_create_context", errno: errno == 0 ? ENOMEM : errno)
        }
        libinput = li
        libinput_log_set_priority(li, LIBINPUT_LOG_PRIORITY_INFO)
        libinput_log_set_handler(li) { li, priority, format, arguments in
            guard let li, let format, let arguments, let data = libinput_get_user_data(li) else { return }
            var buffer = [CChar](repeating: 0, count: 512)
            let n = vsnprintf(&buffer, buffer.count, format, arguments)
            guard n > 0 else { return }
            var line = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            while line.last == "\n" { line.removeLast() }
            let logger = Unmanaged<Callbacks>.fromOpaque(data).takeUnretainedValue().logger
            if priority == LIBINPUT_LOG_PRIORITY_ERROR {
                logger.warning("libinput: \(line)")
            } else {
                logger.debug("libinput: \(line)")
            }
        }
        if libinput_udev_assign_seat(li, seat) != 0 {
            libinput_unref(li)
            interface.deallocate()
            throw InputError("libinput_udev_assign_seat(\(seat))", errno: EINVAL)
        }
    }

    deinit {
        for device in devices.values { libinput_device_unref(device.handle) }
        libinput_unref(libinput)
        interface.deallocate()
    }

    /// The devices present now.
    public var present: [InputDeviceInfo] { devices.values.map(\.info).sorted { $0.id < $1.id } }

    /// Reads what the devices and udev have and returns it, oldest first. Never blocks.
    /// The corresponding C functions are `libinput_dispatch` and `libinput_get_event`.
    public func dispatch() -> [DeviceEvent] {
        let r = libinput_dispatch(libinput)
        if r < 0 { callbacks.logger.debug("libinput_dispatch: \(String(cString: strerror(-r)))") }
        var events: [DeviceEvent] = []
        while let event = libinput_get_event(libinput) {
            if let converted = convert(event) { events.append(converted) }
            libinput_event_destroy(event)
        }
        return events
    }

    /// Closes every device (a VT switch away): libinput reports them removed.
    /// The corresponding C function is `libinput_suspend`.
    public func suspend() { libinput_suspend(libinput) }

    /// Opens the seat's devices again after `suspend` (they are reported added).
    /// The corresponding C function is `libinput_resume`.
    public func resume() throws(InputError) {
        if libinput_resume(libinput) != 0 { throw InputError("libinput_resume", errno: EIO) }
    }

    /// Sets the device's calibration matrix (row major `[a, b, c, d, e, f]`, applied to its
    /// normalised coordinates before they are reported). Throws for a device without one, or a
    /// matrix libinput refuses.
    /// The corresponding C function is `libinput_device_config_calibration_set_matrix`.
    public func setCalibration(_ matrix: [Float], device id: Int) throws(InputError) {
        guard matrix.count == 6, matrix.allSatisfy(\.isFinite) else { throw InputError("calibration needs six finite numbers", errno: EINVAL) }
        guard let device = devices[id] else { throw InputError("calibration of device \(id), which is not present", errno: ENODEV) }
        guard libinput_device_config_calibration_has_matrix(device.handle) != 0 else {
            throw InputError("calibration of '\(device.info.name)', which has no absolute axes", errno: ENOTSUP)
        }
        let status = matrix.withUnsafeBufferPointer { libinput_device_config_calibration_set_matrix(device.handle, $0.baseAddress) }
        guard status == LIBINPUT_CONFIG_STATUS_SUCCESS else {
            throw InputError("libinput_device_config_calibration_set_matrix on '\(device.info.name)'", errno: EINVAL)
        }
    }

    // MARK: Events

    private func convert(_ event: OpaquePointer) -> DeviceEvent? {
        let type = libinput_event_get_type(event)
        guard let handle = libinput_event_get_device(event) else { return nil }
        switch type {
        case LIBINPUT_EVENT_DEVICE_ADDED:
            let info = describe(handle)
            libinput_device_ref(handle)
            libinput_device_set_user_data(handle, UnsafeMutableRawPointer(bitPattern: info.id))
            devices[info.id] = (handle, info)
            return DeviceEvent(device: info.id, time: 0, kind: .added(info))
        case LIBINPUT_EVENT_DEVICE_REMOVED:
            let id = deviceID(handle)
            guard let device = devices.removeValue(forKey: id) else { return nil }
            libinput_device_set_user_data(handle, nil)
            libinput_device_unref(device.handle)
            return DeviceEvent(device: id, time: 0, kind: .removed(device.info))
        case LIBINPUT_EVENT_KEYBOARD_KEY:
            guard let k = libinput_event_get_keyboard_event(event) else { return nil }
            return DeviceEvent(device: deviceID(handle), time: seconds(libinput_event_keyboard_get_time_usec(k)),
                               kind: .key(code: libinput_event_keyboard_get_key(k),
                                          pressed: libinput_event_keyboard_get_key_state(k) == LIBINPUT_KEY_STATE_PRESSED))
        case LIBINPUT_EVENT_POINTER_MOTION:
            guard let p = libinput_event_get_pointer_event(event) else { return nil }
            let dx = libinput_event_pointer_get_dx(p), dy = libinput_event_pointer_get_dy(p)
            guard dx.isFinite, dy.isFinite else { return nil }
            return DeviceEvent(device: deviceID(handle), time: seconds(libinput_event_pointer_get_time_usec(p)),
                               kind: .pointerMotion(dx: dx, dy: dy))
        case LIBINPUT_EVENT_POINTER_MOTION_ABSOLUTE:
            guard let p = libinput_event_get_pointer_event(event) else { return nil }
            let x = libinput_event_pointer_get_absolute_x_transformed(p, 1)
            let y = libinput_event_pointer_get_absolute_y_transformed(p, 1)
            guard x.isFinite, y.isFinite else { return nil }
            return DeviceEvent(device: deviceID(handle), time: seconds(libinput_event_pointer_get_time_usec(p)),
                               kind: .pointerMotionAbsolute(x: x, y: y))
        case LIBINPUT_EVENT_POINTER_BUTTON:
            guard let p = libinput_event_get_pointer_event(event) else { return nil }
            return DeviceEvent(device: deviceID(handle), time: seconds(libinput_event_pointer_get_time_usec(p)),
                               kind: .pointerButton(code: libinput_event_pointer_get_button(p),
                                                    pressed: libinput_event_pointer_get_button_state(p) == LIBINPUT_BUTTON_STATE_PRESSED))
        case LIBINPUT_EVENT_POINTER_SCROLL_WHEEL, LIBINPUT_EVENT_POINTER_SCROLL_FINGER, LIBINPUT_EVENT_POINTER_SCROLL_CONTINUOUS:
            // libinput ≥ 1.19 sends these beside the older LIBINPUT_EVENT_POINTER_AXIS, which is ignored.
            guard let p = libinput_event_get_pointer_event(event) else { return nil }
            let source: DeviceEvent.ScrollSource = type == LIBINPUT_EVENT_POINTER_SCROLL_WHEEL ? .wheel
                : type == LIBINPUT_EVENT_POINTER_SCROLL_FINGER ? .finger : .continuous
            func value(_ axis: libinput_pointer_axis) -> Double? {
                guard libinput_event_pointer_has_axis(p, axis) != 0 else { return nil }
                let v = libinput_event_pointer_get_scroll_value(p, axis)
                return v.isFinite ? v : nil
            }
            let h = value(LIBINPUT_POINTER_AXIS_SCROLL_HORIZONTAL), v = value(LIBINPUT_POINTER_AXIS_SCROLL_VERTICAL)
            guard h != nil || v != nil else { return nil }
            return DeviceEvent(device: deviceID(handle), time: seconds(libinput_event_pointer_get_time_usec(p)),
                               kind: .pointerScroll(source: source, horizontal: h, vertical: v))
        case LIBINPUT_EVENT_TOUCH_DOWN, LIBINPUT_EVENT_TOUCH_MOTION:
            guard let t = libinput_event_get_touch_event(event) else { return nil }
            let slot = libinput_event_touch_get_seat_slot(t)
            let x = libinput_event_touch_get_x_transformed(t, 1), y = libinput_event_touch_get_y_transformed(t, 1)
            guard slot >= 0, x.isFinite, y.isFinite else { return nil }
            return DeviceEvent(device: deviceID(handle), time: seconds(libinput_event_touch_get_time_usec(t)),
                               kind: type == LIBINPUT_EVENT_TOUCH_DOWN ? .touchDown(slot: slot, x: x, y: y) : .touchMotion(slot: slot, x: x, y: y))
        case LIBINPUT_EVENT_TOUCH_UP, LIBINPUT_EVENT_TOUCH_CANCEL:
            guard let t = libinput_event_get_touch_event(event) else { return nil }
            let slot = libinput_event_touch_get_seat_slot(t)
            guard slot >= 0 else { return nil }
            return DeviceEvent(device: deviceID(handle), time: seconds(libinput_event_touch_get_time_usec(t)),
                               kind: type == LIBINPUT_EVENT_TOUCH_UP ? .touchUp(slot: slot) : .touchCancel(slot: slot))
        case LIBINPUT_EVENT_TOUCH_FRAME:
            guard let t = libinput_event_get_touch_event(event) else { return nil }
            return DeviceEvent(device: deviceID(handle), time: seconds(libinput_event_touch_get_time_usec(t)), kind: .touchFrame)
        default:
            return nil
        }
    }

    private func deviceID(_ handle: OpaquePointer) -> Int {
        libinput_device_get_user_data(handle).map { Int(bitPattern: $0) } ?? 0
    }

    /// Microseconds of CLOCK_MONOTONIC as seconds.
    private func seconds(_ usec: UInt64) -> Double { Double(usec) / 1_000_000 }

    private func describe(_ handle: OpaquePointer) -> InputDeviceInfo {
        let id = nextID
        nextID += 1
        let name = libinput_device_get_name(handle).map { String(cString: $0) } ?? "?"
        let sysname = libinput_device_get_sysname(handle).map { String(cString: $0) } ?? "?"
        var capabilities: DeviceCapabilities = []
        let pairs: [(libinput_device_capability, DeviceCapabilities)] = [
            (LIBINPUT_DEVICE_CAP_KEYBOARD, .keyboard), (LIBINPUT_DEVICE_CAP_POINTER, .pointer), (LIBINPUT_DEVICE_CAP_TOUCH, .touch),
            (LIBINPUT_DEVICE_CAP_TABLET_TOOL, .tabletTool), (LIBINPUT_DEVICE_CAP_TABLET_PAD, .tabletPad),
            (LIBINPUT_DEVICE_CAP_GESTURE, .gesture), (LIBINPUT_DEVICE_CAP_SWITCH, .switch),
        ]
        for (cap, flag) in pairs where libinput_device_has_capability(handle, cap) != 0 { capabilities.insert(flag) }
        let absolute = libinput_device_config_calibration_has_matrix(handle) != 0
        var calibration: [Float]?
        if absolute {
            var m = [Float](repeating: 0, count: 6)
            _ = m.withUnsafeMutableBufferPointer { libinput_device_config_calibration_get_default_matrix(handle, $0.baseAddress) }
            calibration = m
        }
        var output: String?
        if let udevDevice = libinput_device_get_udev_device(handle) {
            output = udev_device_get_property_value(udevDevice, "WL_OUTPUT").map { String(cString: $0) }
            udev_device_unref(udevDevice)
        }
        return InputDeviceInfo(id: id, name: name, sysname: sysname, capabilities: capabilities, isAbsolute: absolute,
                               udevOutput: output, defaultCalibration: calibration)
    }
}

/// What libinput's C callbacks reach through their user-data pointer.
private final class Callbacks {
    let open: InputDevices.Open
    let close: InputDevices.Close
    let logger: Logger
    init(open: @escaping InputDevices.Open, close: @escaping InputDevices.Close, logger: Logger) {
        self.open = open
        self.close = close
        self.logger = logger
    }
}
