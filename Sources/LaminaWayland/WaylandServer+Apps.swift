#if canImport(Glibc)
import Glibc
#endif
import CWlroots
import LaminaCore
import LaminaCompositor

// Managed apps: while a Lamina client manages apps, windows are sized by the layers that show
// them (`configure`), get input that laminad's hit testing found on those layers, in the
// window's points (`handleAppInput`), and the keyboard when the compositor gives it.
extension WaylandServer {
    /// Turns managed mode on or off. Back in kiosk mode, windows fill the desktop again.
    public func setManaged(_ managed: Bool) {
        guard managed != isManaged else { return }
        isManaged = managed
        managedFocus = nil
        touchOrigins = [:]
        if !managed {
            for top in toplevels.values {
                _ = wlr_xdg_toplevel_set_size(top.xdgSurface, UInt32(desktopSize.width), UInt32(desktopSize.height))
            }
        }
        wlr_seat_pointer_notify_clear_focus(seat)
        refocusKeyboard()
        flush()
        logger.info("wayland: \(managed ? "a Lamina client manages apps" : "kiosk mode (no Lamina client manages apps)")")
    }

    private func toplevel(_ app: UInt32) -> Toplevel? {
        toplevels.values.first { $0.app.id == app }
    }

    /// Configures window `app` to `width` × `height` points (a layer's bounds showing it).
    public func configure(app: UInt32, width: Int, height: Int) {
        guard isManaged, let top = toplevel(app) else { return }
        // Never a size whose buffer the app would be dropped for (`max_buffer_pixels`, at
        // scale 1): a bigger layer gets the largest window of its shape that fits, stretched.
        var fw = Double(max(1, min(width, 32768))), fh = Double(max(1, min(height, 32768)))
        if fw * fh > Double(settings.maxBufferPixels) {
            let k = (Double(settings.maxBufferPixels) / (fw * fh)).squareRoot()
            fw = max(1, (fw * k).rounded(.down))
            fh = max(1, (fh * k).rounded(.down))
        }
        let w = UInt32(fw), h = UInt32(fh)
        _ = wlr_xdg_toplevel_set_size(top.xdgSurface, w, h)
        logger.debug("wayland: toplevel \(app) configured to \(w) × \(h) (its layer's bounds)")
        flush()
    }

    /// Asks window `app` to close (`xdg_toplevel.close`).
    public func close(app: UInt32) {
        guard let top = toplevel(app) else { return }
        wlr_xdg_toplevel_send_close(top.xdgSurface)
        flush()
    }

    /// An input event laminad routed to the layer showing window `input.app`, in the window's
    /// points, stamped `time` (laminad's clock, seconds); enter and leave follow the pointer from
    /// layer to layer, and focus events move the keyboard.
    public func handleAppInput(_ input: AppInput, at time: Double) {
        guard isManaged, let top = toplevel(input.app), top.isMapped else { return }
        let event: SeatEvent
        switch input.kind {
        case .touchDown: event = .touchDown(input.id, input.location)
        case .touchMove: event = .touchMotion(input.id, input.location)
        case .touchUp: event = .touchUp(input.id)
        case .touchCancel: event = .touchCancel
        case .pointerEnter, .pointerMove: event = .pointerMotion(input.location)
        case .pointerLeave: event = .pointerLeave
        case .buttonPress, .buttonRelease: event = .button(UInt32(bitPattern: input.id), input.kind == .buttonPress)
        case .pointerCancel: event = .button(UInt32(bitPattern: input.id), false)
        case .scroll: event = .axis(input.delta.x, input.delta.y)
        case .keyPress, .keyRelease:
            event = .key(UInt32(bitPattern: input.id), input.kind == .keyPress)
        case .focusIn, .focusOut:
            managedFocus = input.kind == .focusIn ? input.app : (managedFocus == input.app ? nil : managedFocus)
            refocusKeyboard()
            flush()
            return
        }
        deliver(event, to: top, at: time)
        flush()
    }
}
