import LaminaCore
import LaminaInput
import LaminaCompositor

extension Daemon {
    /// Every input event, from a device or injected, comes through here on its way to the
    /// compositor's router: the cursor follows it, and the display power policy may swallow it
    /// (a touch that wakes a blanked display). Events go out at once; a frame is drawn only if a
    /// client changes something.
    func handleInput(_ action: InputAction, origin: InputOrigin) {
        // Device events were logged by the input host already.
        if origin.injected { logger.debug("input: \(action.logDescription) (injected)") }
        cursor?.handle(action)
        guard power.admits(action) else { return }
        // Kiosk mode: an app window shown takes pointer and touch (WaylandServer+Input.swift).
        if let wayland, wayland.server.handleKioskInput(action, at: compositor.now) { return }
        compositor.handleInput(action, origin: origin)
    }
}
