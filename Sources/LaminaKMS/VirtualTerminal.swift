#if canImport(Glibc)
import Glibc
#endif
import CLinux

/// The Linux virtual terminal laminad shows on when it opens the card directly (root on a
/// kiosk, no seat manager): what weston's direct launcher and libseat's builtin backend do.
///
/// The VT is put in graphics mode (KD_GRAPHICS: the text console stops drawing over the
/// display) and in process mode (VT_PROCESS): before switching away (`chvt`, Ctrl+Alt+Fn) the
/// kernel sends `releaseSignal` and waits until the process allows it (`allowRelease`), and
/// after switching back it sends `acquireSignal` (`acknowledgeAcquire`). The signals arrive
/// through a signalfd (`fd`), read by `dispatch`. `restore` puts text mode and VT_AUTO back.
public final class VirtualTerminal {
    /// SIGRTMIN+4 asks to release the VT, SIGRTMIN+5 tells it is back (SIGUSR1/SIGUSR2 are
    /// laminad's display off/on).
    public static var releaseSignal: Int32 { CLinux_sigrtmin() + 4 }
    public static var acquireSignal: Int32 { CLinux_sigrtmin() + 5 }

    /// The VT's number (tty`number`).
    public let number: Int32
    private let tty: Int32
    private let signals: Int32
    /// The VT was in graphics mode before laminad (a boot splash had it): exit leaves it so.
    public let wasGraphics: Bool
    private var restored = false
    /// False between a release and the next acquire.
    public private(set) var isActive = true
    /// Switching away: stop using the card (and drop DRM master); `allowRelease` follows.
    public var onRelease: () -> Void = {}
    /// Switched back: take DRM master again and set the outputs up.
    public var onAcquire: () -> Void = {}
    /// Readable when a VT signal is waiting; call `dispatch`.
    public var fd: Int32 { signals }

    /// Blocks the two VT signals for this thread (and the threads it starts later), so that
    /// they arrive only through the signalfd. Call it before threads exist (Mesa's are created
    /// with every signal blocked; this is for any other).
    public static func blockSignals() {
        var mask = sigset_t()
        sigemptyset(&mask)
        sigaddset(&mask, releaseSignal)
        sigaddset(&mask, acquireSignal)
        pthread_sigmask(SIG_BLOCK, &mask, nil)
    }

    /// Takes VT `number`, or the active VT when nil (switching to `number` first if another
    /// is active). Fails where there is no VT (no /dev/tty0, as in a container) or no right to it.
    /// The corresponding C functions are `open`, `ioctl(VT_GETSTATE, VT_ACTIVATE, KDSETMODE, VT_SETMODE)` and `signalfd`.
    public init(number wanted: Int32? = nil) throws(DRMError) {
        let console = open("/dev/tty0", O_RDWR | O_CLOEXEC | O_NOCTTY)
        guard console >= 0 else { throw DRMError("open /dev/tty0", errno: errno) }
        defer { close(console) }
        let active = CLinux_vt_active(console)
        guard active > 0 else { throw DRMError("ioctl(VT_GETSTATE) on /dev/tty0", errno: errno) }
        let n = wanted ?? active
        let tty = open("/dev/tty\(n)", O_RDWR | O_CLOEXEC | O_NOCTTY)
        guard tty >= 0 else { throw DRMError("open /dev/tty\(n)", errno: errno) }
        var mask = sigset_t()
        sigemptyset(&mask)
        sigaddset(&mask, Self.releaseSignal)
        sigaddset(&mask, Self.acquireSignal)
        pthread_sigmask(SIG_BLOCK, &mask, nil)
        let signals = signalfd(-1, &mask, Int32(SFD_CLOEXEC | SFD_NONBLOCK))
        guard signals >= 0 else {
            let e = errno
            close(tty)
            throw DRMError("signalfd(SIGRTMIN+4, SIGRTMIN+5)", errno: e)
        }
        func fail(_ call: String) -> DRMError {
            let e = errno
            close(signals)
            close(tty)
            return DRMError(call, errno: e)
        }
        if n != active, CLinux_vt_activate(tty, n) != 0 { throw fail("ioctl(VT_ACTIVATE \(n)) on /dev/tty\(n)") }
        let graphics = CLinux_kd_is_graphics(tty)
        guard graphics >= 0 else { throw fail("ioctl(KDGETMODE) on /dev/tty\(n)") }
        guard CLinux_kd_set_graphics(tty, 1) == 0 else { throw fail("ioctl(KDSETMODE KD_GRAPHICS) on /dev/tty\(n)") }
        guard CLinux_vt_set_process_mode(tty, Self.releaseSignal, Self.acquireSignal) == 0 else {
            let e = errno
            if graphics == 0 { _ = CLinux_kd_set_graphics(tty, 0) }
            errno = e
            throw fail("ioctl(VT_SETMODE VT_PROCESS) on /dev/tty\(n)")
        }
        number = n
        self.tty = tty
        self.signals = signals
        wasGraphics = graphics == 1
    }

