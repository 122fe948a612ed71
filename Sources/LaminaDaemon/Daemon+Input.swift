import LaminaServer

// A stub so the input-devices branch builds: the router (hit testing, delivery to clients)
// replaces this file at merge. InputDeviceHost already logs each action at debug level.
extension Daemon {
    func handleInput(_ action: InputAction, origin: InputOrigin) {
        logger.trace("input: handleInput stub got \(action) (injected: \(origin.injected))")
    }
}
