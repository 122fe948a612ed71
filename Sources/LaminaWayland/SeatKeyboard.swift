#if canImport(Glibc)
import Glibc
#endif
import CWlroots

/// The seat's keyboard as Wayland apps see it: a `wlr_keyboard` with laminad's keymap (the one
/// `[input] keymap` compiles, so apps read keys as laminad does), fed by laminad's key events,
/// whose keymap, modifiers and repeat rate wlroots' seat sends to the focused app.
///
/// wlroots 0.15's seat takes a keyboard as an input device (`wlr_input_device`, type keyboard):
/// both are allocated here with calloc, and `wlr_input_device_destroy` frees them (the
/// keyboard through `impl.destroy`, the device with free, having no impl).
final class SeatKeyboard {
    let keyboard: UnsafeMutablePointer<wlr_keyboard>
    let device: UnsafeMutablePointer<wlr_input_device>

    /// Written once, read by wlroots only.
    nonisolated(unsafe) private static let impl: UnsafeMutablePointer<wlr_keyboard_impl> = {
        let impl = UnsafeMutablePointer<wlr_keyboard_impl>.allocate(capacity: 1)
        impl.initialize(to: wlr_keyboard_impl(destroy: { keyboard in free(keyboard) }, led_update: nil))
        return impl
    }()

    /// A keyboard with `keymap` (an `xkb_keymap *`, referenced, not taken), whose held keys
    /// repeat `repeatRate` times a second after `repeatDelay` ms in apps (rate 0: never; both
    /// clamped to what wl_keyboard.repeat_info carries); nil when wlroots cannot take the keymap.
    init?(keymap: OpaquePointer, repeatRate: Int, repeatDelay: Int) {
        guard let raw = calloc(1, MemoryLayout<wlr_keyboard>.stride) else { return nil }
        guard let rawDevice = calloc(1, MemoryLayout<wlr_input_device>.stride) else {
            free(raw)
            return nil
        }
        keyboard = raw.bindMemory(to: wlr_keyboard.self, capacity: 1)
        wlr_keyboard_init(keyboard, Self.impl)
        device = rawDevice.bindMemory(to: wlr_input_device.self, capacity: 1)
        wlr_input_device_init(device, WLR_INPUT_DEVICE_KEYBOARD, nil, "lamina-keyboard", 0, 0)
        device.pointee.keyboard = keyboard
        guard wlr_keyboard_set_keymap(keyboard, keymap) else {
            wlr_input_device_destroy(device)
            return nil
        }
        wlr_keyboard_set_repeat_info(keyboard, Int32(clamping: max(0, repeatRate)), Int32(clamping: max(0, repeatDelay)))
    }

    /// Updates the keyboard's state with a press or release of evdev key `code`; whether the
    /// modifiers changed with it.
    func update(code: UInt32, pressed: Bool, time: UInt32) -> Bool {
        let before = keyboard.pointee.modifiers
        var event = wlr_event_keyboard_key(time_msec: time, keycode: code, update_state: true,
                                           state: pressed ? WL_KEYBOARD_KEY_STATE_PRESSED : WL_KEYBOARD_KEY_STATE_RELEASED)
        wlr_keyboard_notify_key(keyboard, &event)
        let after = keyboard.pointee.modifiers
        return before.depressed != after.depressed || before.latched != after.latched
            || before.locked != after.locked || before.group != after.group
    }

    func destroy() { wlr_input_device_destroy(device) }
}
