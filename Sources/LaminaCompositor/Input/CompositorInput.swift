import LaminaCore
import LaminaProtocol

/// The router's state between events: who holds each touch and the pointer, what the pointer
/// is over, who has the keyboard, and who listens.
struct InputState {
    /// A layer of one entry (by serial, which stays with the entry while it lives).
    struct Target: Hashable {
        var serial: EntrySerial
        var layer: LayerID
    }

    /// Touches in progress and the layer each is grabbed by (the one its down hit). A touch
    /// whose down hit nothing is kept with no target, so its moves and up go nowhere.
    var touches: [Int32: (target: Target?, last: Point)] = [:]
    var pointer = Point.zero
    /// The layer under the pointer, told of enter and leave.
    var hover: Target?
    /// Buttons held, and the layer that got the first press: it keeps the pointer until the
    /// last button is released (the implicit grab).
    var buttons: [UInt32] = []
    var buttonGrab: Target?
    /// The entry whose client has the keyboard.
    var focus: EntrySerial?
    /// Connections listening to a session's input events (`laminactl events`): the entry
    /// (by serial) they were allowed to listen to. A later session of the same name is another
    /// entry, which they do not hear.
    var listeners: [ClientID: EntrySerial] = [:]

    /// The most touches followed at once (multi-touch panels report 10; injectors get no more).
    static let maximumTouches = 32
    /// The most buttons held at once.
    static let maximumButtons = 16
}

extension Compositor {
    /// Routes one input event: hit-tests the presentation tree as drawn in the last frame,
    /// keeps implicit grabs, enter/leave and the keyboard focus, and sends `input` events to
    /// the clients owning the layers (and to listeners of their sessions).
    public func handleInput(_ action: InputAction, origin: InputOrigin) {
        route(action, origin)
    }

