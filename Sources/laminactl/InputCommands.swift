import ArgumentParser
import Foundation
import Lamina
import LaminaCore
import LaminaProtocol

struct Input: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Inject touch, pointer and key events (privileged).",
        discussion: """
        The events go through laminad's routing as a device's would: hit-tested where the layers \
        are drawn, with implicit grabs, enter/leave and keyboard focus. Their receivers see them \
        marked injected. Coordinates are display points.

          laminactl input touch down|move|up|cancel ID X Y
          laminactl input pointer move X Y
          laminactl input pointer press|release [left|right|middle]
          laminactl input pointer scroll DX DY
          laminactl input key press|release KEYNAME   (xkbcommon keysym names: a, A, Return, space, F1)
        """)

    @OptionGroup var connection: ConnectionOptions
    @Argument(help: "touch, pointer or key.") var device: String
    @Argument(help: "What happens: down, move, up, cancel, press, release, scroll.") var action: String
    @Argument(help: "The rest: touch ID X Y, pointer X Y or button or DX DY, key name.") var values: [String] = []

    func injection() throws -> InputInjection {
        func number(_ i: Int, _ what: String) throws -> Double {
            guard i < values.count, let v = Double(values[i]), v.isFinite else {
                throw ValidationError("\(device) \(action) needs \(what) (a finite number) as argument \(i + 1)")
            }
            return v
        }
        func count(_ n: Int, _ usage: String) throws {
            guard values.count == n else { throw ValidationError("usage: laminactl input \(device) \(action) \(usage)") }
        }
        switch (device, action) {
        case ("touch", "down"), ("touch", "move"):
            try count(3, "ID X Y")
            guard let id = Int32(values[0]) else { throw ValidationError("touch ID must be a 32-bit integer, got '\(values[0])'") }
            let p = Point(x: try number(1, "X"), y: try number(2, "Y"))
            return action == "down" ? .touchDown(id: id, at: p) : .touchMotion(id: id, to: p)
        case ("touch", "up"), ("touch", "cancel"):
            guard values.count == 1 || values.count == 3 else { throw ValidationError("usage: laminactl input touch \(action) ID [X Y]") }
            guard let id = Int32(values[0]) else { throw ValidationError("touch ID must be a 32-bit integer, got '\(values[0])'") }
            return action == "up" ? .touchUp(id: id) : .touchCancel(id: id)
        case ("pointer", "move"):
            try count(2, "X Y")
            return .pointerMotion(to: Point(x: try number(0, "X"), y: try number(1, "Y")))
        case ("pointer", "press"), ("pointer", "release"):
            guard values.count <= 1 else { throw ValidationError("usage: laminactl input pointer \(action) [left|right|middle]") }
            let codes: [String: UInt32] = ["left": 0x110, "right": 0x111, "middle": 0x112]
            let name = values.first ?? "left"
            guard let code = codes[name] else { throw ValidationError("the button is left, right or middle, not '\(name)'") }
            return .pointerButton(code: code, pressed: action == "press")
        case ("pointer", "scroll"):
            try count(2, "DX DY")
            return .pointerAxis(horizontal: try number(0, "DX"), vertical: try number(1, "DY"))
        case ("key", "press"), ("key", "release"):
            try count(1, "KEYNAME")
            return .key(name: values[0], pressed: action == "press")
        default:
            throw ValidationError("unknown input '\(device) \(action)': see laminactl input --help")
        }
    }

    func validate() throws { _ = try injection() }

    @MainActor
    func run() async throws {
        let c = try connection.connect()
        try await c.injectInput(try injection())
        c.close()
    }
}

struct Events: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the input events laminad delivers to a session's layers, one JSON line each, until interrupted.",
        discussion: """
        Works for a kept session whose client has gone, such as the one `laminactl apply` makes. \
        Allowed to the session's owner. A line reads, for example: \
        {"type":"touchDown","session":"laminactl","layer":"button","layerID":3,"id":1,"location":[10,20],"screen":[110,220],"time":1.5}
        """)
    @OptionGroup var connection: ConnectionOptions
    @Option(help: "The session whose events to print.") var session: String = "laminactl"
    @Option(help: "Stop after this many events.") var count: Int?

    @MainActor
    func run() async throws {
        let c = try connection.connect()
        try await printLines(from: c, count: count) {
            try await c.listen(toSession: session)
            FileHandle.standardError.write(Data("laminactl: listening to session '\(session)'\n".utf8))
        }
    }
}
