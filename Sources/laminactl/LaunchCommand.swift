import ArgumentParser
import Foundation
import Lamina
import LaminaPlatform
#if canImport(Glibc)
import Glibc
#endif

struct Launch: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run a Wayland app (a browser, a GTK or Qt program) with its window in a named layer.",
        discussion: """
        The command runs as the user running laminactl, with WAYLAND_DISPLAY naming laminad's \
        Wayland socket. Its first window becomes the contents of the layer named by --layer in \
        the session named by --session (a full-screen layer of that name is made where the \
        session has none), sized to the layer's bounds; input on the layer goes to the app. \
        laminactl stays while the app runs (it manages apps meanwhile) and exits with its exit \
        status; with --restart it starts the app again whenever it exits, after a back-off. \
        SIGINT or SIGTERM stops the app and laminactl.

          laminactl launch --layer web -- cog https://example.com
        """)

    @OptionGroup var connection: ConnectionOptions

    @Option(help: "The layer that shows the app's window.")
    var layer: String = "app"

    @Option(help: "The session that owns the layer (kept when laminactl exits).")
    var session: String = "laminactl"

    @Flag(help: "Start the app again when it exits (1 s back-off, doubling to 30 s).")
    var restart = false

    @Argument(parsing: .captureForPassthrough, help: "The command and its arguments (after --).")
    var command: [String] = []

    func validate() throws {
        let cmd = command.first == "--" ? Array(command.dropFirst()) : command
        guard let first = cmd.first, !first.isEmpty else { throw ValidationError("name the command to run after --") }
        guard !layer.isEmpty else { throw ValidationError("--layer needs a name") }
    }

    @MainActor
    func run() async throws {
        let cmd = command.first == "--" ? Array(command.dropFirst()) : command
        let signals: SignalPipe
        do { signals = try SignalPipe(signals: [SIGINT, SIGTERM]) } catch {
            throw CommandFailure(ExitStatus.software, "cannot catch signals: \(error)")
        }
        let c = try connection.connect(session: session, keepLayers: true, reportErrors: true)
        defer { c.close() }
        guard let display = try await c.waylandSocket() else {
            throw CommandFailure(ExitStatus.unavailable, "laminad serves no Wayland socket ([wayland] enabled = false)")
        }
        let launcher = AppLauncher(connection: c, waylandDisplay: display, createsMissingLayers: true)
        try await c.manageApps()
        launcher.want([AppLauncher.Wanted(layer: layer, command: cmd, restart: restart)])
        while true {
            if !signals.drain().isEmpty {
                launcher.stopAll()
                throw ExitCode(0)
            }
            launcher.poll()
            if !launcher.isActive { throw ExitCode(launcher.lastExitStatus) }
            try await Task.sleep(nanoseconds: 100_000_000)
        }
    }
}
