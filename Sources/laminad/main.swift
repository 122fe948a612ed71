import ArgumentParser
import LaminaCore
import LaminaDaemon
import LaminaPlatform
import LaminaServer
import Logging

/// laminad: owns the display and composites clients' layer trees.
struct Laminad: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "laminad",
        abstract: "The Lamina compositor daemon: owns the display and draws clients' layer trees.")

    @Option(help: "Display backend: auto, headless or kms.")
    var backend: String = "auto"

    @Option(help: "Output size for the headless backend, WIDTHxHEIGHT.")
    var size: String = "1280x720"

    @Option(help: "Unix socket to listen on (default: $XDG_RUNTIME_DIR/lamina-0, or /run/lamina/lamina.sock).")
    var socket: String?

    @Option(help: "Frame clock: real (CLOCK_MONOTONIC at the refresh rate) or virtual (moves only when a client advances it).")
    var clock: String = "real"

    @Option(help: "Refresh rate of the real clock in Hz.")
    var refresh: Double = 60

    @Option(help: "Display background colour, #RRGGBB or #RRGGBBAA.")
    var background: String = "#000000FF"

    @Option(name: .customLong("frames-dir"), help: "Write every presented frame as a numbered PNG into this folder.")
    var framesDir: String?

    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error or critical.")
    var logLevel: String = "info"

    func run() throws {
        guard let level = Logger.Level(rawValue: logLevel) else {
            throw ValidationError("--log-level must be one of trace, debug, info, notice, warning, error, critical (got '\(logLevel)')")
        }
        LoggingSystem.bootstrap { label in
            var h = StreamLogHandler.standardError(label: label)
            h.logLevel = level
            return h
        }
        let logger = Logger(label: "laminad")
        guard let choice = BackendChoice(rawValue: backend) else {
            throw ValidationError("--backend must be auto, headless or kms (got '\(backend)')")
        }
        let parts = size.split(separator: "x").compactMap { Int($0) }
        guard parts.count == 2, parts[0] > 0, parts[1] > 0, parts[0] <= 16384, parts[1] <= 16384 else {
            throw ValidationError("--size must be WIDTHxHEIGHT with each side 1…16384 (got '\(size)')")
        }
        let clockSetting: FrameClock.ClockKindSetting
        switch clock {
        case "real":
            guard refresh > 0, refresh <= 1000 else { throw ValidationError("--refresh must be in (0, 1000] Hz (got \(refresh))") }
            clockSetting = .real(refreshRate: refresh)
        case "virtual": clockSetting = .virtual
        default: throw ValidationError("--clock must be real or virtual (got '\(clock)')")
        }
        guard let bg = Color(hex: background) else {
            throw ValidationError("--background must be #RRGGBB or #RRGGBBAA (got '\(background)')")
        }
        let display = try openBackend(choice, width: parts[0], height: parts[1], logger: logger)
        var options = Daemon.Options(socketPath: SocketPath.resolve(socket), clock: clockSetting, framesDirectory: framesDir)
        options.compositor.background = bg
        let daemon = try Daemon(backend: display, options: options, logger: logger)
        try daemon.run()
    }
}

Laminad.main()