    private func route(_ action: InputAction, _ origin: InputOrigin) {
        input.routed &+= 1
        switch action {
        case let .touchDown(id, p):
            if let old = input.state.touches[id] {
                // A second down for a touch still held: the first will never finish.
                if let t = old.target { send(.touchCancel, to: t, id: id, at: old.last, origin) }
                input.state.touches[id] = nil
            }
            guard input.state.touches.count < InputState.maximumTouches else {
                input.unclaimed &+= 1
                logger.debug("input: touch \(id) ignored: \(InputState.maximumTouches) touches are in progress")
                return
            }
            let hit = hitTest(p)
            input.state.touches[id] = (hit.map { InputState.Target(serial: $0.serial, layer: $0.layer) }, p)
            guard let hit else { input.unclaimed &+= 1; return }
            let target = InputState.Target(serial: hit.serial, layer: hit.layer)
            // A finger on a scroll in motion stops it and is the scroll's (CompositorScroll.swift).
            if scrollTouchDown(id, at: p, hit: target) {
                input.state.touches[id]?.target = nil
                return
            }
            setFocus(target.serial, origin)
            deliver(InputEvent(kind: .touchDown, layer: hit.layer, id: id, location: hit.location, screen: p), to: target, origin)
        case let .touchMotion(id, p):
            guard let touch = input.state.touches[id] else { return }
            input.state.touches[id]?.last = p
            if scrollTouchMoved(id, to: p) { return }
            if let t = touch.target, !send(.touchMove, to: t, id: id, at: p, origin) {
                // Its layer is gone or out of its tree: the touch ends now with a cancel, and
                // the rest of it goes nowhere.
                send(.touchCancel, to: t, id: id, at: p, origin)
                input.state.touches[id]?.target = nil
            }
            // Past the pan threshold a scroll layer above takes the touch: the layer it hit
            // gets a cancel (no tap, no long press).
            if scrollTakesOver(id, at: p), let t = input.state.touches[id]?.target {
                send(.touchCancel, to: t, id: id, at: p, origin)
                input.state.touches[id]?.target = nil
            }
        case .touchUp(let id):
            guard let touch = input.state.touches.removeValue(forKey: id) else { return }
            if scrollTouchEnded(id, cancelled: false) { return }
            if let t = touch.target { send(.touchUp, to: t, id: id, at: touch.last, origin) }
        case .touchCancel(let id):
            guard let touch = input.state.touches.removeValue(forKey: id) else { return }
            if scrollTouchEnded(id, cancelled: true) { return }
            if let t = touch.target { send(.touchCancel, to: t, id: id, at: touch.last, origin) }
        case .pointerMotion(let p):
            input.state.pointer = p
            if let grab = input.state.buttonGrab {
                send(.pointerMove, to: grab, id: 0, at: p, origin)
            } else {
                updateHover(origin)
                if let h = input.state.hover { send(.pointerMove, to: h, id: 0, at: p, origin) }
            }
        case let .pointerButton(code, pressed):
            let p = input.state.pointer
            if pressed {
                guard !input.state.buttons.contains(code), input.state.buttons.count < InputState.maximumButtons else { return }
                if input.state.buttons.isEmpty {
                    updateHover(origin)
                    input.state.buttonGrab = input.state.hover
                }
                input.state.buttons.append(code)
                guard let grab = input.state.buttonGrab else { input.unclaimed &+= 1; return }
                setFocus(grab.serial, origin)
                send(.buttonPress, to: grab, id: Int32(truncatingIfNeeded: code), at: p, origin)
            } else {
                guard let i = input.state.buttons.firstIndex(of: code) else { return }
                input.state.buttons.remove(at: i)
                if let grab = input.state.buttonGrab {
                    send(.buttonRelease, to: grab, id: Int32(truncatingIfNeeded: code), at: p, origin)
                }
                if input.state.buttons.isEmpty {
                    input.state.buttonGrab = nil
                    updateHover(origin)
                }
            }
        case let .pointerAxis(h, v):
            guard let t = input.state.buttonGrab ?? input.state.hover ?? hitTarget(input.state.pointer) else {
                input.unclaimed &+= 1
                return
            }
            // A scroll layer above that scrolls on touch takes the wheel.
            if scrollWheel(Point(x: h, y: v), over: t) { return }
            send(.scroll, to: t, id: 0, at: input.state.pointer, origin, delta: Point(x: h, y: v))
        case let .key(code, pressed, keysym, name, text):
            // An app window with the keyboard (a tap on it, or its manager's request) gets keys.
            if keyToApp(code: code, pressed: pressed) { return }
            guard let focus = input.state.focus else { input.unclaimed &+= 1; return }
            deliver(InputEvent(kind: pressed ? .keyPress : .keyRelease, layer: .root, id: Int32(truncatingIfNeeded: code),
                               keysym: keysym, keyName: name, text: pressed ? text : ""),
                    to: InputState.Target(serial: focus, layer: .root), origin)
        case .cancelAll:
            let touches = input.state.touches.sorted { $0.key < $1.key }
            input.state.touches.removeAll()
            for (id, touch) in touches {
                if scrollTouchEnded(id, cancelled: true) { continue }
                if let t = touch.target { send(.touchCancel, to: t, id: id, at: touch.last, origin) }
            }
            if let grab = input.state.buttonGrab {
                for code in input.state.buttons {
                    send(.pointerCancel, to: grab, id: Int32(truncatingIfNeeded: code), at: input.state.pointer, origin)
                }
            }
            input.state.buttons.removeAll()
            input.state.buttonGrab = nil
        }
    }

    /// Gives `client` the keyboard (a `takeKeyboardFocus` request).
    func takeFocus(_ client: ClientID) {
        guard let i = model.index(of: client) else { return }
        setFocus(model.entries[i].serial, InputOrigin(injected: false))
    }

