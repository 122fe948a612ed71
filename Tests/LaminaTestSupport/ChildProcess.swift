import Foundation

/// A program run to its end (laminactl, setpriv, systemd-analyze), its standard output and
/// error read together. One copy for the test targets that start programs.
public enum ChildProcess {
    /// Runs `executable` with `arguments`, in `directory` if given, with `environment` changing
    /// the named variables (nil removes one). Returns its exit status and all it printed.
    public static func run(_ executable: String, _ arguments: [String], in directory: String? = nil,
                           environment: [String: String?] = [:]) throws -> (status: Int32, output: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: executable)
        p.arguments = arguments
        if let directory { p.currentDirectoryURL = URL(fileURLWithPath: directory) }
        if !environment.isEmpty {
            var env = ProcessInfo.processInfo.environment
            for (k, v) in environment { env[k] = v }
            p.environment = env
        }
        let pipe = Pipe()
        p.standardOutput = pipe
        p.standardError = pipe
        try p.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return (p.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}