    deinit {
        restore()
        close(signals)
        close(tty)
    }

    /// Text mode (unless the VT was in graphics mode before) and VT_AUTO again: the console
    /// draws and switches on its own. Idempotent.
    public func restore() {
        guard !restored else { return }
        restored = true
        if let mode = keyboardModeBefore { _ = CLinux_kd_set_keyboard_mode(tty, mode) }
        _ = CLinux_vt_set_auto_mode(tty)
        if !wasGraphics { _ = CLinux_kd_set_graphics(tty, 0) }
    }

    /// Reads the waiting signals and runs `onRelease` or `onAcquire`.
    public func dispatch() {
        var info = signalfd_siginfo()
        while read(signals, &info, MemoryLayout<signalfd_siginfo>.size) == MemoryLayout<signalfd_siginfo>.size {
            let signal = Int32(info.ssi_signo)
            if signal == Self.releaseSignal, isActive {
                isActive = false
                onRelease()
            } else if signal == Self.acquireSignal {
                _ = CLinux_vt_reldisp(tty, 2)  // VT_ACKACQ
                if !isActive {
                    isActive = true
                    onAcquire()
                }
            }
        }
    }

    /// The console keyboard's mode before `silenceKeyboard`, restored with the VT.
    private var keyboardModeBefore: Int32?

    /// Stops the console from reading the keyboard (K_OFF) while laminad reads it through
    /// evdev: keys typed on the kiosk must not reach a getty or shell behind it. Ctrl+Alt+Fn
    /// then switches VTs only through laminad (`switchTo`). Restored by `restore`.
    /// The corresponding C functions are `ioctl(KDGKBMODE)` and `ioctl(KDSKBMODE, K_OFF)`.
    public func silenceKeyboard() throws(DRMError) {
        guard keyboardModeBefore == nil, !restored else { return }
        var mode = CLinux_kd_keyboard_mode(tty)
        guard mode >= 0 else { throw DRMError("ioctl(KDGKBMODE) on /dev/tty\(number)", errno: errno) }
        // Off already: a laminad that crashed left it so. Give the console back its usual
        // Unicode mode at exit, never "off" again.
        if mode == CLinux_kd_keyboard_off() { mode = CLinux_kd_keyboard_unicode() }
        guard CLinux_kd_set_keyboard_mode(tty, CLinux_kd_keyboard_off()) == 0 else {
            throw DRMError("ioctl(KDSKBMODE K_OFF) on /dev/tty\(number)", errno: errno)
        }
        keyboardModeBefore = mode
    }

    /// Asks the kernel to switch to VT `n` (the switch away then runs through `onRelease`).
    /// The corresponding C function is `ioctl(VT_ACTIVATE)`.
    public func switchTo(_ n: Int32) throws(DRMError) {
        guard n != number else { return }
        guard CLinux_vt_switch(tty, n) == 0 else { throw DRMError("ioctl(VT_ACTIVATE \(n))", errno: errno) }
    }

    /// Lets the pending switch away go ahead (after the card is no longer used).
    /// The corresponding C function is `ioctl(VT_RELDISP, 1)`.
    public func allowRelease() { _ = CLinux_vt_reldisp(tty, 1) }
}