    /// Gives the keyboard to the entry with `serial`: the last client to receive a press, unless
    /// another has asked for it since (`takeFocus`).
    private func setFocus(_ serial: EntrySerial, _ origin: InputOrigin) {
        guard input.state.focus != serial else { return }
        if let old = input.state.focus {
            deliver(InputEvent(kind: .focusOut), to: InputState.Target(serial: old, layer: .root), origin)
        }
        input.state.focus = serial
        deliver(InputEvent(kind: .focusIn), to: InputState.Target(serial: serial, layer: .root), origin)
    }

    /// Sends leave and enter where the layer under the pointer changed.
    private func updateHover(_ origin: InputOrigin) {
        let p = input.state.pointer
        let now = hitTarget(p)
        guard now != input.state.hover else { return }
        if let old = input.state.hover { send(.pointerLeave, to: old, id: 0, at: p, origin) }
        input.state.hover = now
        if let now { send(.pointerEnter, to: now, id: 0, at: p, origin) }
    }

    /// Where layers are as last drawn: an animated layer's presentation geometry (nil: the
    /// model's), for hit testing and locating points.
    var shownGeometry: (_ entry: Int, _ layer: LayerID) -> HitGeometry? {
        // Each entry's animated layers, by entry index (the hit test's numbering).
        let animated = model.entries.map { animationStates[$0.serial]?.animated ?? [:] }
        return { entry, id in animated[entry][id].map { HitGeometry($0.presentation) } }
    }

    private func hitTest(_ p: Point) -> DisplayHit? {
        model.hitTest(p, at: lastFrameTime, animated: shownGeometry)
    }

    private func hitTarget(_ p: Point) -> InputState.Target? {
        hitTest(p).map { InputState.Target(serial: $0.serial, layer: $0.layer) }
    }

    /// An event about display point `p` for `target`, located in the target's layer as drawn.
    /// A layer that is gone or no longer in its tree cannot place the point: its touch or grab
    /// ends with a cancel.
    /// Returns false when the point could not be placed in the layer.
    @discardableResult
    private func send(_ kind: InputEvent.Kind, to target: InputState.Target, id: Int32, at p: Point,
                      _ origin: InputOrigin, delta: Point = .zero) -> Bool {
        guard let location = model.locate(p, in: target.layer, serial: target.serial, at: lastFrameTime, animated: shownGeometry) else {
            // Nowhere to put the point: a leave or a cancel still goes (at the layer's origin).
            if kind == .pointerLeave || kind == .touchCancel || kind == .pointerCancel || kind == .touchUp || kind == .buttonRelease {
                let final: InputEvent.Kind = kind == .touchUp ? .touchCancel : kind == .buttonRelease ? .pointerCancel : kind
                deliver(InputEvent(kind: final, layer: target.layer, id: id, screen: p), to: target, origin)
            }
            return false
        }
        deliver(InputEvent(kind: kind, layer: target.layer, id: id, location: location, screen: p, delta: delta), to: target, origin)
        return true
    }

