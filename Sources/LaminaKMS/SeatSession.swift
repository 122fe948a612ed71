#if canImport(Glibc)
import Glibc
#endif
import CSeat

/// A seat taken through libseat (seatd, or logind): the way an ordinary user gets the DRM card
/// without being root, and learns when the seat is taken away (a VT switch) and given back.
///
/// While the seat is disabled the devices opened through it must not be used: the compositor
/// stops drawing and flipping, then acknowledges (`acknowledgeDisable`), and the seat manager
/// drops DRM master for it. When the seat is enabled again, the outputs are set up anew.
public final class SeatSession {
    private let handle: OpaquePointer
    private let listener: UnsafeMutablePointer<libseat_seat_listener>
    private let box: SeatBox
    /// The seat's name ("seat0").
    public let name: String
    /// False from the disable callback until the enable callback.
    public private(set) var isActive = false
    /// The seat is going away: stop using its devices, then call `acknowledgeDisable`.
    public var onDisable: () -> Void = {}
    /// The seat is back: devices work again (DRM master is restored by the seat manager).
    public var onEnable: () -> Void = {}
    /// Readable when the seat manager has something to say; call `dispatch`.
    public var fd: Int32 { libseat_get_fd(handle) }

    /// True where a seat manager may be reachable: seatd's socket, logind's seats, or an
    /// explicit `LIBSEAT_BACKEND`. Without one, libseat would only fall back to its built-in
    /// seatd, which a root kiosk does not need.
    public static var managerReachable: Bool {
        if getenv("LIBSEAT_BACKEND") != nil { return true }
        let seatd = getenv("SEATD_SOCK").map { String(cString: $0) } ?? "/run/seatd.sock"
        return access(seatd, F_OK) == 0 || (access("/run/systemd/seats", F_OK) == 0 && getenv("XDG_SESSION_ID") != nil)
    }

    /// Opens the seat and waits (at most `timeout` seconds) until it is enabled.
    /// The corresponding C functions are `libseat_open_seat` and `libseat_dispatch`.
    public init(timeout: Double = 5, verbose: Bool = false) throws(DRMError) {
        libseat_set_log_level(verbose ? LIBSEAT_LOG_LEVEL_INFO : LIBSEAT_LOG_LEVEL_SILENT)
        listener = .allocate(capacity: 1)
        listener.initialize(to: libseat_seat_listener(
            enable_seat: { _, data in
                guard let data else { return }
                Unmanaged<SeatBox>.fromOpaque(data).takeUnretainedValue().enabled()
            },
            disable_seat: { _, data in
                guard let data else { return }
                Unmanaged<SeatBox>.fromOpaque(data).takeUnretainedValue().disabled()
            }))
        // The listener's user data is filled in once self exists: open with a box first.
        box = SeatBox()
        guard let seat = libseat_open_seat(listener, Unmanaged.passUnretained(box).toOpaque()) else {
            let e = errno
            listener.deallocate()
            throw DRMError("libseat_open_seat (no seatd or logind session reachable)", errno: e)
        }
        handle = seat
        name = libseat_seat_name(seat).map { String(cString: $0) } ?? "seat0"
        box.session = self
        isActive = box.isEnabled
        let deadline = monotonicNow() + timeout
        while !isActive {
            let left = deadline - monotonicNow()
            guard left > 0 else { throw DRMError("libseat: seat \(name) was not enabled within \(timeout) s", errno: ETIMEDOUT) }
            if libseat_dispatch(seat, Int32(left * 1000) + 1) < 0 { throw DRMError("libseat_dispatch", errno: errno) }
        }
    }

    deinit {
        libseat_close_seat(handle)
        listener.deallocate()
    }

    /// Opens a device node through the seat manager. Returns its descriptor and the seat's
    /// number for it (for `closeDevice`).
    /// The corresponding C function is `libseat_open_device`.
    public func openDevice(_ path: String) throws(DRMError) -> (fd: Int32, id: Int32) {
        var fd: Int32 = -1
        let id = libseat_open_device(handle, path, &fd)
        guard id >= 0, fd >= 0 else { throw DRMError("libseat_open_device(\(path)) on \(name)", errno: errno) }
        return (fd, id)
    }

    /// Tells the seat manager the device is no longer used. The caller closes the descriptor.
    /// The corresponding C function is `libseat_close_device`.
    public func closeDevice(_ id: Int32) { _ = libseat_close_device(handle, id) }

    /// Handles what the seat manager sent (runs `onDisable`/`onEnable`).
    /// The corresponding C function is `libseat_dispatch`.
    public func dispatch() throws(DRMError) {
        if libseat_dispatch(handle, 0) < 0 { throw DRMError("libseat_dispatch on \(name)", errno: errno) }
    }

    /// Confirms that the devices are no longer used after `onDisable`.
    /// The corresponding C function is `libseat_disable_seat`.
    public func acknowledgeDisable() { _ = libseat_disable_seat(handle) }

    /// Asks the seat to switch to session (VT) `n`: Ctrl+Alt+Fn, which the console cannot see
    /// while a compositor reads the keyboard. The corresponding C function is `libseat_switch_session`.
    public func switchSession(_ n: Int32) throws(DRMError) {
        guard libseat_switch_session(handle, n) == 0 else { throw DRMError("libseat_switch_session(\(n))", errno: errno) }
    }

    fileprivate func enabled() {
        isActive = true
        onEnable()
    }

    fileprivate func disabled() {
        isActive = false
        onDisable()
    }
}

/// The libseat callbacks' user data: it exists before the session object is complete (libseat
/// may call back inside `libseat_open_seat`) and forwards to it afterwards.
private final class SeatBox {
    weak var session: SeatSession?
    var isEnabled = false
    func enabled() { isEnabled = true; session?.enabled() }
    func disabled() { isEnabled = false; session?.disabled() }
}

private func monotonicNow() -> Double {
    var t = timespec()
    clock_gettime(CLOCK_MONOTONIC, &t)
    return Double(t.tv_sec) + Double(t.tv_nsec) * 1e-9
}
