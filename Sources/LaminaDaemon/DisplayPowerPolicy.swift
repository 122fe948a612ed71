import LaminaCore
import LaminaPlatform
import LaminaProtocol
import LaminaCompositor
import Logging

/// Idle dimming (`[power] dim_after`, `dim_to`): after `afterSeconds` without activity the
/// backlights go to `toPercent` of the level they had.
struct IdleDimming: Equatable {
    /// Seconds; 0 never dims.
    var afterSeconds: Double
    /// Percent of the level set before dimming (at least the dimmest lit level).
    var toPercent: Double

    static let off = IdleDimming(afterSeconds: 0, toPercent: 30)
}

/// The backlights idle dimming works on: laminad's `OutputBacklights`, a test's fake.
protocol DimmableBacklights: AnyObject {
    /// Each output's backlight level now; outputs without a backlight are absent.
    func levels() -> [String: Int]
    /// Writes `level` into `output`'s backlight.
    func setLevel(_ level: Int, output: String) throws
}

/// When the displays are lit (beside `CursorPolicy`, which says when the cursor shows):
/// `display off|on` and SIGUSR1/SIGUSR2 set them; after `[power] dim_after` seconds without
/// activity (a frame wanted, any input) the backlights dim to `dim_to` % of their level, and
/// after `blank_after` (formerly `idle_blank`) seconds the displays blank. Activity restores
/// the level set before dimming; a change to draw lights blanked displays again, and so does
/// the first touch, button or key press on a display blanked for idleness — that touch (down,
/// moves, up) or press is not delivered, so a sleeping kiosk is not operated by the touch that
/// wakes it. A touch on a display that is only dimmed is delivered: the picture shows.
final class DisplayPowerPolicy {
    private unowned let compositor: Compositor
    private let loop: any PolicyLoop
    private let logger: Logger
    private let idleBlankSeconds: Double?
    private var idleTimer: (any PolicyTimer)?
    private let dimming: IdleDimming
    private let backlights: (any DimmableBacklights)?
    private var dimTimer: (any PolicyTimer)?
    /// The TVs of outputs with an HDMI-CEC adapter (`[[power.cec]]`): standby and wake with them.
    private let cec: OutputCEC?
    /// Each dimmed output's level before dimming; nil while not dimmed.
    private(set) var levelsBeforeDimming: [String: Int]?
    var isDimmed: Bool { levelsBeforeDimming != nil }
    /// The displays were blanked by the idle timer (not by a request): activity lights them.
    private(set) var blankedByIdle = false
    /// Touches, buttons and keys that woke a blanked display: the rest of them is not delivered.
    private var swallowedTouches: Set<Int32> = []
    private var swallowedButtons: Set<UInt32> = []
    private var swallowedKeys: Set<UInt32> = []

    /// `idleBlankSeconds` nil or 0 never blanks (nor on a backend without outputs to blank);
    /// `dimming` with 0 seconds, or no `backlights`, never dims.
    /// `cec` switches the TVs of outputs that have an HDMI-CEC adapter with their displays.
    /// `loop` is laminad's event loop (tests pass one whose time they advance by hand).
    init(compositor: Compositor, idleBlankSeconds: Double?, dimming: IdleDimming = .off, backlights: (any DimmableBacklights)? = nil,
         cec: OutputCEC? = nil, loop: any PolicyLoop, logger: Logger) throws(SystemError) {
        self.compositor = compositor
        self.cec = cec
        self.loop = loop
        self.logger = logger
        self.dimming = dimming
        self.backlights = backlights
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
        if dimming.afterSeconds > 0, backlights != nil {
            dimTimer = try loop.makeTimer { [unowned self] in dim() }
            try dimTimer?.arm(after: dimming.afterSeconds)
        }
    }

    /// Blanks (false) or relights (true) the named display, or every display, and returns every
    /// output's state afterwards; a TV behind an HDMI-CEC adapter goes to standby, or wakes and
    /// switches to laminad's input, with its output. Headless has none to blank. An unknown
    /// name throws `UnknownOutput`.
    @discardableResult
    func setPower(_ on: Bool, output: String? = nil) throws -> [OutputPower] {
        let backend = compositor.backend
        guard backend.canSetPower else {
            throw BackendUnavailable(reason: "display \(on ? "on" : "off") needs the KMS backend; this daemon runs \(backend.name)")
        }
        try backend.setPower(on, output: output)
        cec?.displayPowerChanged(on: on, outputs: output.map { [$0] })
        blankedByIdle = false
        compositor.outputsChanged()
        if on { compositor.requestFrame(.outputRelit) }
        return backend.outputPower.map { OutputPower(name: $0.name, isOn: $0.isOn) }
    }

    /// Something is to be drawn (the repaint loop armed its timer): the idle timer starts
    /// again, and displays blanked for idleness light up (after the current event: the
    /// compositor is in the middle of scheduling).
    func frameWanted() {
        activity()
        guard blankedByIdle else { return }
        blankedByIdle = false
        loop.afterCurrentEvent { [unowned self] in
            do { try setPower(true) } catch { logger.error("unblank: \(error)") }
        }
    }

    /// Whether `action` goes on to the compositor. Input is activity; on a display blanked for
    /// idleness a press only wakes it, and is swallowed whole.
    func admits(_ action: InputAction) -> Bool {
        activity()
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

    /// Something happened (a frame wanted, input, a brightness set by request): the idle
    /// timers start again and dimmed backlights go back to their level.
    func activity() {
        if let seconds = idleBlankSeconds, let idleTimer { try? idleTimer.arm(after: seconds) }
        if let dimTimer { try? dimTimer.arm(after: dimming.afterSeconds) }
        restoreBrightness()
    }

    /// The idle dimming timer fired: every backlight to `dim_to` % of its level (a display
    /// blanked already stays as it is).
    private func dim() {
        guard let backlights, !isDimmed, !blankedByIdle else { return }
        let levels = backlights.levels()
        guard !levels.isEmpty else { return }
        logger.info("idle for \(dimming.afterSeconds) s: dimming the backlights to \(dimming.toPercent) %")
        for (output, level) in levels.sorted(by: { $0.key < $1.key }) {
            do { try backlights.setLevel(BacklightChoice.dimmed(level, to: dimming.toPercent), output: output) } catch {
                logger.error("dim \(output): \(error)")
            }
        }
        levelsBeforeDimming = levels
    }

    private func restoreBrightness() {
        guard let levels = levelsBeforeDimming, let backlights else { return }
        levelsBeforeDimming = nil
        for (output, level) in levels.sorted(by: { $0.key < $1.key }) {
            do { try backlights.setLevel(level, output: output) } catch { logger.error("restore \(output)'s brightness: \(error)") }
        }
    }

    private func wake(by what: String) {
        logger.info("\(what) on a blanked display: waking it (the \(what) is not delivered)")
        do { try setPower(true) } catch { logger.error("wake: \(error)") }
    }
}
