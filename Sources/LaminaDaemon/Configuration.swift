#if canImport(Glibc)
import Glibc
#endif
import LaminaCore
import LaminaInput
import LaminaKMS
import LaminaServer
import Logging
import TOMLKit

/// A mistake in laminad.toml, naming the key and what would be right.
public struct ConfigurationError: Error, Equatable, CustomStringConvertible {
    public var key: String
    public var message: String
    public init(key: String, _ message: String) {
        self.key = key
        self.message = message
    }
    public var description: String { key.isEmpty ? message : "\(key): \(message)" }
}

/// laminad.toml (config/laminad.toml documents every key). Every field is optional: what the
/// file leaves out takes the command line's value or the default. Unknown keys are errors, so a
/// misspelt key does not pass silently.
public struct LaminadConfiguration: Sendable {
    public var backend: BackendChoice?
    public var logLevel: Logger.Level?

    public var socketPath: String?
    /// The socket file's owner and group, by name or number, and its mode ("0660").
    public var socketOwner: String?
    public var socketGroup: String?
    public var socketMode: UInt32?
    /// Members of this group (name or number) may make privileged requests.
    public var privilegedGroup: String?
    /// Where kept sessions are journalled ("" turns the journal off).
    public var sessionJournal: String?

    public var maxLayersPerClient: Int?
    public var maxOperationsPerCommit: Int?
    public var maxMessageBytes: Int?
    public var maxQueuedBytes: Int?
    public var maxTotalQueuedBytes: Int?
    public var handshakeTimeout: Double?
    public var maxTreeDepth: Int?
    public var maxKeptLayers: Int?
    /// Videos decoded at once over all clients (`[limits] max_videos`).
    public var maxVideos: Int?
    /// Seconds a video's source has to give its first picture (`[video] open_timeout`).
    public var videoOpenTimeout: Double?
    /// Seconds a playing video may go without a newer picture (`[video] stall_timeout`; 0: never).
    public var videoStallTimeout: Double?
    /// Who converts planar YUV video pictures to RGB (`[video] yuv`): "auto", "renderer" or
    /// "decoder".
    public var videoYUV: String?
    public var maxKeptSessions: Int?
    public var maxKeptSessionsPerUser: Int?
    public var maxTotalLayers: Int?
    public var maxClients: Int?
    public var maxClientsPerUser: Int?

    public var background: Color?
    public var clock: String?
    public var refreshRate: Double?
    public var headlessSize: (width: Int, height: Int)?
    public var damageTracking: Bool?
    public var headlessBuffers: Int?
    public var idleBlankSeconds: Double?
    public var repaintWindowMilliseconds: Double?
    public var cursor: Bool?
    public var cursorPosition: (x: Int, y: Int)?
    /// Seconds without pointer motion before the cursor hides (0: never).
    public var cursorHideAfter: Double?

    public var kms = KMSConfiguration()
    public var kmsGiven = false
    /// `[input]` and its `[[input.device]]` tables.
    public var input = InputSettings()

    public init() {}

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

