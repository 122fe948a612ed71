#if canImport(Glibc)
import Glibc
#endif
import CDRM
import CLinux
import LaminaCore
import LaminaPlatform
import LaminaCompositor
import Logging

/// The seat (libseat) or the VT held directly (root): switching away stops drawing and gives
/// DRM master up; coming back modesets every output again. The daemon opens input devices and
/// switches VTs through it (`DisplaySession`).
extension KMSBackend: DisplaySession {
    /// Stops the console of the VT laminad holds (directly, as root) from reading the keyboard,
    /// once laminad reads it itself; restored when the VT is given back. Under a seat (seatd,
    /// logind) the seat does this. Logged, never fatal.
    public func takeConsoleKeyboard() {
        guard let terminal else { return }
        do {
            try terminal.silenceKeyboard()
            logger.info("vt: the console on tty\(terminal.number) no longer reads the keyboard (laminad does; Ctrl+Alt+Fn switches VTs)")
        } catch {
            logger.warning("vt: \(error); keys typed here also reach the console on tty\(terminal.number)")
        }
    }

    /// Switches to VT `n` through the seat, or the VT laminad holds.
    public func switchVT(_ n: Int32) throws(DRMError) {
        if let seat { try seat.switchSession(n) } else if let terminal { try terminal.switchTo(n) }
    }

    /// The libseat seat's name, or nil where the card was opened directly.
    public var seatName: String? { seat?.name }

    /// Opens an input device through the seat (libseat); without a seat there is nothing to
    /// open it through (EPERM).
    public func openDevice(_ path: String) throws -> (fd: Int32, id: Int32) {
        guard let seat else { throw DRMError("opening \(path) through a seat: the card was opened directly", errno: EPERM) }
        return try seat.openDevice(path)
    }

    /// Closes a device `openDevice` opened.
    public func closeDevice(_ id: Int32) { seat?.closeDevice(id) }
    /// The seat is being taken away (a VT switch): let the queued flips finish, stop drawing,
    /// and tell the seat manager, which then drops DRM master for this process.
    func seatDisabled() {
        logger.notice("kms: seat disabled (switched away): drawing stops until it comes back")
        onSessionActiveChange?(false)
        stopDrawing()
        seat?.acknowledgeDisable()
    }

    /// Lets the queued flips finish; every output modesets with the first frame after.
    func stopDrawing() {
        try? waitForFlips(timeout: 0.5)
        for output in lit { output.flipCompleted(); output.invalidate() }
    }

    /// The kernel asks to switch away from our VT (direct session): stop drawing, give DRM
    /// master up (so the console or the next compositor can set its mode), then allow it.
    func terminalReleased() {
        logger.notice("kms: VT \(terminal?.number ?? 0) released (switched away): drawing stops until it comes back")
        onSessionActiveChange?(false)
        stopDrawing()
        do { try drm.dropMaster() } catch { logger.warning("kms: \(error)") }
        terminal?.allowRelease()
    }

    /// Our VT is back (already acknowledged): take DRM master again, then as for a seat.
    func terminalAcquired() {
        do { try drm.becomeMaster() } catch { logger.error("kms: VT back but \(error); frames are dropped") }
        logger.notice("kms: VT \(terminal?.number ?? 0) acquired: restoring the outputs")
        for output in lit { output.invalidate() }
        rescan()
        repaint(.outputRelit)
        onSessionActiveChange?(true)
    }

    /// The seat is back with DRM master: set every output's mode again (another program may
    /// have changed it), pick up displays plugged in meanwhile, and draw the current state.
    func seatEnabled() {
        logger.notice("kms: seat enabled: restoring the outputs")
        for output in lit { output.invalidate() }
        rescan()
        repaint(.outputRelit)
        onSessionActiveChange?(true)
    }
}
