import Foundation
import LaminaCore
import LaminaInput
import LaminaCompositor
import Testing

/// Device events in, the router's actions out, with made-up devices and outputs.
@Suite("device events to input actions")
struct TranslatorTests {
    static let outputs = [
        OutputPlacement(name: "Virtual-1", frame: Rect(x: 0, y: 0, width: 1280, height: 800)),
        OutputPlacement(name: "Virtual-2", frame: Rect(x: 1280, y: 0, width: 800, height: 1280), quarterTurns: 1),
    ]

    static func device(_ id: Int, _ name: String, _ capabilities: DeviceCapabilities, udevOutput: String? = nil) -> DeviceEvent {
        DeviceEvent(device: id, time: 0, kind: .added(InputDeviceInfo(id: id, name: name, sysname: "event\(id)", capabilities: capabilities,
                                                                      isAbsolute: capabilities.contains(.touch), udevOutput: udevOutput)))
    }

    func translator(_ rules: [DeviceRule] = []) throws -> InputTranslator {
        var settings = InputSettings()
        settings.devices = rules
        return InputTranslator(keyboard: try Keyboard(), settings: settings)
    }

    @Test func touchscreensMapOntoTheirOutput() throws {
        let t = try translator([DeviceRule(match: "ILITEK", output: "Virtual-2")])
        _ = t.translate(Self.device(1, "ILITEK Multi-Touch", .touch), outputs: Self.outputs)
        _ = t.translate(Self.device(2, "Goodix Touch", .touch, udevOutput: "Virtual-2"), outputs: Self.outputs)
        _ = t.translate(Self.device(3, "Some Touch", .touch), outputs: Self.outputs)
        // The rule's output, turned 90°: panel (0.25, 0.5) is (400, 960) in its 800x1280 picture.
        #expect(t.translate(DeviceEvent(device: 1, time: 1, kind: .touchDown(slot: 0, x: 0.25, y: 0.5)), outputs: Self.outputs)
                == [.touchDown(id: 0, at: Point(x: 1280 + 400, y: 960))])
        // udev's WL_OUTPUT.
        #expect(t.translate(DeviceEvent(device: 2, time: 1, kind: .touchDown(slot: 1, x: 0, y: 0)), outputs: Self.outputs)
                == [.touchDown(id: 1, at: Point(x: 1280, y: 1280))])
        // Neither: the first output.
        #expect(t.translate(DeviceEvent(device: 3, time: 1, kind: .touchDown(slot: 2, x: 0.5, y: 0.5)), outputs: Self.outputs)
                == [.touchDown(id: 2, at: Point(x: 640, y: 400))])
        // A rule naming an output that is not lit: the next choice.
        #expect(t.output(forDevice: InputDeviceInfo(id: 9, name: "ILITEK", sysname: "event9", capabilities: .touch, isAbsolute: true),
                         in: [Self.outputs[0]])?.name == "Virtual-1")
        #expect(t.translate(DeviceEvent(device: 1, time: 2, kind: .touchMotion(slot: 0, x: 0.5, y: 0.5)), outputs: Self.outputs)
                == [.touchMotion(id: 0, to: Point(x: 1280 + 400, y: 640))])
        #expect(t.translate(DeviceEvent(device: 1, time: 2, kind: .touchFrame), outputs: Self.outputs).isEmpty)
        #expect(t.translate(DeviceEvent(device: 1, time: 3, kind: .touchUp(slot: 0)), outputs: Self.outputs) == [.touchUp(id: 0)])
        // An up for a touch that is not down says nothing.
        #expect(t.translate(DeviceEvent(device: 1, time: 3, kind: .touchUp(slot: 0)), outputs: Self.outputs).isEmpty)
        // A device that goes away cancels its touches still down.
        let removed = t.translate(DeviceEvent(device: 2, time: 0, kind: .removed(InputDeviceInfo(
            id: 2, name: "Goodix Touch", sysname: "event2", capabilities: .touch, isAbsolute: true))), outputs: Self.outputs)
        #expect(removed == [.touchCancel(id: 1)])
    }

    @Test func relativeMotionStaysOnTheOutputs() throws {
        let t = try translator()
        _ = t.translate(Self.device(1, "Mouse", .pointer), outputs: Self.outputs)
        func move(_ dx: Double, _ dy: Double) -> [InputAction] {
            t.translate(DeviceEvent(device: 1, time: 0, kind: .pointerMotion(dx: dx, dy: dy)), outputs: Self.outputs)
        }
        // Starts at the first output's centre.
        #expect(move(10, -20) == [.pointerMotion(to: Point(x: 650, y: 380))])
        // Up past the top edge: held at y 0.
        #expect(move(0, -1000) == [.pointerMotion(to: Point(x: 650, y: 0))])
        // Right across into Virtual-2, down below Virtual-1's bottom (Virtual-2 is taller).
        #expect(move(1000, 1000) == [.pointerMotion(to: Point(x: 1650, y: 1000))])
        // Left from there into the gap below Virtual-1: to the nearest point of an output,
        // Virtual-2's left edge when that is nearer, else Virtual-1's bottom row.
        #expect(move(-400, 0) == [.pointerMotion(to: Point(x: 1280, y: 1000))])
        #expect(move(-700, 0) == [.pointerMotion(to: Point(x: 580, y: 800.nextDown))])
        #expect(t.pointer == Point(x: 580, y: 800.nextDown))
        // No output: no motion.
        #expect(t.translate(DeviceEvent(device: 1, time: 0, kind: .pointerMotion(dx: 1, dy: 1)), outputs: []).isEmpty)
    }

    @Test func buttonsScrollingAndKeys() throws {
        let t = try translator()
        #expect(t.translate(DeviceEvent(device: 1, time: 0, kind: .pointerButton(code: 0x110, pressed: true)), outputs: Self.outputs)
                == [.pointerButton(code: 0x110, pressed: true)])
        #expect(t.translate(DeviceEvent(device: 1, time: 0, kind: .pointerScroll(source: .wheel, horizontal: nil, vertical: 15)), outputs: Self.outputs)
                == [.pointerAxis(horizontal: 0, vertical: 15)])
        _ = t.translate(DeviceEvent(device: 1, time: 0, kind: .key(code: 54, pressed: true)), outputs: Self.outputs)  // KEY_RIGHTSHIFT
        #expect(t.translate(DeviceEvent(device: 1, time: 0, kind: .key(code: 48, pressed: true)), outputs: Self.outputs)
                == [.key(code: 48, pressed: true, keysym: 0x42, name: "B", text: "B")])
        t.reset()
        #expect(t.translate(DeviceEvent(device: 1, time: 0, kind: .key(code: 48, pressed: true)), outputs: Self.outputs)
                == [.key(code: 48, pressed: true, keysym: 0x62, name: "b", text: "b")])
    }

    @Test func logLinesAreStable() {
        #expect(InputAction.pointerMotion(to: Point(x: 640, y: 399.999999)).logDescription == "pointerMotion(to: (640.0, 400.0))")
        #expect(InputAction.touchDown(id: 0, at: Point(x: 400, y: 960)).logDescription == "touchDown(id: 0, at: (400.0, 960.0))")
        #expect(InputAction.pointerButton(code: 0x110, pressed: true).logDescription == "pointerButton(code: 0x110, pressed: true)")
        #expect(InputAction.key(code: 28, pressed: true, keysym: 0xff0d, name: "Return", text: "\r").logDescription
                == #"key(code: 28, pressed: true, keysym: 0xff0d, name: "Return", text: "\r")"#)
        #expect(InputAction.cancelAll.logDescription == "cancelAll")
    }
}
