#if canImport(Glibc)
import Glibc
#endif
import CWlroots
import LaminaCore

// Surfaces: the per-client surface bound, kiosk toplevels (configured to the desktop) with their
// subsurfaces and popups (each a part, its pixels copied by damage), and frame callbacks after
// the frame that shows them.
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
            surfaceDestroyed(key)
        }
        gone.attach(to: &surface.pointee.events.destroy)
        surfaceListeners[key] = gone
        if record.surfaces > settings.maxSurfacesPerClient {
            drop(record, resource: resource, "it made more than [wayland] max_surfaces_per_client (\(settings.maxSurfacesPerClient)) surfaces")
        }
    }

    /// A surface shown as part of a window (a subsurface, a popup) is going: its part goes.
    private func surfaceDestroyed(_ key: UnsafeMutableRawPointer) {
        guard let top = toplevels.values.first(where: { $0.views[key] != nil && UnsafeMutableRawPointer($0.surface) != key }) else { return }
        top.forget(key)
        if top.isMapped { delegate?.appSurfaceChanged(top.app, damage: [:]) }
    }

    /// Marks the client to go, with a log line saying why: `wl_display.error` no_memory on
    /// `resource` (libwayland destroys the client once its request returns).
    func drop(_ record: WaylandClient, resource: UnsafeMutablePointer<wl_resource>, _ reason: String) {
        guard record.dropReason == nil else { return }
        record.dropReason = reason
        wl_resource_post_no_memory(resource)
    }

    /// laminad's next number for a window or a part.
    private func nextID() -> UInt32 {
        nextSurfaceID &+= 1
        if nextSurfaceID == 0 { nextSurfaceID = 1 }
        return nextSurfaceID
    }

    /// A new xdg surface: toplevels are shown (kiosk mode), popups as parts of their window.
    func xdgSurfaceCreated(_ xdg: UnsafeMutablePointer<wlr_xdg_surface>) {
        guard let resource = xdg.pointee.resource, let client = wl_resource_get_client(resource),
              let record = clients[client] else { return }
        if xdg.pointee.role == WLR_XDG_SURFACE_ROLE_POPUP {
            popupCreated(xdg)
            return
        }
        guard xdg.pointee.role == WLR_XDG_SURFACE_ROLE_TOPLEVEL else { return }
        let top = Toplevel(xdgSurface: xdg, app: AppSurface(id: nextID(), pid: record.pid), owner: record,
                           rootPart: AppSurfacePart(id: nextID()))
        attachCommit(top.root, of: top)
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
        top.setTitle = Listener { [unowned self, unowned top] _ in
            if top.readNames(), top.isMapped { delegate?.appSurfaceChanged(top.app, damage: [:]) }
        }
        top.setTitle.attach(to: &xdg.pointee.toplevel.pointee.events.set_title)
        // Kiosk: the desktop's size; managed: the app's own until a layer shows it (`configure`).
        // Activated either way (the first configure goes at its first commit).
        if isManaged {
            _ = wlr_xdg_toplevel_set_size(xdg, 0, 0)
        } else {
            _ = wlr_xdg_toplevel_set_size(xdg, UInt32(desktopSize.width), UInt32(desktopSize.height))
        }
        _ = wlr_xdg_toplevel_set_activated(xdg, true)
        logger.info("wayland: toplevel \(top.app.id) (pid \(record.pid)) made, \(isManaged ? "sized by the app until a layer shows it" : "configured to \(desktopSize.width) × \(desktopSize.height)")")
    }

    /// A popup (a menu, a tooltip): kept inside the desktop (managed: the window) by its positioner's rules
    /// (`wlr_xdg_popup_unconstrain_from_box`: flipped or slid as the positioner allows), and
    /// shown as a part of its window from when it maps until it unmaps.
    private func popupCreated(_ xdg: UnsafeMutablePointer<wlr_xdg_surface>) {
        guard let popup = xdg.pointee.popup, let parent = popup.pointee.parent,
              let top = toplevels.values.first(where: { $0.views[UnsafeMutableRawPointer(parent)] != nil }) else { return }
        // Kiosk: kept on the desktop; managed: inside the window itself, so a menu stays within
        // the layer showing it (its bounds may clip, and it may stand anywhere on the display).
        let area = isManaged && top.app.pointWidth > 0 && top.app.pointHeight > 0
            ? (width: top.app.pointWidth, height: top.app.pointHeight) : desktopSize
        var box = wlr_box(x: Int32(top.geometryOrigin.x), y: Int32(top.geometryOrigin.y),
                          width: Int32(clamping: area.width), height: Int32(clamping: area.height))
        let before = popup.pointee.geometry
        wlr_xdg_popup_unconstrain_from_box(popup, &box)
        logger.debug("wayland: popup of toplevel \(top.app.id): \(before.x),\(before.y) \(before.width)x\(before.height) → \(popup.pointee.geometry.x),\(popup.pointee.geometry.y) within \(box.x),\(box.y) \(box.width)x\(box.height)")
        let key = UnsafeMutableRawPointer(xdg)
        let changed = Listener { [unowned self, unowned top] _ in
            guard top.isMapped else { return }
            var damage: [UInt32: PixelRect] = [:]
            syncTree(top, damage: &damage)
            delegate?.appSurfaceChanged(top.app, damage: damage)
        }
        let unmap = Listener { [unowned self, unowned top] _ in
            guard top.isMapped else { return }
            var damage: [UInt32: PixelRect] = [:]
            syncTree(top, damage: &damage)
            delegate?.appSurfaceChanged(top.app, damage: damage)
        }
        let destroy = Listener { [unowned self] _ in
            popupListeners[key]?.forEach { $0.detach() }
            popupListeners[key] = nil
        }
        changed.attach(to: &xdg.pointee.events.map)
        unmap.attach(to: &xdg.pointee.events.unmap)
        destroy.attach(to: &xdg.pointee.events.destroy)
        popupListeners[key] = [changed, unmap, destroy]
    }

    private func attachCommit(_ view: SurfaceView, of top: Toplevel) {
        let listener = Listener { [unowned self, unowned top, unowned view] _ in committed(view, of: top) }
        listener.attach(to: &view.surface.pointee.events.commit)
        view.commit = listener
    }

    /// Brings `top`'s parts in line with its surface tree (new subsurfaces and popups, gone
    /// ones, places, stacking), dropping its client when a new surface's buffer is refused.
    private func syncTree(_ top: Toplevel, damage: inout [UInt32: PixelRect]) {
        let refusal = top.sync(limit: settings.maxSurfacesPerClient, maxPixels: settings.maxBufferPixels, damage: &damage) { surface in
            let view = SurfaceView(surface: surface, part: AppSurfacePart(id: nextID()))
            attachCommit(view, of: top)
            return view
        }
        if let refusal, let resource = top.surface.pointee.resource { drop(top.owner, resource: resource, refusal) }
    }

    private func mapped(_ top: Toplevel) {
        guard !top.isMapped else { return }
        _ = top.readNames()
        top.markMapped(true)
        mapSerial &+= 1
        top.mappedSerial = mapSerial
        // The pixels of the commit that mapped it are taken here when its commit listener has
        // not run yet (wlroots maps from the role's commit, before the surface's commit signal).
        if top.root.part.shownPicture == nil { _ = top.root.copyCommittedPixels(maxPixels: settings.maxBufferPixels, whole: true) }
        var damage: [UInt32: PixelRect] = [:]
        syncTree(top, damage: &damage)
        logger.info("wayland: toplevel \(top.app.id) '\(top.app.appID)' \"\(top.app.title)\" mapped, \(top.app.width) × \(top.app.height)")
        refocusKeyboard()
        delegate?.appSurfaceAppeared(top.app)
    }

    private func unmapped(_ top: Toplevel) {
        guard top.isMapped else { return }
        top.markMapped(false)
        for view in top.views.values { view.frameState = .idle }
        if keyboardFocus == top.surface { keyboardFocus = nil }
        if managedFocus == top.app.id { managedFocus = nil }
        refocusKeyboard()
        top.app.ending = !top.owner.isGoing ? .closed : top.owner.dropReason != nil ? .dropped : .exited
        delegate?.appSurfaceGone(top.app)
    }

    private func committed(_ view: SurfaceView, of top: Toplevel) {
        var damage: [UInt32: PixelRect] = [:]
        switch view.copyCommittedPixels(maxPixels: settings.maxBufferPixels) {
        case .none:
            break
        case .refused(let why):
            if let resource = view.surface.pointee.resource { drop(top.owner, resource: resource, why) }
            return
        case let .damaged(rect, _):
            damage[view.part.id] = rect
        }
        guard top.isMapped else { return }
        view.frameState = .committed
        // A commit can also place, map or restack subsurfaces, so the tree is walked again.
        syncTree(top, damage: &damage)
        delegate?.appSurfaceChanged(top.app, damage: damage)
        // Nothing new to show: the callback still waits for a frame, which is asked for.
        if damage.isEmpty { delegate?.appSurfaceWantsFrame() }
    }

    /// A frame started: commits so far are in it (and their `wp_presentation` feedback with
    /// them: an older one not yet presented is discarded by wlroots).
    public func frameStarted() {
        for top in toplevels.values {
            for view in top.views.values where view.frameState == .committed {
                view.frameState = .inFrame
                if let old = view.feedback { wlr_presentation_feedback_destroy(old) }
                view.feedback = wlr_presentation_surface_sampled(presentation, view.surface)
            }
        }
    }

    /// The frame that started last is on screen at `time` (laminad's clock, seconds: CLOCK_MONOTONIC,
    /// wp_presentation's clock, or the virtual clock under `--clock virtual`, so that apps see
    /// the same times on every run): its surfaces' frame callbacks are answered (`wl_surface.frame`
    /// done, with the time in milliseconds) and their `wp_presentation` feedback sent: the time,
    /// the refresh of the output described to apps, in nanoseconds (0 unknown), a sequence
    /// number, and where a page flip showed it (`presentsOnPageFlip`) the vsync, hardware-clock
    /// and hardware-completion flags. Nothing is computed while no app window exists.
    public func framePresented(at time: Double) {
        presentedSequence &+= 1
        guard !toplevels.isEmpty else { return }
        var now = Self.timespec(seconds: time)
        // Managed: a window no layer showed in the frame is hidden (throttled alike).
        let covered = isManaged
            ? Set(toplevels.values.filter { $0.isMapped && !windowsShown.contains($0.app.id) }.map(ObjectIdentifier.init))
            : coveredToplevels()
        coveredWindows = covered.count
        let described = outputs.outputs.values.first
        // wp_presentation_feedback.kind: vsync 0x1, hw_clock 0x2, hw_completion 0x4.
        let flags: UInt32 = presentsOnPageFlip ? 0x1 | 0x2 | 0x4 : 0
        let refresh = described?.shown.refresh ?? 0
        let refreshNanoseconds = refresh > 0 && refresh.isFinite ? UInt32(min(1e9, 1e9 / refresh)) : 0
        let output = described?.output
        var sent = false
        for top in toplevels.values {
            // A window hidden under an opaque one that covers the desktop is throttled: its
            // callbacks wait (its app stops drawing, as on any compositor) until it shows again.
            if covered.contains(ObjectIdentifier(top)) { continue }
            for view in top.views.values where view.frameState == .inFrame {
                view.frameState = .idle
                wlr_surface_send_frame_done(view.surface, &now)
                if let feedback = view.feedback {
                    var event = wlr_presentation_event(output: output, tv_sec: UInt64(now.tv_sec), tv_nsec: UInt32(now.tv_nsec),
                                                       refresh: refreshNanoseconds, seq: presentedSequence, flags: flags)
                    wlr_presentation_feedback_send_presented(feedback, &event)
                    wlr_presentation_feedback_destroy(feedback)
                    view.feedback = nil
                }
                sent = true
            }
        }
        if sent { flush() }
    }

    /// `seconds` as a timespec for wlroots, clamped to [0, 2^32) seconds (a time that is not a
    /// finite number counts as 0): Wayland's times are 32-bit milliseconds or split seconds.
    static func timespec(seconds: Double) -> Glibc.timespec {
        let s = seconds.isFinite ? min(max(seconds, 0), 4_294_967_295) : 0
        let whole = s.rounded(.down)
        return Glibc.timespec(tv_sec: Int(whole), tv_nsec: min(999_999_999, Int((s - whole) * 1e9)))
    }

    /// The mapped windows below a window that hides the whole desktop: the topmost whose own
    /// surface is opaque (XRGB) and, from the desktop's top left, covers it, with nothing of its
    /// drawn translucent over it mattering (parts only add on top).
    func coveredToplevels() -> Set<ObjectIdentifier> {
        let mapped = toplevels.values.filter(\.isMapped).sorted { $0.mappedSerial > $1.mappedSerial }
        guard let cover = mapped.firstIndex(where: { top in
            let part = top.root.part
            return part.isOpaque && part.x <= 0 && part.y <= 0
                && part.x + part.pointWidth >= desktopSize.width && part.y + part.pointHeight >= desktopSize.height
        }) else { return [] }
        return Set(mapped[(cover + 1)...].map(ObjectIdentifier.init))
    }
}
