#if canImport(Glibc)
import Glibc
#endif
import CWlroots
import LaminaCore
import LaminaCompositor

// Kiosk input: with an app window shown, laminad's pointer and touch events go straight to the
// newest one (as under cage), through wlroots' seat (its focus, serials and grabs). The window
// fills the desktop, so a desktop point maps to the surface by the ratio of their sizes.
extension WaylandServer {
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
        func local(_ p: Point) -> (Double, Double) {
            let w = Double(top.surface.pointee.current.width), h = Double(top.surface.pointee.current.height)
            let dw = Double(max(1, desktopSize.width)), dh = Double(max(1, desktopSize.height))
            return (p.x * w / dw, p.y * h / dh)
        }
        switch action {
        case let .touchDown(id, at):
            let (x, y) = local(at)
            _ = wlr_seat_touch_notify_down(seat, top.surface, time, id, x, y)
            wlr_seat_touch_notify_frame(seat)
        case let .touchMotion(id, to):
            let (x, y) = local(to)
            wlr_seat_touch_notify_motion(seat, time, id, x, y)
            wlr_seat_touch_notify_frame(seat)
        case let .touchUp(id):
            wlr_seat_touch_notify_up(seat, time, id)
            wlr_seat_touch_notify_frame(seat)
        case .touchCancel:
            wlr_seat_touch_notify_cancel(seat, top.surface)
        case let .pointerMotion(to):
            let (x, y) = local(to)
            if seat.pointee.pointer_state.focused_surface != top.surface {
                wlr_seat_pointer_notify_enter(seat, top.surface, x, y)
            }
            wlr_seat_pointer_notify_motion(seat, time, x, y)
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
        default:
            // Keys wait for a wlr_keyboard with laminad's keymap (a later step): laminad keeps them.
            return false
        }
        flush()
        return true
    }
}
