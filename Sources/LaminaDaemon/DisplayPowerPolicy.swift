import LaminaCore
import LaminaPlatform
import LaminaProtocol
import LaminaCompositor
import Logging

/// When the displays are lit (beside `CursorPolicy`, which says when the cursor shows):
/// `display off|on` and SIGUSR1/SIGUSR2 set them; after `idle_blank` seconds without activity
/// (a frame wanted, any input) they blank; a change to draw lights them again, and so does the
/// first touch, button or key press on a display blanked for idleness — that touch (down,
/// moves, up) or press is not delivered, so a sleeping kiosk is not operated by the touch that
/// wakes it.
final class DisplayPowerPolicy {
    private unowned let compositor: Compositor
    private let loop: any PolicyLoop
    private let logger: Logger
    private let idleBlankSeconds: Double?
    private var idleTimer: (any PolicyTimer)?
    /// The displays were blanked by the idle timer (not by a request): activity lights them.
    private(set) var blankedByIdle = false
    /// Touches, buttons and keys that woke a blanked display: the rest of them is not delivered.
    private var swallowedTouches: Set<Int32> = []
    private var swallowedButtons: Set<UInt32> = []
    private var swallowedKeys: Set<UInt32> = []

    /// `idleBlankSeconds` nil or 0 never blanks (nor on a backend without outputs to blank).
    /// `loop` is laminad's event loop (tests pass one whose time they advance by hand).
    init(compositor: Compositor, idleBlankSeconds: Double?, loop: any PolicyLoop, logger: Logger) throws(SystemError) {
        self.compositor = compositor
        self.loop = loop
        self.logger = logger
        let seconds = idleBlankSeconds.flatMap { $0 > 0 && compositor.backend.canSetPower ? $0 : nil }
        self.idleBlankSeconds = seconds
        if let seconds {
            idleTimer = try loop.makeTimer { [unowned self] in
                logger.info("idle for \(seconds) s: blanking the displays")
                do {
                    try setPower(false)
                    blankedByIdle = true
                } catch {
                    logger.error("idle blank: \(error)")
                }
            }
            try idleTimer?.arm(after: seconds)
        }
    }

    /// Blanks (false) or relights (true) the named display, or every display, and returns every
    /// output's state afterwards. Headless has none to blank. An unknown name throws `UnknownOutput`.
    @discardableResult
    func setPower(_ on: Bool, output: String? = nil) throws -> [OutputPower] {
        let backend = compositor.backend
        guard backend.canSetPower else {
            throw BackendUnavailable(reason: "display \(on ? "on" : "off") needs the KMS backend; this daemon runs \(backend.name)")
        }
        try backend.setPower(on, output: output)
        blankedByIdle = false
        compositor.outputsChanged()
        if on { compositor.requestFrame(.outputRelit) }
        return backend.outputPower.map { OutputPower(name: $0.name, isOn: $0.isOn) }
    }

    /// Something is to be drawn (the repaint loop armed its timer): the idle timer starts
    /// again, and displays blanked for idleness light up (after the current event: the
    /// compositor is in the middle of scheduling).
    func frameWanted() {
        restartIdleTimer()
        guard blankedByIdle else { return }
        blankedByIdle = false
        loop.afterCurrentEvent { [unowned self] in
            do { try setPower(true) } catch { logger.error("unblank: \(error)") }
        }
    }

    /// Whether `action` goes on to the compositor. Input is activity; on a display blanked for
    /// idleness a press only wakes it, and is swallowed whole.
    func admits(_ action: InputAction) -> Bool {
        restartIdleTimer()
        switch action {
        case .touchDown(let id, _) where blankedByIdle:
            wake(by: "touch")
            swallowedTouches.insert(id)
            return false
        case .pointerButton(let code, true) where blankedByIdle:
            wake(by: "button press")
            swallowedButtons.insert(code)
            return false
        case .key(let code, true, _, _, _) where blankedByIdle:
            wake(by: "key press")
            swallowedKeys.insert(code)
            return false
        case .key(let code, false, _, _, _) where swallowedKeys.contains(code):
            swallowedKeys.remove(code)
            return false
        case .touchMotion(let id, _) where swallowedTouches.contains(id):
            return false
        case .touchUp(let id) where swallowedTouches.contains(id), .touchCancel(let id) where swallowedTouches.contains(id):
            swallowedTouches.remove(id)
            return false
        case .pointerButton(let code, false) where swallowedButtons.contains(code):
            swallowedButtons.remove(code)
            return false
        case .cancelAll:
            swallowedTouches.removeAll()
            swallowedButtons.removeAll()
            swallowedKeys.removeAll()
            return true
        default:
            return true
        }
    }

    private func restartIdleTimer() {
        if let seconds = idleBlankSeconds, let idleTimer { try? idleTimer.arm(after: seconds) }
    }

    private func wake(by what: String) {
        logger.info("\(what) on a blanked display: waking it (the \(what) is not delivered)")
        do { try setPower(true) } catch { logger.error("wake: \(error)") }
    }
}
