import ArgumentParser
import Foundation
import Lamina

struct OutputCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "output",
        abstract: "List laminad's outputs, or change one.",
        discussion: """
            Without arguments, one line per output: its name, then mode, transform, scale, position, \
            size (points), power and modes; with NAME, that output only; --json prints one JSON object. \
            NAME mode WxH[@HZ] switches NAME to that mode (headless: any size, no @HZ); NAME transform \
            normal|90|180|270|flipped|flipped-90|flipped-180|flipped-270 turns its picture; NAME scale S \
            sets pixels per point (0.25 to 8); NAME position X Y moves it in the desktop; NAME enable and \
            NAME disable light it or take it out of the desktop (not the last one). The display, every \
            root layer, laminad's layout and input follow, and 1.7 clients get display-changed. Privileged.
            """)
    @OptionGroup var connection: ConnectionOptions
    @Flag(help: "Print the outputs as one JSON object ({\"backend\": …, \"outputs\": […]}).") var json = false
    @Argument(help: "NAME, then what to change (mode WxH[@HZ], transform T, scale S, position X Y, enable, disable).") var words: [String] = []

    /// What the words ask for.
    enum Action {
        case list(name: String?)
        case change(name: String, OutputChange)
    }

    static let usage = "output takes [NAME], or NAME and one of: mode WxH[@HZ], transform normal|90|180|270|flipped|flipped-90|flipped-180|flipped-270, scale S, position X Y, enable, disable"

    func action() throws -> Action {
        guard words.count > 1 else { return .list(name: words.first) }
        let name = words[0], value = Array(words.dropFirst(2))
        switch (words[1], value.count) {
        case ("mode", 1):
            guard let mode = OutputMode(parsing: value[0]) else {
                throw ValidationError("malformed mode '\(value[0])': give WIDTHxHEIGHT or WIDTHxHEIGHT@HZ, e.g. 800x600 or 1920x1080@60")
            }
            return .change(name: name, .mode(mode))
        case ("transform", 1):
            return .change(name: name, .transform(value[0]))
        case ("scale", 1):
            guard let scale = Double(value[0]), scale.isFinite else {
                throw ValidationError("malformed scale '\(value[0])': give pixels per point, e.g. 2 or 1.5")
            }
            return .change(name: name, .scale(scale))
        case ("position", 2):
            guard let x = Int32(value[0]), let y = Int32(value[1]) else {
                throw ValidationError("malformed position '\(value.joined(separator: " "))': give X Y in whole points, e.g. 1920 0")
            }
            return .change(name: name, .position(x: x, y: y))
        case ("enable", 0):
            return .change(name: name, .enabled(true))
        case ("disable", 0):
            return .change(name: name, .enabled(false))
        default:
            throw ValidationError("\(Self.usage) (got '\(words.joined(separator: " "))')")
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
        case let .change(name, change):
            (backend, shown) = try await c.configureOutput(name, change)
            // A disabled output is no longer listed: every output then.
            if shown.contains(where: { $0.name == name }) { shown = shown.filter { $0.name == name } }
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
