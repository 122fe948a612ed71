import LaminaCore
import LaminaProtocol

/// Hosted app windows (docs/architecture.md, "App surfaces"): the host (laminad's Wayland
/// server) tells the compositor of windows; clients that manage apps hear of them and show them
/// as layer contents (`appSurface`); the compositor sizes them by those layers' bounds, routes
/// input that lands on them back to the host in window points, and draws them in the layers.
extension Compositor {
    // MARK: The host's side

    /// The in-process session whose tree holds app windows' layers (a window layer numbered as
    /// the window, holding its surfaces' layers); nil when it is gone.
    public func setAppSession(_ client: ClientID?) {
        apps.session = client
    }

    /// Whether a client manages apps now (kiosk mode is off).
    public var appsAreManaged: Bool { !apps.managers.isEmpty }

    /// Whether an app window's buffer is in dma-buf memory now: frames then ask the overlay
    /// planner whether it can be scanned out directly, as a video's picture is.
    var appBuffersInDMABufs: Bool {
        guard let session = apps.session, let entry = model.entries.first(where: { $0.client == session }) else { return false }
        return entry.tree.images.values.contains { $0.dmabuf != nil }
    }

    /// The app windows drawn in the last frame (shown in a managing client's layer).
    public var appWindowsShown: Set<UInt32> { apps.shown }

    /// A window appeared (mapped), or came back.
    public func appWindowAppeared(_ window: HostedWindow) {
        apps.windows[window.id] = window
        tellManagers(window.event(.appeared))
        updateAppSizes()
        requestFrame(.sceneChanged)
    }

    /// A window's title, app id or size changed.
    public func appWindowChanged(_ window: HostedWindow) {
        guard let old = apps.windows[window.id] else { return appWindowAppeared(window) }
        apps.windows[window.id] = window
        if old.title != window.title || old.appID != window.appID || old.width != window.width || old.height != window.height {
            tellManagers(window.event(.changed))
        }
    }

    /// A window went: its layers may stay to show its last frame (`appExitContents`) until the
    /// host forgets it (`appWindowForgotten`).
    public func appWindowGone(_ id: UInt32, reason: AppSurfaceEvent.GoneReason) {
        guard var w = apps.windows[id], w.gone == nil else { return }
        w.gone = reason
        apps.windows[id] = w
        apps.sizes[id] = nil
        if apps.focus == id { apps.focus = nil }
        tellManagers(w.event(.gone))
        requestFrame(.sceneChanged)
    }

    /// The host dropped a gone window's layers.
    public func appWindowForgotten(_ id: UInt32) {
        apps.windows[id] = nil
        apps.sizes[id] = nil
        requestFrame(.sceneChanged)
    }

    private func tellManagers(_ event: AppSurfaceEvent) {
        for client in apps.managers where (sessionMinor(client) ?? 0) >= 7 { reply(client, .appSurface(event)) }
    }

    // MARK: The request

    /// `manage-apps` (privileged; checked by `serve`).
    func manageApps(_ request: AppsRequest, for client: ClientID) throws(RequestRefused) -> Reply {
        switch request {
        case .manage:
            guard !apps.managers.contains(client) else { return .done }
            let wasManaged = appsAreManaged
            apps.managers.append(client)
            // Layers it set before it managed apps show them from now on.
            if let i = model.index(of: client) {
                model.entries[i].appLayers = Set(model.entries[i].tree.layers.compactMap { $0.value.properties.appSurface != 0 ? $0.key : nil })
            }
            if !wasManaged { host?.appsManaged(true) }
            // What there is now, oldest first; gone windows whose frames are kept are not news.
            for w in apps.windows.values.sorted(by: { $0.id < $1.id }) where w.gone == nil {
                if (sessionMinor(client) ?? 0) >= 7 { reply(client, .appSurface(w.event(.appeared))) }
            }
            updateAppSizes()
        case .stop:
            stopManagingApps(client)
        case .focus(let app):
            guard apps.managers.contains(client) else { throw notManaging(request) }
            if app == 0 {
                moveAppFocus(to: nil)
            } else {
                guard let w = apps.windows[app], w.gone == nil else {
                    throw RequestRefused(.invalidRequest, "manage-apps focus: there is no app window \(app)")
                }
                moveAppFocus(to: app)
            }
        case .close(let app):
            guard apps.managers.contains(client) else { throw notManaging(request) }
            guard let w = apps.windows[app], w.gone == nil else {
                throw RequestRefused(.invalidRequest, "manage-apps close: there is no app window \(app)")
            }
            host?.closeApp(app)
        }
        return .done
    }

    private func notManaging(_ request: AppsRequest) -> RequestRefused {
        RequestRefused(.invalidRequest, "manage-apps \(request.opcode == 2 ? "focus" : "close") needs the client to manage apps first (manage-apps manage)")
    }

    /// A managing client stopped or left: kiosk mode comes back after the last.
    func stopManagingApps(_ client: ClientID) {
        guard let i = apps.managers.firstIndex(of: client) else { return }
        apps.managers.remove(at: i)
        if apps.managers.isEmpty {
            moveAppFocus(to: nil)
            apps.sizes = [:]
            host?.appsManaged(false)
        } else {
            updateAppSizes()
        }
        requestFrame(.sceneChanged)
    }

