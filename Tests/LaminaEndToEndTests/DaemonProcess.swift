import Foundation
import LaminaCore
import LaminaImage
import LaminaTestSupport

/// A real laminad process on the headless backend with a virtual clock and a private socket,
/// stopped (SIGTERM) when the value goes away.
final class DaemonProcess {
    let process = Process()
    let socket: String
    let directory: String
    let log: String

    /// A program built beside the test bundle (laminad, laminactl, …).
    static func tool(_ name: String) -> String { TestPaths.buildDirectory + "/" + name }

    /// `launcher` runs laminad through another program (`prlimit --nofile=N:N --`).
    /// `directory`: run in an earlier daemon's folder (same socket path, same session journal),
    /// as a restarted laminad would; a socket file left by a killed daemon is removed first.
    /// `environment`: variables added to laminad's (MESA_SHADER_CACHE_DIR).
    init(size: String = "320x240", extra: [String] = [], launcher: [String] = [], directory reused: String? = nil,
         environment: [String: String] = [:]) throws {
        directory = reused ?? NSTemporaryDirectory() + "lamina-e2e-" + UUID().uuidString.prefix(8)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        socket = directory + "/lamina.sock"
        if reused != nil { try? FileManager.default.removeItem(atPath: socket) }
        log = directory + "/laminad-" + UUID().uuidString.prefix(8) + ".log"
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        let arguments = ["--backend", "headless", "--size", size, "--clock", "virtual", "--socket", socket, "--log-level", "debug"] + extra
        if let program = launcher.first {
            process.executableURL = URL(fileURLWithPath: program)
            process.arguments = Array(launcher.dropFirst()) + [Self.tool("laminad")] + arguments
        } else {
            process.executableURL = URL(fileURLWithPath: Self.tool("laminad"))
            process.arguments = arguments
        }
        if !environment.isEmpty { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
        let handle = try Self.appending(to: log)
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        // Wait for the socket to listen (the daemon binds it after EGL is up), polling: at most
        // 30 s, as the Python and C clients' tests wait, for a slow, loaded machine.
        let giveUp = Date().addingTimeInterval(30)
        repeat {
            if Self.isListening(socket) { return }
            guard process.isRunning else { break }
            usleep(25_000)
        } while Date() < giveUp
        throw DaemonError("laminad did not start listening on \(socket):\n\(logText)")
    }

    /// `path` opened for writing at its end (O_APPEND): laminad and the programs a test starts
    /// beside it (Wayland apps) share the log, and with a file offset each, one's lines would
    /// overwrite the other's; appending, they interleave.
    static func appending(to path: String) throws -> FileHandle {
        let fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC)
        guard fd >= 0 else { throw DaemonError("cannot open \(path) for appending: \(String(cString: strerror(errno)))") }
        return FileHandle(fileDescriptor: fd, closeOnDealloc: true)
    }

    /// laminad binds its socket under a temporary name and renames it into place once it
    /// listens (UnixSocket.listen), so the file existing means connections are accepted.
    static func isListening(_ path: String) -> Bool { FileManager.default.fileExists(atPath: path) }

    var logText: String { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }

    /// Kills laminad with `signal` (SIGKILL: no chance to clean up) and waits for it to go.
    func kill(_ signal: Int32) {
        guard process.isRunning else { return }
        Foundation.kill(process.processIdentifier, signal)
        process.waitUntilExit()
    }

    deinit {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// The presented x position of the first layer named `layer` in any client's tree
    /// (`laminactl tree --presentation`), or nil when there is none.
    func presentedX(layer: String) throws -> Double? {
        let r = try laminactl(["tree", "--presentation"])
        guard r.status == 0, let json = try JSONSerialization.jsonObject(with: Data(r.output.utf8)) as? [String: Any],
              let clients = json["clients"] as? [[String: Any]] else { return nil }
        func find(_ l: [String: Any]) -> Double? {
            if l["name"] as? String == layer {
                let p = ((l["presentation"] as? [String: Any])?["position"] ?? l["position"]) as? [Double]
                return p?.first
            }
            for s in l["sublayers"] as? [[String: Any]] ?? [] { if let x = find(s) { return x } }
            return nil
        }
        return clients.lazy.compactMap { ($0["root"] as? [String: Any]).flatMap(find) }.first
    }

    /// Runs laminactl with `arguments` (and `--socket` for subcommands that talk to laminad),
    /// returning its exit status and output.
    func laminactl(_ arguments: [String], withSocket: Bool = true) throws -> (status: Int32, output: String) {
        try Self.laminactl(arguments + (withSocket ? ["--socket", socket] : []))
    }

    /// Runs laminactl with exactly `arguments`; `environment` replaces the named variables
    /// (nil removes one).
    static func laminactl(_ arguments: [String], environment: [String: String?] = [:]) throws -> (status: Int32, output: String) {
        try ChildProcess.run(tool("laminactl"), arguments, environment: environment)
    }
}

struct DaemonError: Error, CustomStringConvertible {
    var description: String
    init(_ d: String) { description = d }
}

/// `Reference/<name>.png` beside this file.
func referencePath(_ name: String, filePath: String = #filePath) -> String {
    URL(fileURLWithPath: filePath).deletingLastPathComponent().appendingPathComponent("Reference/\(name).png").path
}
