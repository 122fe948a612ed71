import CWlroots

/// `zxdg_decoration_manager_v1`, answered as a kiosk compositor answers it: every toplevel is
/// told its decorations are the server's (`server_side`), and laminad draws none, so apps draw
/// no title bar or borders of their own (cage and sway's kiosk setups do the same). A window
/// that asks for client-side decorations is told server-side again.
final class ServerDecorations {
    private var created: Listener!
    /// Each decoration's listeners (its mode request, its end), by the decoration.
    private var decorations: [UnsafeMutableRawPointer: (request: Listener, destroy: Listener)] = [:]

    init?(display: OpaquePointer) {
        guard let manager = wlr_xdg_decoration_manager_v1_create(display) else { return nil }
        created = Listener { [unowned self] data in
            guard let data else { return }
            adopt(data.assumingMemoryBound(to: wlr_xdg_toplevel_decoration_v1.self))
        }
        created.attach(to: &manager.pointee.events.new_toplevel_decoration)
    }

    private func adopt(_ decoration: UnsafeMutablePointer<wlr_xdg_toplevel_decoration_v1>) {
        let key = UnsafeMutableRawPointer(decoration)
        let request = Listener { _ in _ = wlr_xdg_toplevel_decoration_v1_set_mode(decoration, WLR_XDG_TOPLEVEL_DECORATION_V1_MODE_SERVER_SIDE) }
        request.attach(to: &decoration.pointee.events.request_mode)
        let destroy = Listener { [unowned self] _ in
            decorations[key]?.request.detach()
            decorations[key]?.destroy.detach()
            decorations[key] = nil
        }
        destroy.attach(to: &decoration.pointee.events.destroy)
        decorations[key] = (request, destroy)
        _ = wlr_xdg_toplevel_decoration_v1_set_mode(decoration, WLR_XDG_TOPLEVEL_DECORATION_V1_MODE_SERVER_SIDE)
    }

    func close() {
        created.detach()
        for entry in decorations.values {
            entry.request.detach()
            entry.destroy.detach()
        }
        decorations = [:]
    }
}
