import LaminaInput
import Testing

/// The keymap through xkbcommon and xkb-data: no device needed.
@Suite("keyboard (xkbcommon)")
struct KeyboardTests {
    @Test func keysymNamesFindTheirEvdevCodes() throws {
        let keyboard = try Keyboard()
        #expect(keyboard.keycode(forKeysymName: "a") == 30)
        #expect(keyboard.keycode(forKeysymName: "Return") == 28)
        #expect(keyboard.keycode(forKeysymName: "space") == 57)
        #expect(keyboard.keycode(forKeysymName: "BackSpace") == 14)
        #expect(keyboard.keycode(forKeysymName: "Escape") == 1)
        // Case does not matter where the name is unambiguous.
        #expect(keyboard.keycode(forKeysymName: "return") == 28)
        #expect(keyboard.keycode(forKeysymName: "SPACE") == 57)
        #expect(keyboard.keycode(forKeysymName: "no-such-key") == nil)
        // A keysym that is on no key's first level of the first layout.
        #expect(keyboard.keycode(forKeysymName: "eacute") == nil)
    }

    @Test func shiftTypesCapitals() throws {
        let keyboard = try Keyboard()
        let plain = keyboard.update(code: 30, pressed: true)
        #expect(plain.keysym == 0x61 && plain.name == "a" && plain.text == "a")
        #expect(keyboard.update(code: 30, pressed: false).text == "", "a release types nothing")
        _ = keyboard.update(code: 42, pressed: true)  // KEY_LEFTSHIFT
        let shifted = keyboard.update(code: 30, pressed: true)
        #expect(shifted.keysym == 0x41 && shifted.name == "A" && shifted.text == "A")
        _ = keyboard.update(code: 30, pressed: false)
        _ = keyboard.update(code: 42, pressed: false)
        #expect(keyboard.update(code: 30, pressed: true).text == "a", "Shift released")
        let enter = keyboard.update(code: 28, pressed: true)
        #expect(enter.name == "Return" && enter.text == "\r")
    }

    @Test func resetForgetsModifiers() throws {
        let keyboard = try Keyboard()
        _ = keyboard.update(code: 42, pressed: true)
        keyboard.resetState()
        #expect(keyboard.update(code: 30, pressed: true).text == "a")
    }

    @Test func otherLayoutsAndVariants() throws {
        let german = try Keyboard(names: KeymapNames(layout: "de"))
        #expect(german.update(code: 21, pressed: true).text == "z", "KEY_Y types z on a German keyboard")
        #expect(german.keycode(forKeysymName: "z") == 21)
        let dvorak = try Keyboard(names: KeymapNames(layout: "us", variant: "dvorak"))
        #expect(dvorak.update(code: 16, pressed: true).text == "'", "KEY_Q is the apostrophe on Dvorak")
    }

    @Test func aBadLayoutIsAClearError() {
        #expect {
            _ = try Keyboard(names: KeymapNames(layout: "zz-nonexistent"))
        } throws: { error in
            "\(error)".contains("no keymap for layout 'zz-nonexistent'")
        }
        #expect(throws: KeymapError.self) { _ = try Keyboard(names: KeymapNames(layout: "us", variant: "no-such-variant")) }
    }

    @Test func outOfRangeCodesTranslateToNothing() throws {
        let keyboard = try Keyboard()
        let k = keyboard.update(code: UInt32.max, pressed: true)
        #expect(k.keysym == 0 && k.text == "")
        #expect(keyboard.update(code: 0x2ff, pressed: true).text == "")
    }
}
