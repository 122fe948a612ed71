#if canImport(Glibc)
import Glibc
#endif
import LaminaCore
import LaminaInput
import LaminaKMS
import LaminaPlatform
import LaminaCompositor
import Logging

/// laminad's input devices: libinput on the daemon's event loop (KMS backend only), the keymap
/// (always, so injected keys are translated on headless too), and the translation of device
/// events into `InputAction`s for `Daemon.handleInput`.
///
/// Each action is logged at debug level as `input: <InputAction.logDescription>` before it is
/// handed on (the VM tests read these lines).
final class InputDeviceHost {
    let translator: InputTranslator
    var keyboard: Keyboard { translator.keyboard }
    private let logger: Logger
    private let outputs: () -> [OutputPlacement]
    private let deliver: (InputAction, InputOrigin) -> Void
    private var devices: InputDevices?
    private weak var loop: EventLoop?
    /// False while the session is switched away: device events are dropped.
    private var active = true
    /// Devices already announced at info level (name and node), so a VT switch's remove and
    /// re-add are logged at debug level only.
    private var announced: Set<String> = []

    /// The keymap from `settings` (a bad layout is logged and the default "us" keymap used) and
    /// no devices yet. Throws only when not even the default keymap compiles (no xkb-data).
    init(settings: InputSettings, logger: Logger, outputs: @escaping () -> [OutputPlacement],
         deliver: @escaping (InputAction, InputOrigin) -> Void) throws(KeymapError) {
        let keyboard: Keyboard
        do {
            keyboard = try Keyboard(names: settings.keymap)
        } catch {
            logger.error("input: \(error); using the default keymap (layout 'us')")
            keyboard = try Keyboard()
        }
        translator = InputTranslator(keyboard: keyboard, settings: settings)
        self.logger = logger
        self.outputs = outputs
        self.deliver = deliver
    }

    /// The input host for `daemon`: the keymap always, the seat's devices on the KMS backend
    /// when `[input] enabled`. Failures are logged; input never stops laminad from starting.
    static func start(for daemon: Daemon) -> InputDeviceHost? {
        let settings = daemon.options.input
        let logger = daemon.logger
        let backend = daemon.compositor.backend
        let host: InputDeviceHost
        do {
            host = try InputDeviceHost(settings: settings, logger: logger, outputs: { [unowned backend] in backend.outputPlacements },
                                       deliver: { [unowned daemon] action, origin in daemon.handleInput(action, origin: origin) })
        } catch {
            logger.error("input: no keymap at all (\(error)); keys cannot be translated or injected")
            return nil
        }
        logger.info("input: keymap \(host.keyboard.names)")
        // Devices are opened only where the backend holds a display through a session (KMS).
        guard let session = backend.session else { return host }
        guard settings.enabled else {
            logger.notice("input: devices off ([input] enabled = false)")
            return host
        }
        host.session = session
        // The console's keyboard is turned off once a keyboard is opened (`added`).
        host.consoleKeyboardToTake = true
        do {
            try host.startDevices(loop: daemon.loop, seat: session.seatName == nil ? nil : session, seatName: session.seatName ?? settings.seat)
        } catch {
            logger.error("input: cannot open the input devices: \(error); running without them")
            return host
        }
        backend.onSessionActiveChange = { [weak host] active in host?.sessionChanged(active: active) }
        return host
    }

    /// Opens the seat's devices through libinput (through libseat when the card came from it)
    /// and watches them on `loop`.
    func startDevices(loop: EventLoop, seat: (any DisplaySession)?, seatName: String) throws {
        // The closures run until libinput is released, which may be while this host is being
        // destroyed: they hold what they need themselves, never the host.
        let opened = SeatDescriptors()
        let logger = logger
        let devices = try InputDevices(seat: seatName, logger: logger, open: { path, flags in
            if let seat {
                do {
                    let (fd, id) = try seat.openDevice(path)
                    opened.ids[fd] = id
                    return fd
                } catch {
                    logger.warning("input: \(error)")
                    let code = (error as? DRMError)?.errno ?? 0
                    return -(code == 0 ? EACCES : code)
                }
            }
            let fd = Glibc.open(path, flags | O_CLOEXEC)
            if fd < 0 {
                let e = errno
                logger.warning("input: open \(path): \(String(cString: strerror(e)))")
                return -e
            }
            return fd
        }, close: { fd in
            if let seat, let id = opened.ids.removeValue(forKey: fd) { seat.closeDevice(id) }
            _ = Glibc.close(fd)
        })
        self.devices = devices
        self.loop = loop
        try loop.add(devices.fd) { [unowned self] _ in dispatch() }
        logger.info("input: libinput on seat \(seatName)\(seat == nil ? "" : " (devices through libseat)")")
        dispatch()
    }

    deinit {
        if let devices { loop?.remove(devices.fd) }
    }

