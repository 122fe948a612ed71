#if canImport(Glibc)
import Glibc
#endif
import CWlroots
import LaminaCore
import LaminaCompositor

// Kiosk input: with an app window shown, laminad's pointer, touch and key events go straight to
// the newest one (as under cage), through wlroots' seat (its focus, serials and grabs). The window
// is shown at its own size from the desktop's top left, so a desktop point is the same point of
// the surface; keys go to it through the seat's keyboard, with laminad's keymap.
extension WaylandServer {
    /// Gives the seat a keyboard with `keymap` (an `xkb_keymap *` laminad compiled from
    /// `[input] keymap`, referenced): apps get the keymap, keys and modifiers from here on, and
    /// repeat a held key `repeatRate` times a second after `repeatDelay` milliseconds (rate 0:
    /// never).
    public func useKeymap(_ keymap: OpaquePointer, repeatRate: Int, repeatDelay: Int) {
        guard keyboard == nil else { return }
        guard let made = SeatKeyboard(keymap: keymap, repeatRate: repeatRate, repeatDelay: repeatDelay) else {
            logger.error("wayland: wlroots does not take laminad's keymap; apps get no keyboard")
            return
        }
        keyboard = made
        wlr_seat_set_keyboard(seat, made.device)
        wlr_seat_set_capabilities(seat, UInt32(WL_SEAT_CAPABILITY_POINTER.rawValue | WL_SEAT_CAPABILITY_TOUCH.rawValue
                                                   | WL_SEAT_CAPABILITY_KEYBOARD.rawValue))
    }

    /// Puts the keyboard focus on the top app window (or none): called when windows map or go,
    /// and before a key, so keys always reach the window input goes to.
    func refocusKeyboard() {
        guard let keyboard else { return }
        // Managed: the window the compositor gave the keyboard; kiosk: the top one.
        let target = isManaged ? managedFocus.flatMap { id in toplevels.values.first { $0.app.id == id && $0.isMapped } }?.surface
                               : topToplevel?.surface
        guard target != keyboardFocus || seat.pointee.keyboard_state.focused_surface != target else { return }
        keyboardFocus = target
        if let target {
            let kb = keyboard.keyboard
            withUnsafeMutablePointer(to: &kb.pointee.keycodes) { codes in
                codes.withMemoryRebound(to: UInt32.self, capacity: Int(WLR_KEYBOARD_KEYS_CAP)) { first in
                    wlr_seat_keyboard_notify_enter(seat, target, first, kb.pointee.num_keycodes, &kb.pointee.modifiers)
                }
            }
        } else {
            wlr_seat_keyboard_notify_clear_focus(seat)
        }
    }

    /// The toplevel on top: the one mapped last.
    var topToplevel: Toplevel? {
        toplevels.values.filter(\.isMapped).max { $0.mappedSerial < $1.mappedSerial }
    }

    /// Hands `action` to the top app window, stamped `time` (laminad's clock, seconds); false
    /// when none is shown, or a Lamina client manages apps (laminad routes it: `handleAppInput`).
    public func handleKioskInput(_ action: InputAction, at time: Double) -> Bool {
        guard !isManaged, let top = topToplevel else { return false }
        // The window is shown at its own size from the desktop's top left (WaylandKiosk): a
        // desktop point is the same point of the window.
        let event: SeatEvent
        switch action {
        case let .touchDown(id, at): event = .touchDown(id, at)
        case let .touchMotion(id, to): event = .touchMotion(id, to)
        case let .touchUp(id): event = .touchUp(id)
        case .touchCancel: event = .touchCancel
        case let .pointerMotion(to): event = .pointerMotion(to)
        case let .pointerButton(code, pressed): event = .button(code, pressed)
        case let .pointerAxis(horizontal, vertical): event = .axis(horizontal, vertical)
        case let .key(code, pressed, _, _, _):
            guard keyboard != nil else { return false }
            refocusKeyboard()
            event = .key(code, pressed)
        default:
            return false
        }
        deliver(event, to: top, at: time)
        flush()
        return true
    }

