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
    /// `[input] keymap`, referenced): apps get the keymap, keys and modifiers from here on.
    public func useKeymap(_ keymap: OpaquePointer) {
        guard keyboard == nil else { return }
        guard let made = SeatKeyboard(keymap: keymap) else {
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
        let target = topToplevel?.surface
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

    /// Hands `action` to the top app window; false when none is shown (laminad routes it).
    public func handleKioskInput(_ action: InputAction) -> Bool {
        guard let top = topToplevel else { return false }
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let time = UInt32(truncatingIfNeeded: Int(now.tv_sec) * 1000 + Int(now.tv_nsec) / 1_000_000)
        // The window is shown at its own size from the desktop's top left (WaylandKiosk): the
        // surface under a desktop point (a popup, a subsurface, or the window's own), and the
        // point in it. Outside them all, the window's own surface.
        func under(_ p: Point) -> (surface: UnsafeMutablePointer<wlr_surface>, x: Double, y: Double) {
            let wx = p.x + Double(top.geometryOrigin.x), wy = p.y + Double(top.geometryOrigin.y)
            var sx = 0.0, sy = 0.0
            if let hit = wlr_xdg_surface_surface_at(top.xdgSurface, wx, wy, &sx, &sy) { return (hit, sx, sy) }
            return (top.surface, wx, wy)
        }
        switch action {
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
        case let .pointerButton(code, pressed):
            _ = wlr_seat_pointer_notify_button(seat, time, code, pressed ? WLR_BUTTON_PRESSED : WLR_BUTTON_RELEASED)
            wlr_seat_pointer_notify_frame(seat)
        case let .pointerAxis(horizontal, vertical):
            if vertical != 0 {
                wlr_seat_pointer_notify_axis(seat, time, WLR_AXIS_ORIENTATION_VERTICAL, vertical, 0, WLR_AXIS_SOURCE_WHEEL)
            }
            if horizontal != 0 {
                wlr_seat_pointer_notify_axis(seat, time, WLR_AXIS_ORIENTATION_HORIZONTAL, horizontal, 0, WLR_AXIS_SOURCE_WHEEL)
            }
            wlr_seat_pointer_notify_frame(seat)
        case let .key(code, pressed, _, _, _):
            guard let keyboard else { return false }
            refocusKeyboard()
            let modifiersChanged = keyboard.update(code: code, pressed: pressed, time: time)
            wlr_seat_keyboard_notify_key(seat, time, code, UInt32((pressed ? WL_KEYBOARD_KEY_STATE_PRESSED : WL_KEYBOARD_KEY_STATE_RELEASED).rawValue))
            if modifiersChanged { wlr_seat_keyboard_notify_modifiers(seat, &keyboard.keyboard.pointee.modifiers) }
        default:
            return false
        }
        flush()
        return true
    }
}