    /// Parses TOML text.
    public static func parse(_ text: String) throws(ConfigurationError) -> LaminadConfiguration {
        let root: TOMLTable
        do { root = try TOMLTable(string: text) } catch let error as TOMLParseError {
            throw ConfigurationError(key: "", "not valid TOML: \(error.description) at \(error.source.debugDescription)")
        } catch {
            throw ConfigurationError(key: "", "not valid TOML: \(error)")
        }
        var c = LaminadConfiguration()
        var r = Reader(root, path: "")
        if let s = try r.string("backend") {
            guard let b = BackendChoice(rawValue: s) else { throw r.error("backend", "must be auto, kms or headless (got '\(s)')") }
            c.backend = b
        }
        if let s = try r.string("log_level") {
            guard let l = Logger.Level(rawValue: s) else {
                throw r.error("log_level", "must be trace, debug, info, notice, warning, error or critical (got '\(s)')")
            }
            c.logLevel = l
        }
        if var t = try r.table("socket") {
            c.socketPath = try t.string("path")
            c.socketOwner = try t.string("owner")
            c.socketGroup = try t.string("group")
            if let m = try t.string("mode") {
                guard let mode = UInt32(m, radix: 8), mode <= 0o777 else { throw t.error("mode", "must be octal permissions such as \"0660\" (got '\(m)')") }
                c.socketMode = mode
            }
            try t.finish()
        }
        if var t = try r.table("security") {
            c.privilegedGroup = try t.string("privileged_group")
            try t.finish()
        }
        if var t = try r.table("sessions") {
            c.sessionJournal = try t.string("journal")
            try t.finish()
        }
        if var t = try r.table("limits") {
            c.maxLayersPerClient = try t.int("max_layers_per_client", 1...10_000_000)
            c.maxOperationsPerCommit = try t.int("max_operations_per_commit", 1...100_000_000)
            c.maxMessageBytes = try t.int("max_message_bytes", 1024...(1 << 30))
            c.maxQueuedBytes = try t.int("max_queued_bytes", 4096...(1 << 34))
            c.maxTotalQueuedBytes = try t.int("max_total_queued_bytes", 4096...(1 << 36))
            c.handshakeTimeout = try t.double("handshake_timeout", 0.05...3600)
            // The server's tree walks run on the main thread's stack: 256 is safe with margin.
            c.maxTreeDepth = try t.int("max_tree_depth", 1...256)
            c.maxKeptLayers = try t.int("max_kept_layers", 0...10_000_000)
            c.maxVideos = try t.int("max_videos", 0...64)
            c.maxKeptSessions = try t.int("max_kept_sessions", 0...10_000)
            c.maxKeptSessionsPerUser = try t.int("max_kept_sessions_per_user", 0...10_000)
            c.maxTotalLayers = try t.int("max_total_layers", 1...100_000_000)
            c.maxClients = try t.int("max_clients", 1...100_000)
            c.maxClientsPerUser = try t.int("max_clients_per_user", 1...100_000)
            try t.finish()
        }
        if var t = try r.table("video") {
            c.videoOpenTimeout = try t.double("open_timeout", 0.1...3600)
            c.videoStallTimeout = try t.double("stall_timeout", 0...3600)
            if let s = try t.string("yuv") {
                guard ["auto", "renderer", "decoder"].contains(s) else { throw t.error("yuv", "must be auto, renderer or decoder (got '\(s)')") }
                c.videoYUV = s
            }
            try t.finish()
        }
        if var t = try r.table("display") {
            if let s = try t.string("background") {
                guard let color = Color(hex: s) else { throw t.error("background", "must be #RRGGBB or #RRGGBBAA (got '\(s)')") }
                c.background = color
            }
            if let s = try t.string("clock") {
                guard s == "real" || s == "virtual" else { throw t.error("clock", "must be real or virtual (got '\(s)')") }
                c.clock = s
            }
            c.refreshRate = try t.double("refresh", 1...1000)
            if let s = try t.string("size") {
                guard let m = ModeRequest(parsing: s), m.refreshRate == nil, m.width <= 16384, m.height <= 16384 else {
                    throw t.error("size", "must be WIDTHxHEIGHT (got '\(s)')")
                }
                c.headlessSize = (m.width, m.height)
            }
            c.damageTracking = try t.bool("damage")
            c.headlessBuffers = try t.int("buffers", 1...4)
            c.idleBlankSeconds = try t.double("idle_blank", 0...86400)
            c.repaintWindowMilliseconds = try t.double("repaint_window_ms", 0...100)
            c.cursor = try t.bool("cursor")
            c.cursorPosition = try t.intPair("cursor_position")
            c.cursorHideAfter = try t.double("cursor_hide_after", 0...86400)
            try t.finish()
        }
        if var t = try r.table("kms") {
            c.kmsGiven = true
            c.kms.devicePath = try t.string("device")
            if let atomic = try t.bool("atomic") { c.kms.forceLegacy = !atomic }
            if let n = try t.int("max_outputs", 0...64) { c.kms.maxOutputs = n }
            if let s = try t.string("layout") {
                guard let layout = KMSConfiguration.Layout(rawValue: s) else {
                    throw t.error("layout", "must be desktop or separate (got '\(s)')")
                }
                c.kms.layout = layout
            }
            if let n = try t.int("vt", 0...63), n > 0 { c.kms.virtualTerminal = Int32(n) }
            if let s = try t.string("session") {
                guard let kind = KMSConfiguration.SessionKind(rawValue: s) else {
                    throw t.error("session", "must be auto, libseat or direct (got '\(s)')")
                }
                c.kms.session = kind
            }
            try t.finish()
        }
        if let outputs = try r.tables("output") {
            for (i, var t) in outputs.enumerated() {
                guard let name = try t.string("name") else { throw t.error("name", "every [[output]] needs the connector name, such as \"HDMI-A-1\"") }
                var o = OutputConfiguration(name: name)
                o.enabled = try t.bool("enabled") ?? true
                if let s = try t.string("mode") {
                    guard let m = ModeRequest(parsing: s) else { throw t.error("mode", "must be WIDTHxHEIGHT or WIDTHxHEIGHT@HZ (got '\(s)')") }
                    o.mode = m
                }
                if let p = try t.intPair("position") { o.position = p }
                if let s = try t.double("scale", 0.25...8) { o.scale = s }
                if let s = try t.string("transform") {
                    guard let tr = OutputTransform(rawValue: s) else {
                        throw t.error("transform", "must be one of \(OutputTransform.allCases.map(\.rawValue).joined(separator: ", ")) (got '\(s)')")
                    }
                    o.transform = tr
                }
                try t.finish()
                if c.kms.outputs.contains(where: { $0.name == name }) {
                    throw ConfigurationError(key: "output[\(i)].name", "\(name) is configured twice")
                }
                c.kms.outputs.append(o)
            }
        }
        if var t = try r.table("input") {
            if let b = try t.bool("enabled") { c.input.enabled = b }
            if let s = try t.string("seat") {
                guard !s.isEmpty else { throw t.error("seat", "must name a seat, such as \"seat0\"") }
                c.input.seat = s
            }
            if let s = try t.string("keyboard_layout") {
                guard !s.isEmpty else { throw t.error("keyboard_layout", "must name a layout, such as \"us\" or \"de\"") }
                c.input.keymap.layout = s
            }
            if let s = try t.string("keyboard_variant") { c.input.keymap.variant = s }
            if let s = try t.string("keyboard_options") { c.input.keymap.options = s }
            if let s = try t.string("keyboard_model") { c.input.keymap.model = s.isEmpty ? "pc105" : s }
            if let devices = try t.tables("device") {
                for var d in devices {
                    guard let match = try d.string("match"), !match.isEmpty else {
                        throw d.error("match", "every [[input.device]] needs a part of the device's name to match, such as \"ILITEK\"")
                    }
                    var rule = DeviceRule(match: match)
                    rule.output = try d.string("output")
                    rule.calibration = try d.calibration("calibration")
                    try d.finish()
                    c.input.devices.append(rule)
                }
            }
            try t.finish()
        }
        try r.finish()
        return c
    }
}

