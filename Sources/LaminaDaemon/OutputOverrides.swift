import LaminaCompositor
import LaminaKMS
import LaminaProtocol

/// Outputs changed at run time (`laminactl output NAME …`) that outlive laminad: kept in the
/// session journal's folder (`outputs`) with a fingerprint of the configuration they were made
/// over, and made again at the next start while the configuration is the same. Once the
/// configuration file changes (read again at SIGHUP, or at a start), it says what the outputs
/// are, and the changes made before it are forgotten.
///
/// A pure value: the daemon reads and writes the file; parsing, recording and the differences
/// between two configurations are tested without a display.
struct OutputOverrides: Equatable {
    /// The configuration's fingerprint (`fingerprint(of:)`) when the changes were made.
    var base: UInt64
    /// The changes, oldest first: one per output and kind of change (a later one replaces the
    /// earlier, so the list stays as short as the outputs × 6 kinds of change).
    private(set) var changes: [Change] = []

    struct Change: Equatable {
        var output: String
        var change: OutputChange
    }

    /// The most changes kept (an output has six kinds; 64 outputs at most).
    static let limit = 384

    init(base: UInt64) {
        self.base = base
    }

    /// Adds a change made by request; one of the same kind on the same output is replaced.
    mutating func record(_ change: OutputChange, output: String) {
        guard change != .none else { return }
        changes.removeAll { $0.output == output && Self.kind($0.change) == Self.kind(change) }
        changes.append(Change(output: output, change: change))
        if changes.count > Self.limit { changes.removeFirst(changes.count - Self.limit) }
    }

    private static func kind(_ change: OutputChange) -> UInt8 {
        if case .enabled = change { return 5 }
        return change.opcode
    }

    /// FNV-1a over the configuration file's bytes (and the backend's name): which configuration
    /// the changes were made over. Not a security measure: a changed file is a new base.
    static func fingerprint(of bytes: [UInt8], backend: String) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in Array(backend.utf8) + [0] + bytes {
            h ^= UInt64(b)
            h = h &* 0x0000_0100_0000_01b3
        }
        return h
    }

    // MARK: The file

    /// "lamina-outputs 1", "base HEX", then one "OUTPUT\tCHANGE" line per change, in
    /// laminactl's words ("mode 1024x768@60", "transform 90", "position 1920 0", "disable").
    func encoded() -> String {
        var lines = ["lamina-outputs 1", "base " + String(base, radix: 16)]
        for c in changes { lines.append(c.output + "\t" + c.change.description) }
        return lines.joined(separator: "\n") + "\n"
    }

    struct Malformed: Error, CustomStringConvertible {
        var description: String
    }

    /// Reads `encoded()`'s text back; a line it cannot read is an error naming it.
    static func decode(_ text: String) throws(Malformed) -> OutputOverrides {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
        guard lines.first == "lamina-outputs 1" else { throw Malformed(description: "not a lamina-outputs 1 file") }
        guard lines.count >= 2, lines[1].hasPrefix("base "), let base = UInt64(lines[1].dropFirst(5), radix: 16) else {
            throw Malformed(description: "line 2: expected 'base HEX'")
        }
        guard lines.count - 2 <= limit else { throw Malformed(description: "\(lines.count - 2) changes, more than \(limit)") }
        var overrides = OutputOverrides(base: base)
        for (i, line) in lines.dropFirst(2).enumerated() {
            let parts = line.split(separator: "\t", maxSplits: 1).map(String.init)
            guard parts.count == 2, !parts[0].isEmpty, parts[0].utf8.count <= 256, let change = parseChange(parts[1]) else {
                throw Malformed(description: "line \(i + 3): expected 'OUTPUT<tab>CHANGE' (got '\(line.prefix(80))')")
            }
            overrides.record(change, output: parts[0])
        }
        return overrides
    }

    /// A change in laminactl's words, as `OutputChange.description` writes it.
    static func parseChange(_ words: String) -> OutputChange? {
        let w = words.split(separator: " ").map(String.init)
        switch (w.first, w.count) {
        case ("mode", 2): return OutputMode(parsing: w[1]).map { .mode($0) }
        case ("transform", 2): return OutputTransform(rawValue: w[1]).map { .transform($0.rawValue) }
        case ("scale", 2): return Double(w[1]).flatMap { $0.isFinite ? .scale($0) : nil }
        case ("position", 3):
            guard let x = Int32(w[1]), let y = Int32(w[2]) else { return nil }
            return .position(x: x, y: y)
        case ("enable", 1): return .enabled(true)
        case ("disable", 1): return .enabled(false)
        default: return nil
        }
    }

    // MARK: Configurations compared

    /// `outputs` with these changes made: the settings laminad runs with now.
    func applied(to outputs: [OutputConfiguration]) -> [OutputConfiguration] {
        var result = outputs
        for c in changes {
            let i = result.firstIndex { $0.name == c.output } ?? {
                result.append(OutputConfiguration(name: c.output))
                return result.count - 1
            }()
            switch c.change {
            case .none, .brightness: break
            case .mode(let m):
                result[i].mode = ModeRequest(width: Int(m.width), height: Int(m.height), refreshRate: m.refresh > 0 ? m.refresh : nil)
            case .transform(let t): result[i].transform = OutputTransform(rawValue: t) ?? result[i].transform
            case .scale(let s): result[i].scale = s
            case let .position(x, y): result[i].position = (Int(x), Int(y))
            case .enabled(let on): result[i].enabled = on
            }
        }
        return result
    }

    /// The changes that take outputs from `old`'s `[[output]]` settings to `new`'s (an output
    /// named in one only is compared with the defaults), and notes for what a change at run time
    /// cannot undo (a mode or position no longer set: the display's preferred mode and the
    /// automatic place come back at the next start).
    static func changes(from old: [OutputConfiguration], to new: [OutputConfiguration]) -> (changes: [Change], notes: [String]) {
        var names: [String] = []
        for o in old + new where !names.contains(o.name) { names.append(o.name) }
        var changes: [Change] = []
        var notes: [String] = []
        for name in names {
            let a = old.first { $0.name == name } ?? OutputConfiguration(name: name)
            let b = new.first { $0.name == name } ?? OutputConfiguration(name: name)
            guard a != b else { continue }
            if a.enabled != b.enabled { changes.append(Change(output: name, change: .enabled(b.enabled))) }
            guard b.enabled else { continue }
            if a.mode != b.mode {
                if let m = b.mode {
                    changes.append(Change(output: name, change: .mode(OutputMode(width: UInt32(clamping: m.width), height: UInt32(clamping: m.height),
                                                                                  refresh: m.refreshRate ?? 0))))
                } else {
                    notes.append("\(name): no mode set any more; the display's preferred mode comes back at the next start")
                }
            }
            if a.transform != b.transform { changes.append(Change(output: name, change: .transform(b.transform.rawValue))) }
            if a.scale != b.scale { changes.append(Change(output: name, change: .scale(b.scale))) }
            if a.position?.x != b.position?.x || a.position?.y != b.position?.y {
                if let p = b.position {
                    changes.append(Change(output: name, change: .position(x: Int32(clamping: p.x), y: Int32(clamping: p.y))))
                } else {
                    notes.append("\(name): no position set any more; it is placed after the others at the next start")
                }
            }
        }
        return (changes, notes)
    }
}
