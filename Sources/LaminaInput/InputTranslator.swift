import LaminaCore
import LaminaCompositor

/// Turns device events into the router's `InputAction`s: absolute positions (touchscreens,
/// tablets) mapped onto their output through the inverse of its transform and then to the
/// desktop, relative pointer motion summed and kept on the outputs, keys through the keymap.
///
/// Knows no libinput: the host feeds it `DeviceEvent`s and the backend's output placements, so
/// it can be tested with made-up events.
public final class InputTranslator {
    /// The keymap and state keys are translated with.
    public let keyboard: Keyboard
    public let settings: InputSettings
    private var devices: [Int: InputDeviceInfo] = [:]
    /// Touches down, by seat slot, with the device they are on.
    private var touches: [Int32: Int] = [:]
    /// The pointer's place in the desktop; nil until the first pointer event.
    public private(set) var pointer: Point?

    public init(keyboard: Keyboard, settings: InputSettings) {
        self.keyboard = keyboard
        self.settings = settings
    }

    /// The device with this number, while present.
    public func device(_ id: Int) -> InputDeviceInfo? { devices[id] }

    /// The output a device's absolute positions map onto: its `[[input.device]]` rule's output,
    /// else udev's `WL_OUTPUT`, else the first output (each only where that output is lit).
    public func output(forDevice info: InputDeviceInfo, in outputs: [OutputPlacement]) -> OutputPlacement? {
        if let name = settings.rule(forDeviceNamed: info.name)?.output, let o = outputs.first(where: { $0.name == name }) { return o }
        if let name = info.udevOutput, let o = outputs.first(where: { $0.name == name }) { return o }
        return outputs.first
    }

    /// The actions one device event makes, given the outputs lit now. Device added and removed
    /// make none (removal cancels the device's touches still down), nor does a touch frame.
    public func translate(_ event: DeviceEvent, outputs: [OutputPlacement]) -> [InputAction] {
        switch event.kind {
        case .added(let info):
            devices[info.id] = info
            return []
        case .removed(let info):
            devices[info.id] = nil
            let gone = touches.filter { $0.value == info.id }.keys.sorted()
            for slot in gone { touches[slot] = nil }
            return gone.map { .touchCancel(id: $0) }
        case .key(let code, let pressed):
            let k = keyboard.update(code: code, pressed: pressed)
            return [.key(code: code, pressed: pressed, keysym: k.keysym, name: k.name, text: k.text)]
        case .pointerMotion(let dx, let dy):
            guard !outputs.isEmpty else { return [] }
            let from = pointer ?? Self.centre(of: outputs[0].frame)
            let to = Self.clamp(Point(x: from.x + dx, y: from.y + dy), to: outputs)
            pointer = to
            return [.pointerMotion(to: to)]
        case .pointerMotionAbsolute(let x, let y):
            guard let output = place(event.device, outputs) else { return [] }
            let to = output.desktopPoint(panelX: x, panelY: y)
            pointer = to
            return [.pointerMotion(to: to)]
        case .pointerButton(let code, let pressed):
            return [.pointerButton(code: code, pressed: pressed)]
        case .pointerScroll(_, let horizontal, let vertical):
            return [.pointerAxis(horizontal: horizontal ?? 0, vertical: vertical ?? 0)]
        case .touchDown(let slot, let x, let y):
            guard let output = place(event.device, outputs) else { return [] }
            touches[slot] = event.device
            return [.touchDown(id: slot, at: output.desktopPoint(panelX: x, panelY: y))]
        case .touchMotion(let slot, let x, let y):
            guard touches[slot] != nil, let output = place(event.device, outputs) else { return [] }
            return [.touchMotion(id: slot, to: output.desktopPoint(panelX: x, panelY: y))]
        case .touchUp(let slot):
            guard touches.removeValue(forKey: slot) != nil else { return [] }
            return [.touchUp(id: slot)]
        case .touchCancel(let slot):
            guard touches.removeValue(forKey: slot) != nil else { return [] }
            return [.touchCancel(id: slot)]
        case .touchFrame:
            return []
        }
    }

    /// Forgets touches down and the keyboard's pressed keys and modifiers (the session went
    /// away: the router is told `cancelAll`, and the releases will never come).
    public func reset() {
        touches.removeAll()
        keyboard.resetState()
    }

    private func place(_ device: Int, _ outputs: [OutputPlacement]) -> OutputPlacement? {
        guard let info = devices[device] else { return outputs.first }
        return output(forDevice: info, in: outputs)
    }

    static func centre(of r: Rect) -> Point { Point(x: r.minX + r.width / 2, y: r.minY + r.height / 2) }

    /// `p` if an output holds it, else the nearest point of the nearest output (so the pointer
    /// can cross between outputs that touch but not leave the desktop through a gap or edge).
    public static func clamp(_ p: Point, to outputs: [OutputPlacement]) -> Point {
        var best = p, bestDistance = Double.infinity
        for o in outputs {
            let f = o.frame
            guard f.width > 0, f.height > 0 else { continue }
            let x = Swift.min(Swift.max(p.x, f.minX), f.maxX.nextDown)
            let y = Swift.min(Swift.max(p.y, f.minY), f.maxY.nextDown)
            let d = (x - p.x) * (x - p.x) + (y - p.y) * (y - p.y)
            if d < bestDistance {
                bestDistance = d
                best = Point(x: x, y: y)
            }
        }
        return best
    }
}

extension InputAction {
    /// One line for laminad's debug log, stable for tests to match:
    /// `pointerMotion(to: (640.0, 400.0))`, `key(code: 30, pressed: true, keysym: 0x61, name: "a", text: "a")`.
    /// Coordinates are rounded to hundredths.
    public var logDescription: String {
        func n(_ v: Double) -> String { "\((v * 100).rounded() / 100)" }
        func p(_ point: Point) -> String { "(\(n(point.x)), \(n(point.y)))" }
        switch self {
        case .touchDown(let id, let at): return "touchDown(id: \(id), at: \(p(at)))"
        case .touchMotion(let id, let to): return "touchMotion(id: \(id), to: \(p(to)))"
        case .touchUp(let id): return "touchUp(id: \(id))"
        case .touchCancel(let id): return "touchCancel(id: \(id))"
        case .pointerMotion(let to): return "pointerMotion(to: \(p(to)))"
        case .pointerButton(let code, let pressed): return "pointerButton(code: 0x\(String(code, radix: 16)), pressed: \(pressed))"
        case .pointerAxis(let h, let v): return "pointerAxis(horizontal: \(n(h)), vertical: \(n(v)))"
        case .key(let code, let pressed, let keysym, let name, let text):
            return "key(code: \(code), pressed: \(pressed), keysym: 0x\(String(keysym, radix: 16)), name: \"\(name)\", text: \(text.debugDescription))"
        case .cancelAll: return "cancelAll"
        }
    }
}
