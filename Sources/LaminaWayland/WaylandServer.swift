import CWlroots
import LaminaCompositor
import Logging

/// laminad's Wayland server: a `wl_display` with wlroots 0.15's protocol globals, serving
/// Wayland clients on one listening socket (docs/architecture.md, "Wayland clients").
///
/// wlroots only keeps the protocol state here. `wlr_compositor` is given a renderer that never
/// draws (`BufferRenderer`): it wraps each committed shm buffer (wlroots' pixman renderer, a
/// view of the shm pages, no copy) and accepts the dma-bufs laminad shows (`offerDMABufs`).
/// Its headless backend is never started: it only gives `wp_presentation` its clock. laminad's
/// own backend and renderer keep the display.
///
/// The display's event loop is one descriptor (`eventDescriptor`) on laminad's loop; `dispatch`
/// serves what is ready and flushes the replies.
public final class WaylandServer {
    /// The socket's path, as clients reach it (`WAYLAND_DISPLAY` may be this absolute path).
    public let socketPath: String
    let display: OpaquePointer
    private let eventLoop: OpaquePointer
    let renderer: UnsafeMutablePointer<wlr_renderer>
    private let buffers: BufferRenderer
    /// Whether apps are offered dma-bufs (`zwp_linux_dmabuf_v1`), and the formats.
    public private(set) var dmabufFormats: [DMABufFormat] = []
    private let backend: UnsafeMutablePointer<wlr_backend>
    let compositor: UnsafeMutablePointer<wlr_compositor>
    let xdgShell: UnsafeMutablePointer<wlr_xdg_shell>
    let seat: UnsafeMutablePointer<wlr_seat>
    let logger: Logger
    let settings: WaylandSettings
    private var clientCreated: Listener!
    private var newSurface: Listener!
    private var newXDGSurface: Listener!
    /// Told of app windows (laminad's WaylandHost).
    public weak var delegate: (any WaylandServerDelegate)?
    /// The desktop's size in pixels: kiosk toplevels are configured to it.
    public var desktopSize = (width: 1280, height: 720)
    /// Toplevels by their `wlr_xdg_surface`.
    var toplevels: [UnsafeMutableRawPointer: Toplevel] = [:]
    /// Each popup's map, unmap and destroy listeners, by its `wlr_xdg_surface`.
    var popupListeners: [UnsafeMutableRawPointer: [Listener]] = [:]
    /// Each surface's destroy listener (the per-client count), by its `wlr_surface`.
    var surfaceListeners: [UnsafeMutableRawPointer: Listener] = [:]
    var nextSurfaceID: UInt32 = 0
    var mapSerial: UInt64 = 0
    /// `wp_presentation`: apps asking when their commits reached the screen are told
    /// (`framePresented`).
    let presentation: UnsafeMutablePointer<wlr_presentation>
    /// Windows whose frame callbacks wait because an opaque window hides them (at the last frame).
    public internal(set) var coveredWindows = 0
    /// Whether frames reach the screen by page flips (KMS): presentation feedback then says so.
    public var presentsOnPageFlip = false
    /// Frames presented since start: `wp_presentation_feedback.presented`'s sequence.
    var presentedSequence: UInt64 = 0
    /// laminad's outputs as `wl_output` and `xdg_output` globals (`setOutputs`).
    let outputs: WaylandOutputs
    /// Every window's decorations are the server's, which draws none (kiosk).
    private let decorations: ServerDecorations
    /// The seat's keyboard (`useKeymap`); nil until laminad gives its keymap.
    var keyboard: SeatKeyboard?
    /// Each touch's surface origin on the desktop, from its touch-down (motion is sent in the
    /// coordinates of the surface it went down on).
    var touchOrigins: [Int32: (Double, Double)] = [:]
    /// The surface the keyboard focus is on (the top toplevel in kiosk mode).
    var keyboardFocus: UnsafeMutablePointer<wlr_surface>?
    /// A Lamina client manages apps (`setManaged`): windows are sized and shown by its layers,
    /// and input reaches them through them; otherwise kiosk mode.
    public internal(set) var isManaged = false
    /// Managed: the windows drawn in the last frame (the others' frame callbacks wait), and the
    /// window the compositor gave the keyboard.
    public var windowsShown: Set<UInt32> = []
    var managedFocus: UInt32?
    /// Clients that have connected since laminad started.
    public private(set) var clientsConnected = 0

