import LaminaCore
import LaminaInput
import LaminaServer

extension Daemon {
    /// Every input event, from a device or injected, comes through here on its way to the
    /// compositor's router. Input is activity: it restarts the idle-blank timer. On a display
    /// blanked for idleness, the first touch or press only wakes it; that touch (down, moves
    /// and up) or press is not delivered, so a sleeping kiosk is not operated by the touch
    /// that wakes it.
    func handleInput(_ action: InputAction, origin: InputOrigin) {
        // Device events were logged by the input host already.
        if origin.injected { logger.debug("input: \(action.logDescription) (injected)") }
        if let seconds = options.idleBlankSeconds, let idleTimer { try? idleTimer.arm(after: seconds) }
        cursorPolicy(action)
        switch action {
        case .touchDown(let id, _) where blankedByIdle:
            wake(by: "touch")
            swallowedTouches.insert(id)
            return
        case .pointerButton(let code, true) where blankedByIdle:
            wake(by: "button press")
            swallowedButtons.insert(code)
            return
        case .key(let code, true, _, _, _) where blankedByIdle:
            wake(by: "key press")
            swallowedKeys.insert(code)
            return
        case .key(let code, false, _, _, _) where swallowedKeys.contains(code):
            swallowedKeys.remove(code)
            return
        case .touchMotion(let id, _) where swallowedTouches.contains(id):
            return
        case .touchUp(let id) where swallowedTouches.contains(id), .touchCancel(let id) where swallowedTouches.contains(id):
            swallowedTouches.remove(id)
            return
        case .pointerButton(let code, false) where swallowedButtons.contains(code):
            swallowedButtons.remove(code)
            return
        case .cancelAll:
            swallowedTouches.removeAll()
            swallowedButtons.removeAll()
            swallowedKeys.removeAll()
        default:
            break
        }
        compositor.handleInput(action, origin: origin)
        // Events go out at once; a frame is drawn only if a client changes something.
    }

    private func wake(by what: String) {
        logger.info("\(what) on a blanked display: waking it (the \(what) is not delivered)")
        do { try setDisplayPower(true) } catch { logger.error("wake: \(error)") }
    }
}
