#if canImport(Glibc)
import Glibc
#endif
import CWlroots
import LaminaCore

// Surfaces: the per-client surface bound, kiosk toplevels (configured to the desktop, their
// pixels copied by damage), and frame callbacks after the frame that shows them.
extension WaylandServer {
    /// wlr_compositor made a `wl_surface`: counted against its client's bound.
    func surfaceCreated(_ surface: UnsafeMutablePointer<wlr_surface>) {
        guard let resource = surface.pointee.resource, let client = wl_resource_get_client(resource),
              let record = clients[client] else { return }
        record.surfaces += 1
        let key = UnsafeMutableRawPointer(surface)
        // `record` strongly: libwayland destroys a client's surfaces after the client itself.
        let gone = Listener { [unowned self, record] _ in
            record.surfaces -= 1
            surfaceListeners[key]?.detach()
            surfaceListeners[key] = nil
        }
        gone.attach(to: &surface.pointee.events.destroy)
        surfaceListeners[key] = gone
        if record.surfaces > settings.maxSurfacesPerClient {
            drop(record, resource: resource, "it made more than [wayland] max_surfaces_per_client (\(settings.maxSurfacesPerClient)) surfaces")
        }
    }

    /// Marks the client to go, with a log line saying why: `wl_display.error` no_memory on
    /// `resource` (libwayland destroys the client once its request returns).
    func drop(_ record: WaylandClient, resource: UnsafeMutablePointer<wl_resource>, _ reason: String) {
        guard record.dropReason == nil else { return }
        record.dropReason = reason
        wl_resource_post_no_memory(resource)
    }

    /// A new xdg surface: toplevels are shown (kiosk mode); popups wait for a later step.
    func xdgSurfaceCreated(_ xdg: UnsafeMutablePointer<wlr_xdg_surface>) {
        guard xdg.pointee.role == WLR_XDG_SURFACE_ROLE_TOPLEVEL,
              let resource = xdg.pointee.resource, let client = wl_resource_get_client(resource),
              let record = clients[client] else { return }
        nextSurfaceID &+= 1
        if nextSurfaceID == 0 { nextSurfaceID = 1 }
        let top = Toplevel(xdgSurface: xdg, app: AppSurface(id: nextSurfaceID, pid: record.pid), owner: record)
        let key = UnsafeMutableRawPointer(xdg)
        toplevels[key] = top
        top.map = Listener { [unowned self, unowned top] _ in mapped(top) }
        top.map.attach(to: &xdg.pointee.events.map)
        top.unmap = Listener { [unowned self, unowned top] _ in unmapped(top) }
        top.unmap.attach(to: &xdg.pointee.events.unmap)
        top.destroy = Listener { [unowned self, unowned top] _ in
            unmapped(top)
            top.detachAll()
            toplevels[key] = nil
        }
        top.destroy.attach(to: &xdg.pointee.events.destroy)
        top.commit = Listener { [unowned self, unowned top] _ in committed(top) }
        top.commit.attach(to: &top.surface.pointee.events.commit)
        top.setTitle = Listener { [unowned self, unowned top] _ in
            if top.readNames(), top.isMapped { delegate?.appSurfaceChanged(top.app, damage: nil, resized: false) }
        }
        top.setTitle.attach(to: &xdg.pointee.toplevel.pointee.events.set_title)
        // Kiosk: the desktop's size, activated (the first configure goes at its first commit).
        _ = wlr_xdg_toplevel_set_size(xdg, UInt32(desktopSize.width), UInt32(desktopSize.height))
        _ = wlr_xdg_toplevel_set_activated(xdg, true)
        logger.info("wayland: toplevel \(top.app.id) (pid \(record.pid)) configured to \(desktopSize.width) × \(desktopSize.height)")
    }

    private func mapped(_ top: Toplevel) {
        guard !top.isMapped else { return }
        _ = top.readNames()
        top.markMapped(true)
        mapSerial &+= 1
        top.mappedSerial = mapSerial
        // The pixels of the commit that mapped it were taken by its commit listener, which
        // wlroots calls before map.
        if top.app.pixels == nil { _ = top.copyCommittedPixels(maxPixels: settings.maxBufferPixels) }
        logger.info("wayland: toplevel \(top.app.id) '\(top.app.appID)' \"\(top.app.title)\" mapped, \(top.app.width) × \(top.app.height)")
        refocusKeyboard()
        delegate?.appSurfaceAppeared(top.app)
    }

    private func unmapped(_ top: Toplevel) {
        guard top.isMapped else { return }
        top.markMapped(false)
        top.frameState = .idle
        if keyboardFocus == top.surface { keyboardFocus = nil }
        refocusKeyboard()
        delegate?.appSurfaceGone(top.app)
    }

    private func committed(_ top: Toplevel) {
        switch top.copyCommittedPixels(maxPixels: settings.maxBufferPixels) {
        case .none:
            // Nothing new to show: the callback still waits for a frame, which is asked for.
            if top.isMapped {
                top.frameState = .committed
                delegate?.appSurfaceWantsFrame()
            }
            return
        case .refused(let why):
            if let resource = top.surface.pointee.resource { drop(top.owner, resource: resource, why) }
            return
        case let .damaged(rect, resized):
            if top.isMapped { delegate?.appSurfaceChanged(top.app, damage: rect, resized: resized) }
        }
        if top.isMapped { top.frameState = .committed }
    }

    /// A frame started: commits so far are in it.
    public func frameStarted() {
        for top in toplevels.values where top.frameState == .committed { top.frameState = .inFrame }
    }

    /// The frame that started last is on screen: its surfaces' frame callbacks are answered
    /// (`wl_surface.frame` done, with the time in milliseconds of CLOCK_MONOTONIC).
    public func framePresented() {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        var sent = false
        for top in toplevels.values where top.frameState == .inFrame {
            top.frameState = .idle
            wlr_surface_send_frame_done(top.surface, &now)
            sent = true
        }
        if sent { flush() }
    }
}