    /// What the seat tells a window's surfaces, in the window's points.
    enum SeatEvent {
        case touchDown(Int32, Point), touchMotion(Int32, Point), touchUp(Int32), touchCancel
        case pointerMotion(Point), pointerLeave, button(UInt32, Bool), axis(Double, Double)
        case key(UInt32, Bool)
    }

    /// Sends `event` through wlroots' seat (its focus, serials and grabs) to the surface of
    /// `top` under its point: a popup, a subsurface, or the window's own (outside them all).
    func deliver(_ event: SeatEvent, to top: Toplevel, at seconds: Double) {
        let now = Self.timespec(seconds: seconds)
        let time = UInt32(truncatingIfNeeded: Int(now.tv_sec) &* 1000 &+ Int(now.tv_nsec) / 1_000_000)
        func under(_ p: Point) -> (surface: UnsafeMutablePointer<wlr_surface>, x: Double, y: Double) {
            let wx = p.x + Double(top.geometryOrigin.x), wy = p.y + Double(top.geometryOrigin.y)
            var sx = 0.0, sy = 0.0
            if let hit = wlr_xdg_surface_surface_at(top.xdgSurface, wx, wy, &sx, &sy) { return (hit, sx, sy) }
            return (top.surface, wx, wy)
        }
        switch event {
        case let .touchDown(id, at):
            let hit = under(at)
            // A touch stays with the surface it went down on, in that surface's coordinates.
            touchOrigins[id] = (at.x - hit.x, at.y - hit.y)
            _ = wlr_seat_touch_notify_down(seat, hit.surface, time, id, hit.x, hit.y)
            wlr_seat_touch_notify_frame(seat)
        case let .touchMotion(id, to):
            let origin = touchOrigins[id] ?? (0, 0)
            wlr_seat_touch_notify_motion(seat, time, id, to.x - origin.0, to.y - origin.1)
            wlr_seat_touch_notify_frame(seat)
        case let .touchUp(id):
            touchOrigins[id] = nil
            wlr_seat_touch_notify_up(seat, time, id)
            wlr_seat_touch_notify_frame(seat)
        case .touchCancel:
            touchOrigins = [:]
            wlr_seat_touch_notify_cancel(seat, top.surface)
        case let .pointerMotion(to):
            let hit = under(to)
            if seat.pointee.pointer_state.focused_surface != hit.surface {
                wlr_seat_pointer_notify_enter(seat, hit.surface, hit.x, hit.y)
            }
            wlr_seat_pointer_notify_motion(seat, time, hit.x, hit.y)
            wlr_seat_pointer_notify_frame(seat)
        case .pointerLeave:
            wlr_seat_pointer_notify_clear_focus(seat)
            wlr_seat_pointer_notify_frame(seat)
        case let .button(code, pressed):
            _ = wlr_seat_pointer_notify_button(seat, time, code, pressed ? WLR_BUTTON_PRESSED : WLR_BUTTON_RELEASED)
            wlr_seat_pointer_notify_frame(seat)
        case let .axis(horizontal, vertical):
            if vertical != 0 {
                wlr_seat_pointer_notify_axis(seat, time, WLR_AXIS_ORIENTATION_VERTICAL, vertical, 0, WLR_AXIS_SOURCE_WHEEL)
            }
            if horizontal != 0 {
                wlr_seat_pointer_notify_axis(seat, time, WLR_AXIS_ORIENTATION_HORIZONTAL, horizontal, 0, WLR_AXIS_SOURCE_WHEEL)
            }
            wlr_seat_pointer_notify_frame(seat)
        case let .key(code, pressed):
            guard let keyboard else { return }
            let modifiersChanged = keyboard.update(code: code, pressed: pressed, time: time)
            wlr_seat_keyboard_notify_key(seat, time, code, UInt32((pressed ? WL_KEYBOARD_KEY_STATE_PRESSED : WL_KEYBOARD_KEY_STATE_RELEASED).rawValue))
            if modifiersChanged { wlr_seat_keyboard_notify_modifiers(seat, &keyboard.keyboard.pointee.modifiers) }
        }
    }
}