    /// Serves on `listener`, a bound and listening Unix socket at `socketPath`; the server owns
    /// the descriptor from here on (libwayland closes it).
    public init(listener: Int32, socketPath: String, settings: WaylandSettings, logger: Logger) throws(WaylandError) {
        self.socketPath = socketPath
        self.settings = settings
        self.logger = logger
        WaylandLog.install(logger)
        guard let display = wl_display_create() else { throw WaylandError("wl_display_create failed") }
        self.display = display
        eventLoop = wl_display_get_event_loop(display)
        guard let buffers = BufferRenderer(maxPixels: settings.maxBufferPixels) else {
            wl_display_destroy(display)
            throw WaylandError("wlroots' pixman renderer could not be made")
        }
        self.buffers = buffers
        let renderer = buffers.renderer
        self.renderer = renderer
        // wl_shm with the formats the renderer can wrap (ARGB8888 and XRGB8888 among them).
        guard wlr_renderer_init_wl_display(renderer, display) else {
            wl_display_destroy(display)
            throw WaylandError("wl_shm could not be set up")
        }
        guard let backend = wlr_headless_backend_create(display) else {
            wl_display_destroy(display)
            throw WaylandError("wlroots' headless backend (wp_presentation's clock) could not be made")
        }
        self.backend = backend
        // wl_compositor and wl_subcompositor.
        guard let compositor = wlr_compositor_create(display, renderer),
              let xdgShell = wlr_xdg_shell_create(display),
              let seat = wlr_seat_create(display, "seat0"),
              wlr_data_device_manager_create(display) != nil,
              wlr_viewporter_create(display) != nil,
              let presentation = wlr_presentation_create(display, backend)
        else {
            wl_display_destroy(display)
            throw WaylandError("wlroots' protocol globals could not be made")
        }
        self.compositor = compositor
        self.xdgShell = xdgShell
        self.seat = seat
        self.presentation = presentation
        guard let layout = wlr_output_layout_create(), wlr_xdg_output_manager_v1_create(display, layout) != nil else {
            wl_display_destroy(display)
            throw WaylandError("wlroots' output layout or xdg_output manager could not be made")
        }
        outputs = WaylandOutputs(backend: backend, layout: layout)
        guard let decorations = ServerDecorations(display: display) else {
            wl_display_destroy(display)
            throw WaylandError("wlroots' xdg-decoration manager could not be made")
        }
        self.decorations = decorations
        // Pointer and touch (kiosk input, WaylandServer+Input.swift); the keyboard joins them
        // once laminad gives its keymap (`useKeymap`).
        wlr_seat_set_capabilities(seat, UInt32(WL_SEAT_CAPABILITY_POINTER.rawValue | WL_SEAT_CAPABILITY_TOUCH.rawValue))
        guard wl_display_add_socket_fd(display, listener) == 0 else {
            wl_display_destroy(display)
            throw WaylandError("wl_display_add_socket_fd \(socketPath) failed")
        }
        clientCreated = Listener { [unowned self] client in
            guard let client else { return }
            clientConnected(OpaquePointer(client))
        }
        clientCreated.attach { wl_display_add_client_created_listener(display, $0) }
        newSurface = Listener { [unowned self] data in
            if let data { surfaceCreated(data.assumingMemoryBound(to: wlr_surface.self)) }
        }
        newSurface.attach(to: &compositor.pointee.events.new_surface)
        newXDGSurface = Listener { [unowned self] data in
            if let data { xdgSurfaceCreated(data.assumingMemoryBound(to: wlr_xdg_surface.self)) }
        }
        newXDGSurface.attach(to: &xdgShell.pointee.events.new_surface)
    }

    /// The clients connected now, by their `wl_client`.
    private(set) var clients: [OpaquePointer: WaylandClient] = [:]