    /// The key named `name` (a keysym name: "a", "Return", "space") pressed or released, as the
    /// keymap translates it, or nil when no key of the keymap's first layout has that keysym.
    /// Injected keys share the modifier state with the devices' keys.
    func keyAction(named name: String, pressed: Bool) -> InputAction? {
        guard let code = keyboard.keycode(forKeysymName: name) else { return nil }
        let k = keyboard.update(code: code, pressed: pressed)
        return .key(code: code, pressed: pressed, keysym: k.keysym, name: k.name, text: k.text)
    }

    /// The session went away (false: cancel everything in flight, close the devices) or came
    /// back (true: open them again).
    func sessionChanged(active: Bool) {
        guard let devices, active != self.active else { return }
        if !active {
            self.active = false
            logger.notice("input: session switched away: cancelling input in flight and closing the devices")
            send(.cancelAll, time: 0)
            translator.reset()
            devices.suspend()
            dispatch()
        } else {
            do { try devices.resume() } catch { logger.error("input: \(error)") }
            self.active = true
            logger.notice("input: session back: devices opened again")
            dispatch()
        }
    }

    private func dispatch() {
        guard let devices else { return }
        var batch: [(action: InputAction, time: Double)] = []
        for event in devices.dispatch() {
            switch event.kind {
            case .added(let info): added(info)
            case .removed(let info): removed(info)
            default:
                // Releases libinput reports while closing the devices: already cancelled.
                guard active else { continue }
            }
            for action in translator.translate(event, outputs: outputs()) { batch.append((action, event.time)) }
        }
        for (i, item) in batch.enumerated() {
            // Motion that the very next event of the batch supersedes is not routed: each
            // pointer motion costs a hit test, and a fast mouse reports many per frame.
            if i + 1 < batch.count, Self.supersedes(batch[i + 1].action, item.action) { continue }
            send(item.action, time: item.time)
        }
    }

    /// The VT an XF86Switch_VT_1…12 keysym (0x1008FE01…0x1008FE0C) switches to, or nil.
    static func switchVT(_ keysym: UInt32) -> Int32? {
        (0x1008_FE01...0x1008_FE0C).contains(keysym) ? Int32(keysym - 0x1008_FE00) : nil
    }

    /// Whether `next` makes `action` pointless to route: both move the pointer, or the same touch.
    static func supersedes(_ next: InputAction, _ action: InputAction) -> Bool {
        switch (action, next) {
        case (.pointerMotion, .pointerMotion): true
        case let (.touchMotion(a, _), .touchMotion(b, _)): a == b
        default: false
        }
    }

    /// Set when laminad holds a VT whose console should stop reading the keyboard as soon as
    /// laminad reads one (not before: with no keyboard opened, the console keeps it).
    var consoleKeyboardToTake = false

    /// The display's session, for Ctrl+Alt+Fn: with the console keyboard off, VT switching is ours.
    weak var session: (any DisplaySession)?

    private func send(_ action: InputAction, time: Double) {
        if case let .key(_, pressed, keysym, _, _) = action, let vt = Self.switchVT(keysym) {
            // XF86Switch_VT_n (Ctrl+Alt+Fn in the usual keymaps): switch, and the key is not
            // delivered (its release comes after the switch back, to nobody's harm).
            if pressed, let session {
                logger.info("input: Ctrl+Alt+F\(vt): switching to VT \(vt)")
                do { try session.switchVT(vt) } catch { logger.warning("input: switching to VT \(vt): \(error)") }
            }
            return
        }
        logger.debug("input: \(action.logDescription)")
        deliver(action, InputOrigin(injected: false, deviceTime: time))
    }

    private func added(_ info: InputDeviceInfo) {
        if consoleKeyboardToTake, info.capabilities.contains(.keyboard), let session {
            // laminad reads a keyboard now: keys must not also reach the console behind it.
            consoleKeyboardToTake = false
            session.takeConsoleKeyboard()
        }
        var notes: [String] = []
        if let matrix = translator.settings.rule(forDeviceNamed: info.name)?.calibration {
            do {
                try devices?.setCalibration(matrix, device: info.id)
                notes.append("calibration \(matrix)")
            } catch {
                logger.warning("input: '\(info.name)': \(error)")
            }
        }
        var line = "input: added '\(info.name)' (\(info.capabilities)\(info.isAbsolute ? ", absolute" : ""))"
        if info.isAbsolute || info.capabilities.contains(.touch) {
            // Resolved again at each event, so an output plugged in later is used then.
            line += " → " + (translator.output(forDevice: info, in: outputs())?.name ?? "no output yet")
        }
        line += " [\(info.sysname)]"
        if !notes.isEmpty { line += ", " + notes.joined(separator: ", ") }
        let key = info.name + "|" + info.sysname
        if announced.insert(key).inserted {
            logger.info("\(line)")
        } else {
            logger.debug("\(line)")
        }
    }

    private func removed(_ info: InputDeviceInfo) {
        let line = "input: removed '\(info.name)' [\(info.sysname)]"
        if active {
            announced.remove(info.name + "|" + info.sysname)
            logger.info("\(line)")
        } else {
            logger.debug("\(line)")
        }
    }
}

/// libseat's number for each descriptor it opened, for closing it.
private final class SeatDescriptors {
    var ids: [Int32: Int32] = [:]
}
