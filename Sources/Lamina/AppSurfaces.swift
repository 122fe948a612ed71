import LaminaCore
import LaminaProtocol

/// An app window laminad hosts (a Wayland app), as a managing client hears of it.
public struct AppSurface: Hashable, Sendable {
    /// laminad's number for it: show it with `layer.contents = .appSurface(id)`.
    public let id: UInt32
    /// `xdg_toplevel`'s app id (`org.gnome.Calculator`, `foot`) and title.
    public let appID: String
    public let title: String
    /// The app's process (0 when unknown).
    public let pid: Int32
    /// The window's size in points.
    public let size: Size

    init(_ e: AppSurfaceEvent) {
        id = e.id
        appID = e.appID
        title = e.title
        pid = e.pid
        size = Size(width: Double(e.width), height: Double(e.height))
    }
}

/// Managing the Wayland apps laminad hosts (protocol 1.7, a privileged request): while a
/// client manages them, app windows are not shown full screen; each shows in the layers whose
/// `contents` is `.appSurface(id)`, sized to the layer's bounds (`appSizing`), with input that
/// lands on the layer going to the app.
extension Connection {
    /// Starts managing apps. `onAppSurface` is then called for each window there is (appeared),
    /// and as windows appear, change (title, size) and go (with why: closed, exited, dropped).
    /// Kept across reconnections.
    public func manageApps() async throws {
        try await connected()
        managesApps = true
        _ = try await channel.request(.manageApps(.manage))
    }

    /// Stops managing apps; kiosk mode comes back once no client manages them.
    public func stopManagingApps() async throws {
        try await connected()
        managesApps = false
        appSurfaces = [:]
        _ = try await channel.request(.manageApps(.stop))
    }

    /// laminad's Wayland socket (`wayland.socket:PATH` in its statistics), the path apps take
    /// as `WAYLAND_DISPLAY`; nil when it serves none (`[wayland] enabled = false`).
    public func waylandSocket() async throws -> String? {
        try await stats().lazy.compactMap { s -> String? in
            s.name.hasPrefix("wayland.socket:") ? String(s.name.dropFirst("wayland.socket:".count)) : nil
        }.first
    }

    /// Gives app window `id` the keyboard (0 takes it back to this client).
    public func focusApp(_ id: UInt32) async throws {
        try await connected()
        _ = try await channel.request(.manageApps(.focus(app: id)))
    }

    /// Asks app window `id` to close (the app decides; it may ask to save first).
    public func closeApp(_ id: UInt32) async throws {
        try await connected()
        _ = try await channel.request(.manageApps(.close(app: id)))
    }

    /// An `app-surface` message: the windows known are updated, then `onAppSurface` is called.
    func receivedAppSurface(_ e: AppSurfaceEvent) {
        if e.kind == .gone { appSurfaces[e.id] = nil } else { appSurfaces[e.id] = AppSurface(e) }
        onAppSurface(e)
    }

    /// After a reconnection: managing again, as before.
    func replayAppManagement() {
        // The new laminad tells its windows afresh (the old ones went with the old laminad).
        appSurfaces = [:]
        guard managesApps, isConnected else { return }
        let channel = channel
        Task { @MainActor [weak self] in
            do { _ = try await channel.request(.manageApps(.manage)) } catch let e as LaminaError { self?.onError(e) } catch {}
        }
    }
}

extension Layer {
    /// Who sizes the app window the layer shows: `bounds` (laminad configures the app to the
    /// layer's bounds, again whenever they change) or `app` (it keeps its own size), placed by
    /// `contentsGravity` either way. Protocol 1.7.
    public var appSizing: AppSizing {
        get { model.appSizing }
        set { setValue(.string(newValue.rawValue), forKey: .appSizing) }
    }

    /// What the layer shows once its app window is gone: its last frame (`keep`, the default)
    /// or nothing (`clear`). Protocol 1.7.
    public var appExitContents: AppExitContents {
        get { model.appExitContents }
        set { setValue(.string(newValue.rawValue), forKey: .appExitContents) }
    }
}