    private func clientConnected(_ client: OpaquePointer) {
        clientsConnected += 1
        var pid: pid_t = 0, uid: uid_t = 0, gid: gid_t = 0
        wl_client_get_credentials(client, &pid, &uid, &gid)
        let record = WaylandClient(client: client, pid: pid, uid: uid)
        clients[client] = record
        record.destroyed = Listener { [unowned self, unowned record] _ in clientGone(record) }
        record.destroyed.attach { wl_client_add_destroy_listener(client, $0) }
        logger.info("wayland: client connected (pid \(pid), uid \(uid))")
    }

    /// A client left or was dropped (a protocol error, garbage on its socket, a limit).
    func clientGone(_ record: WaylandClient) {
        record.isGoing = true
        record.destroyed.detach()
        clients[record.client] = nil
        if let reason = record.dropReason {
            logger.warning("wayland: client (pid \(record.pid)) dropped: \(reason)")
        } else {
            logger.info("wayland: client (pid \(record.pid)) disconnected")
        }
    }

    /// The display's event loop: readable when a client's request (or a new connection) waits.
    public var eventDescriptor: Int32 { wl_event_loop_get_fd(eventLoop) }

    /// Serves every client's waiting requests, then sends what they caused.
    public func dispatch() {
        let refused = buffers.refusedDMABufs
        wl_event_loop_dispatch(eventLoop, 0)
        // The app hears only `failed`; the log says why.
        if buffers.refusedDMABufs != refused, let why = buffers.lastRefusal { logger.warning("wayland: a dma-buf refused: \(why)") }
        flush()
    }

    /// Sends the events queued for clients (after frame callbacks and configures made outside
    /// `dispatch`). wlroots queues configures as idle work of the display's loop: that runs
    /// first, or a configure made between requests would wait for the app's next one.
    public func flush() {
        wl_event_loop_dispatch_idle(eventLoop)
        wl_display_flush_clients(display)
    }

    /// Offers apps dma-bufs of `formats` allocated on the DRM device `drmFD` (laminad's
    /// display device, kept open by its backend): `zwp_linux_dmabuf_v1`, whose default feedback
    /// names that device. Returns why not, where wlroots could not make the global.
    public func offerDMABufs(_ formats: [DMABufFormat], drmFD: Int32) -> String? {
        guard dmabufFormats.isEmpty, !formats.isEmpty else { return formats.isEmpty ? "no formats" : nil }
        guard buffers.offerDMABufs(formats, drmFD: drmFD, display: display) else {
            return "wlroots could not make the zwp_linux_dmabuf_v1 global (see its log line)"
        }
        dmabufFormats = formats
        return nil
    }

    /// dma-bufs refused when an app made them (a format, modifier, plane count or size laminad
    /// does not show, or a descriptor that is no dma-buf; each logged with why).
    public var refusedDMABufs: Int { buffers.refusedDMABufs }

    /// Clients connected now.
    public var clientCount: Int {
        let list = wl_display_get_client_list(display)!
        var count = 0
        var link = list.pointee.next
        while let l = link, l != list {
            count += 1
            link = l.pointee.next
        }
        return count
    }

    /// Describes laminad's outputs to apps: `wl_output` (mode in pixels, integer scale,
    /// transform, name) and `xdg_output` (logical place and size in points) for each.
    public func setOutputs(_ wanted: [WaylandOutput]) {
        let failed = outputs.update(wanted)
        if !failed.isEmpty { logger.warning("wayland: output \(failed.joined(separator: ", ")) could not be described to apps") }
        flush()
    }

    /// Drops every client and the globals.
    public func close() {
        clientCreated.detach()
        newSurface.detach()
        newXDGSurface.detach()
        decorations.close()
        for top in toplevels.values { top.detachAll() }
        toplevels = [:]
        for list in popupListeners.values { list.forEach { $0.detach() } }
        popupListeners = [:]
        for l in surfaceListeners.values { l.detach() }
        surfaceListeners = [:]
        for record in clients.values { record.destroyed.detach() }
        clients = [:]
        wl_display_destroy_clients(display)
        outputs.close()
        if let keyboard {
            wlr_seat_set_keyboard(seat, nil)
            keyboard.destroy()
            self.keyboard = nil
        }
        wlr_backend_destroy(backend)
        wl_display_destroy(display)
        wlr_renderer_destroy(renderer)
    }
}

/// A Wayland server failure, with what failed.
public struct WaylandError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
