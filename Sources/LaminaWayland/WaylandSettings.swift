/// laminad.toml's `[wayland]`: whether laminad serves Wayland clients, where, and their bounds.
public struct WaylandSettings: Sendable, Equatable {
    /// `enabled = false` turns the Wayland server off.
    public var enabled = true
    /// A socket name, placed in the Lamina socket's folder, or an absolute path
    /// (`--wayland-display NAME|PATH`).
    public var display = WaylandSettings.defaultDisplay
    /// Surfaces one client may hold (each `wl_surface`, subsurfaces and popups included); past
    /// it the client gets a protocol error and is dropped.
    public var maxSurfacesPerClient = 256
    /// Pixels (width × height) of one committed buffer; a bigger one drops its client.
    /// 8192 × 8192 by default: a 16k × 16k buffer (1 GiB of shm) is refused.
    public var maxBufferPixels = 8192 * 8192

    /// Kiosk mode: seconds a new window fades in over (0: at once).
    public var fadeIn = 0.25

    public static let defaultDisplay = "wayland-lamina-0"

    public init() {}

    /// The socket's path: `display` itself when it is a path, else `display` in the folder of
    /// `laminaSocket` (laminad's runtime directory).
    public func socketPath(besides laminaSocket: String) -> String {
        if display.contains("/") { return display }
        guard let slash = laminaSocket.lastIndex(of: "/") else { return display }
        let folder = laminaSocket[..<slash]
        return (folder.isEmpty ? "" : String(folder)) + "/" + display
    }
}
