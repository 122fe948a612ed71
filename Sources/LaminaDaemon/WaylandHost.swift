#if canImport(Glibc)
import Glibc
#endif
import LaminaCompositor
import LaminaPlatform
import LaminaProtocol
import LaminaWayland
import Logging

/// laminad's Wayland server on its event loop: the socket, bound beside the Lamina socket with
/// the same owner, group and permissions, and the server's one descriptor watched with the
/// clients' (docs/architecture.md, "Wayland clients").
final class WaylandHost {
    let server: WaylandServer
    /// App windows as layers while no Lamina client manages apps.
    let kiosk: WaylandKiosk

    /// nil when `[wayland] enabled = false`, or when the socket cannot be bound (logged: Lamina
    /// clients are served all the same).
    static func start(options: Daemon.Options, compositor: Compositor, loop: EventLoop, logger: Logger) -> WaylandHost? {
        let settings = options.wayland
        guard settings.enabled else {
            logger.info("wayland: off ([wayland] enabled = false)")
            return nil
        }
        let path = settings.socketPath(besides: options.socketPath)
        do {
            let listener = try UnixSocket.listen(path: path)
            if let mode = options.socketMode {
                try retryingEINTR("chmod \(path)") { chmod(path, mode_t(mode)) }
            }
            if options.socketOwner != nil || options.socketGroup != nil {
                try retryingEINTR("chown \(path)") { chown(path, options.socketOwner ?? UInt32.max, options.socketGroup ?? UInt32.max) }
            }
            let server = try WaylandServer(listener: listener.release(), socketPath: path, settings: settings, logger: logger)
            server.desktopSize = (compositor.model.width, compositor.model.height)
            let host = WaylandHost(server: server, kiosk: WaylandKiosk(compositor: compositor, logger: logger))
            server.delegate = host.kiosk
            try loop.add(server.eventDescriptor) { [unowned host] _ in host.server.dispatch() }
            logger.notice("wayland: clients connect to \(path) (WAYLAND_DISPLAY=\(path))")
            return host
        } catch {
            logger.error("wayland: no Wayland server: \(error)")
            return nil
        }
    }

    private init(server: WaylandServer, kiosk: WaylandKiosk) {
        self.server = server
        self.kiosk = kiosk
    }

    /// `wayland.socket:PATH` (1 while listening), `wayland.clients` and `wayland.clientsConnected`.
    var statistics: [Statistic] {
        [
            Statistic(name: "wayland.socket:" + server.socketPath, value: 1),
            Statistic(name: "wayland.clients", value: Double(server.clientCount)),
            Statistic(name: "wayland.clientsConnected", value: Double(server.clientsConnected)),
        ]
    }

    func close() {
        server.close()
        unlink(server.socketPath)
    }
}
