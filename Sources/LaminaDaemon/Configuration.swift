import LaminaGLES
#if canImport(Glibc)
import Glibc
#endif
import LaminaKMS
import LaminaPlatform
import Logging
import TOMLKit

/// A mistake in laminad.toml or on the command line, naming the key (or flag) and what would be right.
public struct ConfigurationError: Error, Equatable, CustomStringConvertible {
    public var key: String
    public var message: String
    public init(key: String, _ message: String) {
        self.key = key
        self.message = message
    }
    public var description: String { key.isEmpty ? message : "\(key): \(message)" }
}

/// What laminad starts with: the defaults, then laminad.toml, then the command line. Every key
/// and flag is declared once, in `keys` (ConfigurationKeys.swift), which says where its value
/// goes; unknown keys are errors, so a misspelt key does not pass silently.
public struct LaminadConfiguration: Sendable {
    public var backend = BackendChoice.auto
    public var logLevel = Logger.Level.info
    /// The headless output's size, and the KMS desktop's while no display is connected.
    public var headlessSize = (width: 1280, height: 720)
    public var headlessBuffers = 1
    public var damageTracking = true
    public var virtualClock = false
    public var refreshRate = 60.0
    /// nil: `$LAMINA_SOCKET`, else `$XDG_RUNTIME_DIR/lamina-0`, else the system socket.
    public var socketPath: String?
    /// nil: beside the socket; "": no journal.
    public var sessionJournal: String?
    /// The compiled-program cache's folder (`[renderer] shader_cache`): nil: $CACHE_DIRECTORY's
    /// `shaders` (the unit's CacheDirectory) where systemd sets it, else none; "": none.
    public var shaderCache: String?
    public var kms = KMSConfiguration()
    /// `[renderer] gles` / `--gles`: the GLES path; nil leaves it to `LAMINA_GLES`, else the context.
    public var glesRequest: GLESRequest?
    /// Everything else the daemon takes; `daemonOptions` adds the socket, journal and clock.
    public var daemon = Daemon.Options(socketPath: "", clock: .virtual)

    public init() {}

    /// `daemon` with the socket path resolved, the session journal beside it unless
    /// configured, and the frame clock.
    public var daemonOptions: Daemon.Options {
        var options = daemon
        options.socketPath = SocketPath.resolve(socketPath)
        let journal = sessionJournal ?? Daemon.Options.defaultSessionJournal(socketPath: options.socketPath)
        options.sessionJournal = journal.isEmpty ? nil : journal
        options.clock = virtualClock ? .virtual : .real(refreshRate: refreshRate)
        options.compositor.displayLinkRefreshRate = refreshRate
        return options
    }

