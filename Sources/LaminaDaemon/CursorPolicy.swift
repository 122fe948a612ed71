import LaminaCore
import LaminaPlatform
import LaminaCompositor
import Logging

/// When the configured cursor (`[display] cursor = true`) shows: pointer motion shows it where
/// the pointer is now, a touch hides it (a touch screen needs no arrow), and so do
/// `cursor_hide_after` seconds without pointer motion. Until the first pointer motion it stays
/// where the backend put it (`cursor_position`, or the first output's centre).
final class CursorPolicy {
    private unowned let compositor: Compositor
    private unowned let power: DisplayPowerPolicy
    private var backend: any DisplayBackend { compositor.backend }
    private let logger: Logger
    /// Seconds without pointer motion before the cursor hides; nil never hides it.
    private let hideAfter: Double?
    private var hideTimer: (any PolicyTimer)?
    /// False after a touch or the inactivity timeout, until the pointer moves.
    private(set) var isShown = true

    /// `hideAfter` 0 never hides the cursor for inactivity. `loop` is laminad's event loop
    /// (tests pass one whose time they advance by hand).
    init(compositor: Compositor, power: DisplayPowerPolicy, hideAfter: Double, loop: any PolicyLoop, logger: Logger) throws(SystemError) {
        self.compositor = compositor
        self.power = power
        self.logger = logger
        self.hideAfter = hideAfter > 0 && hideAfter.isFinite ? hideAfter : nil
        if let seconds = self.hideAfter {
            hideTimer = try loop.makeTimer { [unowned self] in
                hide(because: "\(seconds) s without pointer motion")
            }
        }
    }

    /// Follows one input event (every event passes here, before the compositor routes it).
    func handle(_ action: InputAction) {
        switch action {
        case .pointerMotion(let point):
            guard point.x.isFinite, point.y.isFinite else { return }
            lastPoint = point
            show(at: point, because: "pointer motion")
        case .pointerButton(_, true), .pointerAxis:
            // A click or a scroll with the mouse brings a hidden cursor back where the pointer is.
            if !isShown, let lastPoint { show(at: lastPoint, because: "pointer button") }
        case .touchDown:
            hide(because: "touch")
        default:
            break
        }
    }

    /// Where the pointer last moved to (nil before any motion).
    private var lastPoint: Point?

    private func show(at point: Point, because reason: String) {
        if !isShown { logger.debug("cursor: shown (\(reason))") }
        isShown = true
        if backend.setCursor(point) { cursorMoved() }
        if let hideAfter, let hideTimer {
            do { try hideTimer.arm(after: hideAfter) } catch { logger.error("cursor timer: \(error)") }
        }
    }

    private func hide(because reason: String) {
        guard isShown else { return }
        isShown = false
        if let hideTimer, hideTimer.isArmed { try? hideTimer.disarm() }
        logger.info("cursor: hidden (\(reason))")
        if backend.setCursor(nil) { cursorMoved() }
    }

    /// The renderer draws the cursor on an output without a cursor plane: a frame shows the
    /// change, though nothing in the tree changed; not while the displays are blanked for
    /// idleness (pointer motion does not wake them).
    private func cursorMoved() {
        guard !power.blankedByIdle else { return }
        compositor.requestFrame(.cursorMoved)
    }
}