/// Reads one TOML table, remembering which keys were used so the rest can be reported.
private struct Reader {
    let table: TOMLTable
    let path: String
    var used: Set<String> = []

    init(_ table: TOMLTable, path: String) {
        self.table = table
        self.path = path
    }

    func error(_ key: String, _ message: String) -> ConfigurationError {
        ConfigurationError(key: path.isEmpty ? key : "\(path).\(key)", message)
    }

    private mutating func value(_ key: String) -> TOMLValueConvertible? {
        used.insert(key)
        return table[key]
    }

    mutating func string(_ key: String) throws(ConfigurationError) -> String? {
        guard let v = value(key) else { return nil }
        guard let s = v.string else { throw error(key, "must be a string, not \(v.type)") }
        return s
    }

    mutating func bool(_ key: String) throws(ConfigurationError) -> Bool? {
        guard let v = value(key) else { return nil }
        guard let b = v.bool else { throw error(key, "must be true or false, not \(v.type)") }
        return b
    }

    mutating func int(_ key: String, _ range: ClosedRange<Int>) throws(ConfigurationError) -> Int? {
        guard let v = value(key) else { return nil }
        guard let n = v.int else { throw error(key, "must be an integer, not \(v.type)") }
        guard range.contains(n) else { throw error(key, "must be in \(range.lowerBound)…\(range.upperBound) (got \(n))") }
        return n
    }

    mutating func double(_ key: String, _ range: ClosedRange<Double>) throws(ConfigurationError) -> Double? {
        guard let v = value(key) else { return nil }
        guard let d = v.double ?? v.int.map(Double.init) else { throw error(key, "must be a number, not \(v.type)") }
        guard range.contains(d) else { throw error(key, "must be in \(range.lowerBound)…\(range.upperBound) (got \(d))") }
        return d
    }

    mutating func intPair(_ key: String) throws(ConfigurationError) -> (Int, Int)? {
        guard let v = value(key) else { return nil }
        guard let a = v.array, a.count == 2, let x = a[0].int, let y = a[1].int else {
            throw error(key, "must be [x, y] in points")
        }
        return (x, y)
    }

    /// A calibration matrix: six finite numbers `[a, b, c, d, e, f]`.
    mutating func calibration(_ key: String) throws(ConfigurationError) -> [Float]? {
        guard let v = value(key) else { return nil }
        guard let a = v.array, a.count == 6 else { throw error(key, "must be six numbers [a, b, c, d, e, f] (a 2×3 matrix, row by row)") }
        var m: [Float] = []
        for i in 0..<6 {
            guard let d = a[i].double ?? a[i].int.map(Double.init), d.isFinite, abs(d) <= 1e6 else {
                throw error(key, "must be six numbers [a, b, c, d, e, f]; item \(i + 1) is not a finite number")
            }
            m.append(Float(d))
        }
        return m
    }

    mutating func table(_ key: String) throws(ConfigurationError) -> Reader? {
        guard let v = value(key) else { return nil }
        guard let t = v.table else { throw error(key, "must be a table ([\(key)]), not \(v.type)") }
        return Reader(t, path: path.isEmpty ? key : "\(path).\(key)")
    }

    mutating func tables(_ key: String) throws(ConfigurationError) -> [Reader]? {
        guard let v = value(key) else { return nil }
        guard let a = v.array else { throw error(key, "must be an array of tables ([[\(key)]]), not \(v.type)") }
        var result: [Reader] = []
        for i in 0..<a.count {
            guard let t = a[i].table else { throw error("\(key)[\(i)]", "must be a table") }
            result.append(Reader(t, path: path.isEmpty ? "\(key)[\(i)]" : "\(path).\(key)[\(i)]"))
        }
        return result
    }

    /// Fails on a key nothing read: a typo, or a setting this laminad does not know.
    func finish() throws(ConfigurationError) {
        if let unknown = table.keys.sorted().first(where: { !used.contains($0) }) {
            throw error(unknown, "is not a setting laminad knows (see config/laminad.toml)")
        }
    }
}
