import ArgumentParser
import Foundation
import Lamina

struct OutputCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "output",
        abstract: "List laminad's outputs, or change one's mode.",
        discussion: """
            Without arguments, one line per output: its name, then mode, transform, scale, position, \
            size (points), power and modes; with NAME, that output only; --json prints one JSON object. \
            NAME mode WxH[@HZ] switches NAME to that mode (headless: any size, no @HZ): the display, \
            every root layer and laminad's layout follow, and 1.7 clients get display-changed. \
            Privileged. A mode change on the KMS backend is not supported yet (set [[output]] mode \
            in laminad.toml and restart); transform, scale, position, enable and disable are not \
            supported yet.
            """)
    @OptionGroup var connection: ConnectionOptions
    @Flag(help: "Print the outputs as one JSON object ({\"backend\": …, \"outputs\": […]}).") var json = false
    @Argument(help: "NAME, then what to change (mode WxH[@HZ]).") var words: [String] = []

    /// What the words ask for.
    enum Action {
        case list(name: String?)
        case mode(name: String, OutputMode)
    }

    func action() throws -> Action {
        switch words.count {
        case 0: return .list(name: nil)
        case 1: return .list(name: words[0])
        case 3 where words[1] == "mode":
            guard let mode = OutputMode(parsing: words[2]) else {
                throw ValidationError("malformed mode '\(words[2])': give WIDTHxHEIGHT or WIDTHxHEIGHT@HZ, e.g. 800x600 or 1920x1080@60")
            }
            return .mode(name: words[0], mode)
        default:
            let what = words.count > 1 ? words[1] : ""
            if ["transform", "scale", "position", "enable", "disable"].contains(what) {
                throw ValidationError("output \(what) is not supported yet; only 'mode WxH[@HZ]' is")
            }
            throw ValidationError("output takes [NAME] or NAME mode WxH[@HZ] (got '\(words.joined(separator: " "))')")
        }
    }

    func validate() throws { _ = try action() }

    @MainActor
    func run() async throws {
        let c = try connection.connect()
        defer { c.close() }
        var shown: [OutputState]
        let backend: String
        switch try action() {
        case .list(let name):
            (backend, shown) = try await c.outputs()
            if let name {
                let known = shown.map(\.name)
                shown = shown.filter { $0.name == name }
                if shown.isEmpty {
                    throw CommandFailure(ExitStatus.dataError, "there is no output named '\(name)' (outputs: \(known.isEmpty ? "none" : known.joined(separator: ", ")))")
                }
            }
        case let .mode(name, mode):
            (backend, shown) = try await c.setOutputMode(name, mode)
            shown = shown.filter { $0.name == name }
        }
        if json {
            print(Self.json(backend: backend, shown))
        } else {
            if shown.isEmpty { print("no outputs: the \(backend) backend has no display connected") }
            for o in shown { print(Self.line(o)) }
        }
    }

    /// "headless mode 1280x720 transform normal scale 1 position 0,0 power on modes 1280x720".
    static func line(_ o: OutputState) -> String {
        "\(o.name) mode \(o.mode) transform \(o.transform) scale \(number(o.scale)) position \(number(o.frame.minX)),\(number(o.frame.minY))"
            + " size \(number(o.frame.width))x\(number(o.frame.height)) power \(o.isOn ? "on" : "off")"
            + " modes \(o.modes.map(\.description).joined(separator: ","))"
    }

    static func number(_ v: Double) -> String { v == v.rounded() && abs(v) < 1e15 ? String(Int(v)) : String(v) }

    static func json(backend: String, _ outputs: [OutputState]) -> String {
        func mode(_ m: OutputMode) -> [String: Any] { ["width": Int(m.width), "height": Int(m.height), "refresh": m.refresh] }
        let object: [String: Any] = [
            "backend": backend,
            "outputs": outputs.map { o -> [String: Any] in
                [
                    "name": o.name, "mode": mode(o.mode), "modes": o.modes.map(mode), "transform": o.transform, "scale": o.scale,
                    "position": ["x": o.frame.minX, "y": o.frame.minY], "size": ["width": o.frame.width, "height": o.frame.height],
                    "power": o.isOn ? "on" : "off",
                ]
            },
        ]
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }
}
