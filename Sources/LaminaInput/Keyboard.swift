#if canImport(Glibc)
import Glibc
#endif
import CXkb

/// The names a keymap is compiled from (XKB's RMLVO: rules, model, layout, variant, options),
/// as in `setxkbmap` or /etc/default/keyboard. Layouts and variants may be lists ("us,de").
public struct KeymapNames: Sendable, Equatable, CustomStringConvertible {
    public var rules = "evdev"
    public var model = "pc105"
    public var layout = "us"
    public var variant = ""
    public var options = ""

    public init(rules: String = "evdev", model: String = "pc105", layout: String = "us", variant: String = "", options: String = "") {
        self.rules = rules
        self.model = model
        self.layout = layout
        self.variant = variant
        self.options = options
    }

    public var description: String {
        "rules '\(rules)', model '\(model)', layout '\(layout)'" + (variant.isEmpty ? "" : ", variant '\(variant)'")
            + (options.isEmpty ? "" : ", options '\(options)'")
    }
}

/// A keymap that xkbcommon could not compile from the names given.
public struct KeymapError: Error, Equatable, CustomStringConvertible {
    public var names: KeymapNames
    public var reason: String
    public var description: String {
        "no keymap for layout '\(names.layout)'\(names.variant.isEmpty ? "" : " variant '\(names.variant)'") (\(names)): \(reason); the layouts are the file names under /usr/share/X11/xkb/symbols (xkb-data)"
    }
}

/// A keyboard's keymap and state (xkbcommon): turns evdev key codes into keysyms and text,
/// following the modifiers pressed so far (Shift+a types "A").
///
/// Needs only xkb-data, no device, so injected keys are translated the same way on headless.
public final class Keyboard {
    /// The names the keymap was compiled from.
    public let names: KeymapNames
    private let context: OpaquePointer
    private let keymap: OpaquePointer
    private var state: OpaquePointer

    /// Compiles the keymap for `names`, or throws `KeymapError` naming the layout.
    /// The corresponding C function is `xkb_keymap_new_from_names`.
    public init(names: KeymapNames = KeymapNames()) throws(KeymapError) {
        self.names = names
        guard let context = xkb_context_new(XKB_CONTEXT_NO_FLAGS) else {
            throw KeymapError(names: names, reason: "xkb_context_new failed")
        }
        // xkbcommon would print its own diagnostics to stderr; the error thrown says it instead.
        xkb_context_set_log_level(context, XKB_LOG_LEVEL_CRITICAL)
        let compiled: OpaquePointer? = names.rules.withCString { rules in
            names.model.withCString { model in
                names.layout.withCString { layout in
                    names.variant.withCString { variant in
                        names.options.withCString { options in
                            var rmlvo = xkb_rule_names(rules: rules, model: model, layout: layout, variant: variant, options: options)
                            return xkb_keymap_new_from_names(context, &rmlvo, XKB_KEYMAP_COMPILE_NO_FLAGS)
                        }
                    }
                }
            }
        }
        guard let keymap = compiled else {
            xkb_context_unref(context)
            throw KeymapError(names: names, reason: "xkbcommon cannot compile it")
        }
        guard let state = xkb_state_new(keymap) else {
            xkb_keymap_unref(keymap)
            xkb_context_unref(context)
            throw KeymapError(names: names, reason: "xkb_state_new failed")
        }
        self.context = context
        self.keymap = keymap
        self.state = state
    }

    /// The compiled keymap (an `xkb_keymap *`), for whoever shares it without compiling it
    /// again: laminad's Wayland seat gives it to apps. Lives as long as this keyboard.
    public var compiledKeymap: OpaquePointer { keymap }

    deinit {
        xkb_state_unref(state)
        xkb_keymap_unref(keymap)
        xkb_context_unref(context)
    }

    /// The evdev code (XKB keycode − 8) of the key whose first level in the first layout is the
    /// keysym named `name` ("a", "Return", "space", "BackSpace"; case does not matter where the
    /// name is unambiguous), or nil when no key has it there.
    /// The corresponding C functions are `xkb_keysym_from_name` and `xkb_keymap_key_get_syms_by_level`.
    public func keycode(forKeysymName name: String) -> UInt32? {
        var sym = xkb_keysym_from_name(name, XKB_KEYSYM_NO_FLAGS)
        if sym == 0 { sym = xkb_keysym_from_name(name, XKB_KEYSYM_CASE_INSENSITIVE) }
        guard sym != 0 else { return nil }
        let low = xkb_keymap_min_keycode(keymap), high = xkb_keymap_max_keycode(keymap)
        guard low >= 8, low <= high else { return nil }
        for keycode in low...high {
            var syms: UnsafePointer<xkb_keysym_t>?
            let n = xkb_keymap_key_get_syms_by_level(keymap, keycode, 0, 0, &syms)
            guard n > 0, let syms else { continue }
            for i in 0..<Int(n) where syms[i] == sym { return keycode - 8 }
        }
        return nil
    }

    /// Translates a press or release of the key with evdev code `code` and updates the modifier
    /// state. The keysym and its name are the key's at the state before this event (Shift held:
    /// "A"); `text` is the UTF-8 the press types, empty for a release and for keys that type none.
    /// The corresponding C functions are `xkb_state_key_get_one_sym`, `xkb_state_key_get_utf8`
    /// and `xkb_state_update_key`.
    public func update(code: UInt32, pressed: Bool) -> (keysym: UInt32, name: String, text: String) {
        guard code <= UInt32.max - 8 else { return (0, "NoSymbol", "") }
        let keycode = code + 8
        let sym = xkb_state_key_get_one_sym(state, keycode)
        var text = ""
        if pressed {
            var buffer = [CChar](repeating: 0, count: 64)
            let n = xkb_state_key_get_utf8(state, keycode, &buffer, buffer.count)
            if n > 0, Int(n) < buffer.count { text = String(decoding: buffer[0..<Int(n)].map { UInt8(bitPattern: $0) }, as: UTF8.self) }
        }
        _ = xkb_state_update_key(state, keycode, pressed ? XKB_KEY_DOWN : XKB_KEY_UP)
        return (sym, Self.name(of: sym), text)
    }

    /// Forgets every pressed key and modifier (after a VT switch, when releases were not seen).
    /// The corresponding C function is `xkb_state_new`.
    public func resetState() {
        guard let fresh = xkb_state_new(keymap) else { return }
        xkb_state_unref(state)
        state = fresh
    }

    /// The keysym's name ("a", "Return"), or "NoSymbol".
    /// The corresponding C function is `xkb_keysym_get_name`.
    public static func name(of keysym: UInt32) -> String {
        var buffer = [CChar](repeating: 0, count: 64)
        let n = xkb_keysym_get_name(keysym, &buffer, buffer.count)
        guard n > 0, Int(n) < buffer.count else { return "NoSymbol" }
        return String(decoding: buffer[0..<Int(n)].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
