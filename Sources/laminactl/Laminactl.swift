import ArgumentParser
import Foundation
import Lamina
import LaminaCore
import LaminaImage
import LaminaScene

@main
struct Laminactl: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "laminactl",
        abstract: "Control laminad: apply scene files, take screenshots, dump the layer tree, drive the virtual clock.",
        discussion: ExitStatus.help,
        subcommands: [Apply.self, Launch.self, Contents.self, Video.self, Screenshot.self, Tree.self, Watch.self, Events.self, Input.self, Advance.self, Stats.self, Display.self, OutputCommand.self, Eval.self])
}

/// Options every subcommand that talks to laminad takes.
struct ConnectionOptions: ParsableArguments {
    @Option(help: "laminad's socket (default: $LAMINA_SOCKET if set, else the first of $XDG_RUNTIME_DIR/lamina-0 and /run/lamina/lamina.sock that answers).")
    var socket: String?

    /// Connects; with `reportErrors` false, errors reach only the call that throws them (a
    /// one-shot command's `sync()` or request), so each is printed once, by `main`.
    @MainActor
    func connect(session: String = "", keepLayers: Bool = false, reportErrors: Bool = false) throws -> Connection {
        let c = try Connection.connect(to: socket, name: "laminactl", session: session, keepLayers: keepLayers)
        c.onError = { error in
            if reportErrors { FileHandle.standardError.write(Data("laminactl: \(error)\n".utf8)) }
        }
        return c
    }
}

struct Contents: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show a PNG, JPEG, WebP, GIF or SVG file as the contents of a named layer of a session.",
        discussion: """
        The layer is found by name anywhere in the session's tree (the session `laminactl apply` \
        uses by default). The image stays on screen after laminactl exits, with the session's layers.
        """)

    @OptionGroup var connection: ConnectionOptions

    @Option(help: "The session whose layer gets the contents.")
    var session: String = "laminactl"

    @Option(help: "contentsGravity: resize, resizeAspect, resizeAspectFill, center, top, bottom, left, right, topLeft, topRight, bottomLeft, bottomRight.")
    var gravity: String?

    @Option(help: "contentsScale: image pixels per point.")
    var scale: Double?

    @Argument(help: "The layer's name.") var name: String
    @Argument(help: "A PNG, JPEG, WebP, GIF or SVG file (laminad plays an animated one and draws an SVG at the shown scale).") var file: String

    func validate() throws {
        if let gravity, ContentsGravity(rawValue: gravity) == nil {
            throw ValidationError("--gravity takes one of \(ContentsGravity.allCases.map(\.rawValue).joined(separator: ", ")) (got '\(gravity)')")
        }
        if let scale, !(scale > 0 && scale.isFinite) { throw ValidationError("--scale must be a number > 0 (got \(scale))") }
    }

    @MainActor
    func run() async throws {
        let gravityValue = gravity.flatMap(ContentsGravity.init(rawValue:))
        let c = try connection.connect(session: session, keepLayers: true)
        func find(_ l: Layer) -> Layer? {
            if l.name == name { return l }
            for s in l.sublayers { if let hit = find(s) { return hit } }
            return nil
        }
        guard let layer = find(c.rootLayer) ?? c.orphans.lazy.compactMap(find).first else {
            let others = (try? await sessions(withLayerNamed: name, in: c)) ?? []
            c.close()
            let hint = switch others.count {
            case 0: "no session has one"
            case 1: "session '\(others[0])' has one: add --session \(others[0])"
            default: "sessions \(others.map { "'\($0)'" }.joined(separator: ", ")) have one: choose with --session"
            }
            throw CommandFailure(ExitStatus.dataError, "session '\(session)' has no layer named '\(name)'; \(hint)")
        }
        let image: Image
        do { image = try Image(contentsOfFile: file, connection: c) } catch {
            c.close()
            throw CommandFailure(ExitStatus.dataError, "\(file): \(error)")
        }
        layer.contents = image
        if let gravityValue { layer.contentsGravity = gravityValue }
        if let scale { layer.contentsScale = scale }
        try await c.sync()
        print("\(name): contents \(file) (\(image.width)x\(image.height))")
        c.close()
    }
}

