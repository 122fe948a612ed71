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
    static func start(options: Daemon.Options, compositor: Compositor, renderer: any Renderer, loop: EventLoop, logger: Logger) -> WaylandHost? {
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
            let host = WaylandHost(server: server, kiosk: WaylandKiosk(compositor: compositor, fadeIn: settings.fadeIn, logger: logger))
            server.delegate = host.kiosk
            // A page flip (KMS) paces and times frames; headless presents them at once.
            server.presentsOnPageFlip = compositor.backend.session != nil
            host.describe(compositor.backend.displayLayout)
            host.offerDMABufs(renderer: renderer, backend: compositor.backend, logger: logger)
            try loop.add(server.eventDescriptor) { [unowned host] _ in host.server.dispatch() }
            logger.notice("wayland: clients connect to \(path) (WAYLAND_DISPLAY=\(path))")
            return host
        } catch {
            logger.error("wayland: no Wayland server: \(error)")
            return nil
        }
    }

    /// Offers apps dma-bufs (`zwp_linux_dmabuf_v1`) where the display is a DRM device apps can
    /// allocate on and the renderer shows dma-bufs: imported in place on a GPU, mapped and copied
    /// (linear buffers) on a software rasteriser. Not headless: there is no device to share.
    private func offerDMABufs(renderer: any Renderer, backend: any DisplayBackend, logger: Logger) {
        guard let device = backend.drmDevice else {
            logger.info("wayland: no dma-bufs for apps (the \(backend.name) backend has no DRM device to share): apps use shared memory")
            return
        }
        let (formats, how) = renderer.dmabufFormats
        guard !formats.isEmpty else {
            logger.info("wayland: no dma-bufs for apps (\(how)): apps use shared memory")
            return
        }
        if let why = server.offerDMABufs(formats, drmFD: device) {
            logger.warning("wayland: no dma-bufs for apps: \(why)")
            return
        }
        let names = formats.map { "\(DRMFourCC.name($0.fourcc)) (\($0.modifiers.count) modifier\($0.modifiers.count == 1 ? "" : "s"))" }
        logger.info("wayland: apps may share dma-bufs: \(names.joined(separator: ", ")), \(how)")
    }

    private init(server: WaylandServer, kiosk: WaylandKiosk) {
        self.server = server
        self.kiosk = kiosk
    }

    /// Tells apps the display's outputs (`wl_output`, `xdg_output`) and sizes kiosk windows to
    /// the desktop.
    func describe(_ layout: DisplayLayout) {
        if layout.width > 0, layout.height > 0 { server.desktopSize = (Int(layout.width), Int(layout.height)) }
        server.setOutputs(layout.outputs.map { o in
            let turns = ["normal": 0, "90": 1, "180": 2, "270": 3]
            let flipped = o.transform.hasPrefix("flipped")
            let turn = flipped ? String(o.transform.dropFirst("flipped".count).drop { $0 == "-" }) : o.transform
            return WaylandOutput(name: o.name, x: o.frame.minX, y: o.frame.minY, width: o.frame.width, height: o.frame.height,
                                 scale: o.scale, refresh: o.refresh, quarterTurns: turns[turn.isEmpty ? "normal" : turn] ?? 0,
                                 flipped: flipped)
        })
    }

    /// `wayland.socket:PATH` (1 while listening), `wayland.clients`, `wayland.clientsConnected`,
    /// `wayland.windowsCovered` (windows whose frame callbacks wait: under an opaque one, or,
    /// managed, shown by no layer), `wayland.managed` (1 while a Lamina client manages apps),
    /// `wayland.dmabufFormats` (formats apps may share as dma-bufs, 0 where none are offered)
    /// and `wayland.dmabufRefused` (dma-bufs refused when an app made them).
    var statistics: [Statistic] {
        [
            Statistic(name: "wayland.socket:" + server.socketPath, value: 1),
            Statistic(name: "wayland.clients", value: Double(server.clientCount)),
            Statistic(name: "wayland.clientsConnected", value: Double(server.clientsConnected)),
            Statistic(name: "wayland.windowsCovered", value: Double(server.coveredWindows)),
            Statistic(name: "wayland.managed", value: server.isManaged ? 1 : 0),
            Statistic(name: "wayland.dmabufFormats", value: Double(server.dmabufFormats.count)),
            Statistic(name: "wayland.dmabufRefused", value: Double(server.refusedDMABufs)),
        ]
    }

    /// A Lamina client manages apps now, or none does any more (kiosk mode).
    func setManaged(_ managed: Bool) {
        kiosk.setManaged(managed)
        server.setManaged(managed)
    }

    func close() {
        server.close()
        unlink(server.socketPath)
    }
}