    /// Reads and checks `path`. The corresponding C function is `fopen`.
    public static func load(path: String) throws(ConfigurationError) -> LaminadConfiguration {
        guard let file = fopen(path, "r") else {
            throw ConfigurationError(key: "", "cannot read \(path): \(String(cString: strerror(errno)))")
        }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = fread(&buffer, 1, buffer.count, file)
            if n <= 0 { break }
            bytes.append(contentsOf: buffer[0..<n])
        }
        do throws(ConfigurationError) {
            return try parse(String(decoding: bytes, as: UTF8.self))
        } catch {
            throw ConfigurationError(key: error.key, "\(path): \(error.message)")
        }
    }

    /// Parses TOML text over the defaults.
    public static func parse(_ text: String) throws(ConfigurationError) -> LaminadConfiguration {
        let root: TOMLTable
        do { root = try TOMLTable(string: text) } catch let error as TOMLParseError {
            throw ConfigurationError(key: "", "not valid TOML: \(error.description) at \(error.source.debugDescription)")
        } catch {
            throw ConfigurationError(key: "", "not valid TOML: \(error)")
        }
        var c = LaminadConfiguration()
        for table in keys {
            guard let value = try value(at: table.path, in: root) else { continue }
            let children = keys.compactMap { child -> String? in
                guard let childPath = child.path, parent(of: childPath) == table.path else { return nil }
                return String(childPath.split(separator: ".").last!)
            }
            try table.read(value, Set(children), &c)
        }
        return c
    }

    /// The value at a dotted path, each table on the way checked; nil where the file has none.
    private static func value(at path: String?, in root: TOMLTable) throws(ConfigurationError) -> (any TOMLValueConvertible)? {
        guard let path else { return root }
        var table = root
        var walked: [Substring] = []
        let names = path.split(separator: ".")
        for name in names.dropLast() {
            walked.append(name)
            guard let value = table[String(name)] else { return nil }
            guard let t = value.table else {
                let key = walked.joined(separator: ".")
                throw ConfigurationError(key: key, "must be a table ([\(key)]), not \(value.type)")
            }
            table = t
        }
        return table[String(names.last!)]
    }

    private static func parent(of path: String) -> String? {
        path.lastIndex(of: ".").map { String(path[..<$0]) }
    }

    /// The keys a command-line flag gives, by flag name.
    private static let flags: [String: Setting<LaminadConfiguration>] = {
        var flags: [String: Setting<LaminadConfiguration>] = [:]
        for setting in keys.flatMap(\.settings) {
            guard let flag = setting.key.flag else { continue }
            precondition(flags[flag.name] == nil, "--\(flag.name) is declared twice")
            flags[flag.name] = setting
        }
        return flags
    }()

    /// Gives the command line's settings (`--refresh 30`, `--refresh=30`, `--legacy-kms`) over
    /// what is here; an error names the flag.
    public mutating func apply(arguments: [String]) throws(ConfigurationError) {
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            guard argument.hasPrefix("--") else { throw ConfigurationError(key: "", "unexpected argument '\(argument)'") }
            let parts = argument.dropFirst(2).split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(parts[0])
            guard let setting = Self.flags[name], let flag = setting.key.flag else {
                throw ConfigurationError(key: "", "unknown option '--\(name)' (laminad --help lists them)")
            }
            let value: String
            if let implied = flag.implies {
                guard parts.count == 1 else { throw ConfigurationError(key: "--\(name)", "takes no value") }
                value = implied
            } else if parts.count == 2 {
                value = String(parts[1])
            } else if let next = rest.popFirst() {
                value = next
            } else {
                throw ConfigurationError(key: "--\(name)", "needs a value: \(setting.key.takes)")
            }
            do throws(ConfigurationError) { try setting.apply(&self, .argument(value)) } catch {
                throw ConfigurationError(key: "--\(name)", error.message)
            }
        }
    }

    /// Every key, table by table: what it takes, its command-line flag and what it is for
    /// (`laminad --list-keys`).
    public static var keyList: String {
        var lines: [String] = []
        for table in keys {
            if let path = table.path { lines.append(table.isArray ? "\n[[\(path)]]" : "\n[\(path)]") }
            for key in table.keys {
                let flag = key.flag.map { "  (--\($0.name)\($0.implies.map { ": \(key.name) = \($0)" } ?? ""))" } ?? ""
                lines.append("\(key.name): \(key.takes)\(flag)\n    \(key.summary)")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The settings the command line may give, for `laminad --help`: each flag, what it takes,
    /// and what it is for, wrapped to fit 80 columns under ArgumentParser's indent.
    public static var commandLineHelp: String {
        var lines: [String] = []
        for table in keys {
            for key in table.keys {
                guard let flag = key.flag else { continue }
                let dotted = (table.path.map { "[\($0)] \(key.name)" } ?? key.name) + (flag.implies.map { " = \($0)" } ?? "")
                lines.append(flag.implies == nil ? "--\(flag.name) <\(key.takesOnCommandLine)>" : "--\(flag.name)")
                var line = "   "
                for word in "\(key.summary) (\(dotted))".split(separator: " ") {
                    if line.count + 1 + word.count > 68 {
                        lines.append(line)
                        line = "   "
                    }
                    line += " " + word
                }
                lines.append(line)
            }
        }
        return lines.joined(separator: "\n")
    }
}