struct Video: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Play, pause, seek, set the volume of, mute or unmute the video a named layer shows (a scene's \"video\").",
        discussion: "Examples: laminactl video intro play; laminactl video intro seek 12.5; laminactl video intro volume 0.5; laminactl video intro mute")
    @OptionGroup var connection: ConnectionOptions
    @Option(help: "The session that holds the layer.") var session = "laminactl"
    @Argument(help: "The layer's name.") var name: String
    @Argument(help: "play, pause, seek, volume, mute or unmute.") var action: String
    @Argument(help: "For seek: the media time in seconds; for volume: the gain, 0 (silent) to 1 (as recorded).") var seconds: Double?

    func validate() throws {
        switch action {
        case "play", "pause", "mute", "unmute":
            if seconds != nil { throw ValidationError("\(action) takes no number") }
        case "seek":
            guard let seconds, seconds.isFinite, seconds >= 0 else { throw ValidationError("seek takes a number of seconds ≥ 0 (laminactl video NAME seek SECONDS)") }
        case "volume":
            guard let seconds, seconds.isFinite, seconds >= 0, seconds <= 1 else {
                throw ValidationError("volume takes a number from 0 to 1 (laminactl video NAME volume V)")
            }
        default:
            throw ValidationError("the action is play, pause, seek, volume, mute or unmute (got '\(action)')")
        }
    }

    @MainActor
    func run() async throws {
        let c = try connection.connect(session: session, keepLayers: true)
        defer { c.close() }
        func find(_ l: Layer) -> Layer? {
            if l.name == name { return l }
            for s in l.sublayers { if let hit = find(s) { return hit } }
            return nil
        }
        guard let layer = find(c.rootLayer) else {
            throw CommandFailure(ExitStatus.dataError, "session '\(session)' has no layer named '\(name)'")
        }
        guard case .image(let number) = layer.value(forKey: .contents), number != 0 else {
            throw CommandFailure(ExitStatus.dataError, "layer '\(name)' shows no video")
        }
        let video = VideoSource(existing: number, connection: c)
        switch action {
        case "play": video.play()
        case "pause": video.pause()
        case "volume": video.volume = seconds ?? 1
        case "mute": video.isMuted = true
        case "unmute": video.isMuted = false
        default: try video.seek(to: seconds ?? 0)
        }
        try await c.sync()
        if case .error(let message) = video.events.last {
            throw CommandFailure(ExitStatus.dataError, "\(name): \(message)")
        }
        print("\(name): \(action)\(seconds.map { " \($0)" } ?? "")")
    }
}

/// The sessions whose trees hold a layer named `name`, from laminad's tree (`laminactl tree`).
@MainActor
func sessions(withLayerNamed name: String, in c: Connection) async throws -> [String] {
    let json = try JSONSerialization.jsonObject(with: Data(try await c.treeJSON().utf8)) as? [String: Any]
    func contains(_ layer: [String: Any]) -> Bool {
        layer["name"] as? String == name
            || (layer["sublayers"] as? [[String: Any]] ?? []).contains(where: contains)
            || (layer["mask"] as? [String: Any]).map(contains) == true
    }
    var out: [String] = []
    for client in json?["clients"] as? [[String: Any]] ?? [] {
        guard let session = client["session"] as? String, !session.isEmpty, !out.contains(session),
              let root = client["root"] as? [String: Any], contains(root) else { continue }
        out.append(session)
    }
    return out
}