    /// Stamps the event and sends it to the client owning `target` and to its session's listeners.
    private func deliver(_ event: InputEvent, to target: InputState.Target, _ origin: InputOrigin) {
        // A layer showing an app window passes pointer and touch on to the app (CompositorApps.swift).
        if !event.kind.isKeyboard, let shown = appShown(by: target) {
            deliverToApp(event, window: shown.window, properties: shown.properties)
            return
        }
        // A press anywhere else takes the keyboard from an app window.
        if event.kind == .touchDown || event.kind == .buttonPress { moveAppFocus(to: nil) }
        guard let entry = model.entries.first(where: { $0.serial == target.serial }) else { return }
        var e = event
        e.injected = origin.injected
        e.deviceTime = origin.deviceTime
        e.time = now
        // A client older than protocol 1.4 cannot decode input events: it gets none.
        if let client = entry.client, (sessionMinor(client) ?? 0) >= 4 { reply(client, .input(e)) }
        input.delivered &+= 1
        let listening = input.state.listeners.filter { $0.value == entry.serial }.map(\.key)
        guard !listening.isEmpty || !watchers.isEmpty else { return }
        let name = entry.tree[e.layer]?.properties.name ?? ""
        var j = JSONWriter()
        j.beginObject()
        j.field("type", e.kind.description)
        j.field("session", entry.session)
        j.key("layer")
        if name.isEmpty { j.null() } else { j.value(.string(name)) }
        j.field("layerID", Double(e.layer.rawValue))
        if !e.kind.isKeyboard {
            j.field("id", Double(e.id))
            j.key("location"); j.value(.point(e.location))
            j.key("screen"); j.value(.point(e.screen))
        }
        if e.kind == .scroll { j.key("delta"); j.value(.point(e.delta)) }
        if e.kind == .keyPress || e.kind == .keyRelease {
            j.field("code", Double(e.id))
            j.field("key", e.keyName)
            j.field("text", e.text)
        }
        j.field("time", e.time)
        if e.deviceTime > 0 { j.field("deviceTime", e.deviceTime) }
        if e.injected { j.field("injected", true) }
        j.endObject()
        for l in listening.sorted(by: { $0.rawValue < $1.rawValue }) { reply(l, .watch(j.text)) }
        if !watchers.isEmpty { watch(#"{"event":"input","input":"# + j.text + "}") }
    }

    /// A `listen` request: streams the session's input events to `client`.
    func listen(_ client: ClientID, session: String, peer: PeerIdentity) throws(ErrorMessage) {
        guard let entry = model.entries.first(where: { $0.session == session && !session.isEmpty }) else {
            throw ErrorMessage(code: .invalidRequest, message: "there is no session named '\(session)'")
        }
        guard peer.isPrivileged || peer.uid == entry.ownerUID else {
            throw ErrorMessage(code: .permissionDenied,
                               message: "session '\(session)' belongs to uid \(entry.ownerUID); uid \(peer.uid) may not listen to it")
        }
        input.state.listeners[client] = entry.serial
    }

    /// The action an injection stands for, or why it cannot be routed (a key name the keymap
    /// does not have, or no keymap).
    func action(for injection: InputInjection) -> Result<InputAction, InjectionRefused> {
        switch injection {
        case let .touchDown(t, p): return .success(.touchDown(id: t, at: p))
        case let .touchMotion(t, p): return .success(.touchMotion(id: t, to: p))
        case .touchUp(let t): return .success(.touchUp(id: t))
        case .touchCancel(let t): return .success(.touchCancel(id: t))
        case .pointerMotion(let p): return .success(.pointerMotion(to: p))
        case let .pointerButton(code, pressed): return .success(.pointerButton(code: code, pressed: pressed))
        case let .pointerAxis(h, v): return .success(.pointerAxis(horizontal: h, vertical: v))
        case let .key(name, pressed):
            guard let host, host.hasKeymap else { return .failure(InjectionRefused(message: "this laminad has no keymap, so it cannot inject keys")) }
            guard let a = host.keyAction(named: name, pressed: pressed) else {
                return .failure(InjectionRefused(message: "no key of the keymap types the keysym '\(name)' (names are xkbcommon's: a, A, Return, space, BackSpace, F1, …)"))
            }
            return .success(a)
        }
    }

    /// Forgets a connection that went away: it listens no more, and if its session had the
    /// keyboard, nobody has (a later client of a kept session must take it or be pressed).
    func inputDisconnected(_ client: ClientID, serial: EntrySerial?) {
        input.state.listeners[client] = nil
        if let serial, input.state.focus == serial { input.state.focus = nil }
    }
}

/// Why an injection was refused (answered as `invalid-request`).
struct InjectionRefused: Error {
    var message: String
}

/// What the compositor keeps for input.
struct CompositorInput {
    var state = InputState()
    /// Scrolls laminad drives (CompositorScroll.swift).
    var scroll = ScrollState()
    /// Scroll events of the frame being drawn, by entry serial: sent once it is presented.
    var scrollEvents: [(EntrySerial, ScrollEvent)] = []
    var routed: UInt64 = 0
    var delivered: UInt64 = 0
    var unclaimed: UInt64 = 0
}
