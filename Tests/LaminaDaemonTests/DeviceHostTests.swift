@testable import LaminaDaemon
import LaminaCore
import LaminaInput
import LaminaCompositor
import Testing

/// The daemon's input host without devices (as on headless): key injection goes through the
/// same keymap as the devices.
@Suite("input host without devices")
struct DeviceHostTests {
    static func host(_ settings: InputSettings = InputSettings()) throws -> InputDeviceHost {
        try InputDeviceHost(settings: settings, logger: .init(label: "test"), outputs: { [] }, deliver: { _, _ in })
    }

    @Test func injectedKeysAreTranslatedByTheKeymap() throws {
        let host = try Self.host()
        #expect(host.keyAction(named: "a", pressed: true) == .key(code: 30, pressed: true, keysym: 0x61, name: "a", text: "a"))
        #expect(host.keyAction(named: "a", pressed: false) == .key(code: 30, pressed: false, keysym: 0x61, name: "a", text: ""))
        #expect(host.keyAction(named: "Shift_L", pressed: true) == .key(code: 42, pressed: true, keysym: 0xffe1, name: "Shift_L", text: ""))
        #expect(host.keyAction(named: "a", pressed: true) == .key(code: 30, pressed: true, keysym: 0x41, name: "A", text: "A"))
        #expect(host.keyAction(named: "Return", pressed: true) == .key(code: 28, pressed: true, keysym: 0xff0d, name: "Return", text: "\r"))
        #expect(host.keyAction(named: "no-such-key", pressed: true) == nil)
    }

    @Test func theConfiguredLayoutApplies() throws {
        var settings = InputSettings()
        settings.keymap.layout = "de"
        let host = try Self.host(settings)
        #expect(host.keyAction(named: "z", pressed: true) == .key(code: 21, pressed: true, keysym: 0x7a, name: "z", text: "z"))
    }

    @Test func aBadLayoutFallsBackToTheDefault() throws {
        var settings = InputSettings()
        settings.keymap.layout = "zz-nonexistent"
        let host = try Self.host(settings)
        #expect(host.keyboard.names.layout == "us")
        #expect(host.keyAction(named: "y", pressed: true) == .key(code: 21, pressed: true, keysym: 0x79, name: "y", text: "y"))
    }

    /// Within one dispatch, a motion followed by another of the same pointer or touch is not
    /// routed (each costs a hit test); downs, ups and other touches' motion are kept.
    @Test func motionIsCoalescedWithinABatch() {
        let p = LaminaCore.Point(x: 1, y: 2)
        #expect(InputDeviceHost.supersedes(.pointerMotion(to: p), .pointerMotion(to: p)))
        #expect(InputDeviceHost.supersedes(.touchMotion(id: 3, to: p), .touchMotion(id: 3, to: p)))
        #expect(!InputDeviceHost.supersedes(.touchMotion(id: 4, to: p), .touchMotion(id: 3, to: p)))
        #expect(!InputDeviceHost.supersedes(.touchUp(id: 3), .touchMotion(id: 3, to: p)))
        #expect(!InputDeviceHost.supersedes(.pointerMotion(to: p), .pointerButton(code: 0x110, pressed: true)))
    }

    /// XF86Switch_VT_1…12 (what Ctrl+Alt+F1…F12 give in the usual keymaps) name VTs 1…12.
    @Test func vtSwitchKeysyms() {
        #expect(InputDeviceHost.switchVT(0x1008_FE01) == 1)
        #expect(InputDeviceHost.switchVT(0x1008_FE0C) == 12)
        #expect(InputDeviceHost.switchVT(0x1008_FE00) == nil && InputDeviceHost.switchVT(0x1008_FE0D) == nil)
        #expect(InputDeviceHost.switchVT(0x61) == nil)
    }
}