struct Screenshot: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Write what the display shows now to a PNG file.")
    @OptionGroup var connection: ConnectionOptions
    @Argument(help: "The PNG file to write.") var output: String
    @Option(help: "Also print the pixel at X,Y as 'X,Y: R G B A' (repeatable).") var pixel: [String] = []

    func points() throws -> [(Int, Int)] {
        try pixel.map { text -> (Int, Int) in
            let parts = text.split(separator: ",").compactMap { Int($0) }
            guard parts.count == 2 else { throw ValidationError("--pixel takes X,Y (got '\(text)')") }
            return (parts[0], parts[1])
        }
    }

    func validate() throws { _ = try points() }

    @MainActor
    func run() async throws {
        let points = try points()
        let c = try connection.connect()
        let image = try await c.screenshot()
        c.close()
        do { try PNG.write(image, toFile: output) } catch {
            throw CommandFailure(ExitStatus.ioError, "\(output): \(error)")
        }
        print("wrote \(output) (\(image.width)x\(image.height))")
        for (x, y) in points {
            guard x >= 0, y >= 0, x < image.width, y < image.height else {
                print("\(x),\(y): outside the \(image.width)x\(image.height) screenshot")
                continue
            }
            let p = image.pixel(x: x, y: y)
            print("\(x),\(y): \(p.r) \(p.g) \(p.b) \(p.a)")
        }
    }
}

struct Tree: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Print laminad's model tree as JSON.")
    @OptionGroup var connection: ConnectionOptions
    @Flag(help: "Add each animated layer's presentation values (those that differ from its model values).")
    var presentation = false

    @MainActor
    func run() async throws {
        let c = try connection.connect()
        print(presentation ? try await c.presentationTreeJSON() : try await c.treeJSON())
        c.close()
    }
}

struct Watch: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Stream animation and transaction events as JSON lines until interrupted.")
    @OptionGroup var connection: ConnectionOptions
    @Option(help: "Stop after this many events.") var count: Int?

    @MainActor
    func run() async throws {
        let c = try connection.connect()
        try await printLines(from: c, count: count) {
            try await c.watch()
            // On standard error, so the JSON lines stay clean; tests wait for it.
            FileHandle.standardError.write(Data("laminactl: watching\n".utf8))
        }
    }
}

/// Prints each `watch` line `c` receives on standard output, once `start` has asked for them,
/// until `count` lines (if given) or the connection's end; then closes `c`.
@MainActor
func printLines(from c: Connection, count: Int?, start: () async throws -> Void) async throws {
    var seen = 0
    let done = AsyncStream<Void>.makeStream()
    c.onWatchEvent = { line in
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
        seen += 1
        if let count, seen >= count { done.continuation.finish() }
    }
    // The error that ended the stream is thrown (laminad gone: status 69), printed once by main.
    var failure: LaminaError?
    c.onError = { error in
        failure = failure ?? error
        done.continuation.finish()
    }
    try await start()
    for await _ in done.stream {}
    c.close()
    if let failure { throw failure }
}

struct Advance: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Move laminad's virtual clock forward and render the frame at the new time.")
    @OptionGroup var connection: ConnectionOptions
    @Argument(help: "Seconds to advance.") var seconds: Double

    @MainActor
    func run() async throws {
        let c = try connection.connect()
        let (time, frames) = try await c.advanceClock(by: seconds)
        print("time \(time) s, \(frames) frames rendered")
        c.close()
    }
}

struct Stats: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Print laminad's counters.")
    @OptionGroup var connection: ConnectionOptions

    @MainActor
    func run() async throws {
        let c = try connection.connect()
        for s in try await c.stats() {
            let v = s.value == s.value.rounded() && abs(s.value) < 1e15 ? String(Int64(s.value)) : String(s.value)
            print("\(s.name) \(v)")
        }
        c.close()
    }
}