    // MARK: Sizing

    /// The sizes app windows should have: each shown by a managing client's layer with
    /// `appSizing` `bounds` takes that layer's bounds (the largest, where several show it).
    /// The host is told of the ones that changed.
    func updateAppSizes() {
        guard !apps.managers.isEmpty, host != nil else { return }
        var wanted: [UInt32: Size] = [:]
        for client in apps.managers {
            guard let i = model.index(of: client) else { continue }
            let tree = model.entries[i].tree
            for id in model.entries[i].appLayers {
                guard let p = tree[id]?.properties, p.appSurface != 0, p.appSizing == .bounds,
                      let w = apps.windows[p.appSurface], w.gone == nil else { continue }
                let size = Size(width: max(1, p.bounds.width.rounded()), height: max(1, p.bounds.height.rounded()))
                guard size.width.isFinite, size.height.isFinite, size.width <= 32768, size.height <= 32768 else { continue }
                if let had = wanted[w.id], had.width * had.height >= size.width * size.height { continue }
                wanted[w.id] = size
            }
        }
        var changed: [UInt32: Size] = [:]
        for (id, size) in wanted where apps.sizes[id] != size { changed[id] = size }
        apps.sizes = wanted
        if !changed.isEmpty { host?.sizeApps(changed) }
    }

    /// After a managing client's commit: which of its layers show app windows, and the sizes.
    func appsCommitted(_ result: CommitResult, entry i: Int) {
        var touched = false
        for change in result.changes {
            switch change {
            case let .set(id, key, _):
                if key == .appSurface {
                    if (model.entries[i].tree[id]?.properties.appSurface ?? 0) != 0 {
                        model.entries[i].appLayers.insert(id)
                    } else {
                        model.entries[i].appLayers.remove(id)
                    }
                    touched = true
                } else if key == .bounds || key == .appSizing {
                    touched = touched || model.entries[i].appLayers.contains(id)
                }
            case let .destroyed(id, _):
                if model.entries[i].appLayers.remove(id) != nil { touched = true }
            default: break
            }
        }
        if touched, let client = model.entries[i].client, apps.managers.contains(client) { updateAppSizes() }
    }

    // MARK: Input

    /// The app window shown by `target`'s layer, where a managing client's layer shows one that
    /// is up, with the layer's values as drawn.
    func appShown(by target: InputState.Target) -> (window: HostedWindow, properties: LayerProperties)? {
        guard !apps.managers.isEmpty, let i = model.entries.firstIndex(where: { $0.serial == target.serial }),
              let client = model.entries[i].client, apps.managers.contains(client),
              let p = model.entries[i].tree[target.layer]?.properties, p.appSurface != 0,
              let w = apps.windows[p.appSurface], w.gone == nil, w.width > 0, w.height > 0 else { return nil }
        let shown = animationStates[target.serial]?.animated[target.layer]?.presentation ?? p
        return (w, shown)
    }

    /// Hands an event that landed on a layer showing an app window to the host, in the window's
    /// points. A press gives the window the keyboard.
    func deliverToApp(_ event: InputEvent, window: HostedWindow, properties p: LayerProperties) {
        let d = HostedApps.destination(bounds: p.bounds, window: window, gravity: p.contentsGravity)
        let sx = d.width != 0 ? Double(window.width) / d.width : 1, sy = d.height != 0 ? Double(window.height) / d.height : 1
        let at = Point(x: (event.location.x - d.minX) * sx, y: (event.location.y - d.minY) * sy)
        if event.kind == .touchDown || event.kind == .buttonPress { moveAppFocus(to: window.id) }
        input.delivered &+= 1
        host?.appInput(AppInput(app: window.id, kind: event.kind, id: event.id, location: at, delta: event.delta))
    }

    /// Gives the keyboard to app window `app`, or takes it from the one that has it (nil).
    func moveAppFocus(to app: UInt32?) {
        guard apps.focus != app else { return }
        if let old = apps.focus { host?.appInput(AppInput(app: old, kind: .focusOut)) }
        apps.focus = app
        if let app { host?.appInput(AppInput(app: app, kind: .focusIn)) }
    }

    /// A key for the app window with the keyboard; false when none has it.
    func keyToApp(code: UInt32, pressed: Bool) -> Bool {
        guard let app = apps.focus else { return false }
        input.delivered &+= 1
        host?.appInput(AppInput(app: app, kind: pressed ? .keyPress : .keyRelease, id: Int32(truncatingIfNeeded: code)))
        return true
    }

    // MARK: Drawing

    /// What a frame's walk needs to draw app windows in managing clients' layers.
    func appPortals(presentation: PresentationTree) -> AppPortals? {
        guard !apps.managers.isEmpty, let session = apps.session, let i = model.index(of: session) else { return nil }
        let managers = Set(apps.managers.compactMap { c in model.index(of: c).map { model.entries[$0].serial } })
        return AppPortals(tree: model.entries[i].tree, serial: model.entries[i].serial,
                          presentation: presentation.client(model.entries[i].serial), windows: apps.windows, managers: managers)
    }
}