struct Display: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Turn laminad's displays off (blanked) or back on, or set their backlight.",
        discussion: """
            display off|on [OUTPUT]: without OUTPUT every display changes; prints each output's state \
            afterwards, one per line. display brightness [OUTPUT] PERCENT: sets the panel's backlight \
            (/sys/class/backlight) to PERCENT of its range, 0 to 100 (0 is the dimmest lit level, never \
            off); without OUTPUT every output that has a backlight; prints each backlight's level \
            afterwards ("eDP-1 brightness 40"). Privileged.
            """)
    @OptionGroup var connection: ConnectionOptions
    @Argument(help: "off, on or brightness.") var state: String
    @Argument(help: "off|on: [OUTPUT], a connector name such as Virtual-1 or HDMI-A-1 (default: every output); brightness: [OUTPUT] PERCENT.")
    var words: [String] = []

    static let usage = "display takes off or on [OUTPUT], or brightness [OUTPUT] PERCENT"

    /// What the words ask for: power, or a brightness.
    enum Action: Equatable {
        case power(Bool, output: String?)
        case brightness(Double, output: String?)
    }

    func action() throws -> Action {
        switch (state, words.count) {
        case ("off", 0...1), ("on", 0...1):
            return .power(state == "on", output: words.first)
        case ("brightness", 1...2):
            let text = words[words.count - 1]
            guard let percent = Double(text.hasSuffix("%") ? String(text.dropLast()) : text), percent.isFinite, (0...100).contains(percent) else {
                throw ValidationError("malformed brightness '\(text)': give a percentage from 0 to 100, e.g. 40")
            }
            return .brightness(percent, output: words.count == 2 ? words[0] : nil)
        default:
            throw ValidationError("\(Self.usage) (got '\(([state] + words).joined(separator: " "))')")
        }
    }

    func validate() throws { _ = try action() }

    @MainActor
    func run() async throws {
        let c = try connection.connect()
        defer { c.close() }
        switch try action() {
        case let .power(on, output):
            let (backend, outputs) = try await c.setDisplayPower(on, output: output)
            if outputs.isEmpty {
                print("no outputs: the \(backend) backend has no display to turn \(state)")
            }
            for o in outputs { print("\(o.name) \(o.isOn ? "on" : "off")") }
        case let .brightness(percent, output):
            try await c.setBrightness(percent, output: output)
            // The levels as the backlights hold them now (stats' backlight.OUTPUT).
            for s in try await c.stats() where s.name.hasPrefix("backlight.") {
                let name = String(s.name.dropFirst("backlight.".count))
                guard output == nil || output == name else { continue }
                print("\(name) brightness \(OutputCommand.number(s.value))")
            }
        }
    }
}

struct Eval: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print a scene's presentation values at given times, without a daemon.",
        discussion: "Time 0 is the moment the scene is applied; an animation's beginTime 0 means then.")

    @Argument(help: "The scene file (JSON with animations, see docs/scene-format.md).") var scene: String
    @Option(help: "Comma-separated times in seconds, e.g. 0,0.5,1.25.") var at: String
    @Option(help: "Only this layer (by name; unnamed layers are parent/index).") var layer: String?
    @Option(help: "Only this key path, e.g. position.x or transform.rotation.z.") var key: String?
    @Option(help: "The display's size, WIDTHxHEIGHT, on which the root layer is placed as laminad places it: bounds 0,0,W,H at position W/2,H/2 (default 1280x720, laminad's).")
    var size: String?

    func times() throws -> [Double] {
        try at.split(separator: ",").map { part in
            guard let t = Double(part.trimmingCharacters(in: .whitespaces)), t.isFinite else {
                throw ValidationError("--at takes comma-separated numbers of seconds; '\(part)' is not one")
            }
            return t
        }
    }

    func displaySize() throws -> Size {
        guard let size else { return SceneEvaluator.defaultDisplaySize }
        let parts = size.split(separator: "x").compactMap { Double($0) }
        guard parts.count == 2, parts.allSatisfy({ $0 > 0 && $0.isFinite }) else {
            throw ValidationError("--size takes WIDTHxHEIGHT in points, e.g. 1280x720 (got '\(size)')")
        }
        return Size(width: parts[0], height: parts[1])
    }

    func validate() throws {
        _ = try times()
        _ = try displaySize()
    }

    func run() throws {
        do {
            let evaluator = try SceneEvaluator(try Scene.load(path: scene), displaySize: try displaySize())
            print(try evaluator.evaluate(at: try times(), layer: layer, keyPath: key))
        } catch {
            throw CommandFailure(ExitStatus.dataError, "\(scene): \(error)")
        }
    }
}
