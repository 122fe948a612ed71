import TOMLKit

/// What the key list shows of one laminad.toml key.
public struct ConfigurationKey: Sendable {
    public let name: String
    /// What the key takes, as the key list shows it and errors say it: "1…256", "auto, kms or headless".
    public let takes: String
    public let flag: CommandLineFlag?
    /// What its flag takes, where that differs from the file ("on or off").
    public let takesOnCommandLine: String
    /// One line on what the key is for (config/laminad.toml says more).
    public let summary: String
}

/// The command-line flag that gives a key: `--max-outputs 4`, or a flag without a value that
/// stands for one (`--legacy-kms`: `atomic = false`).
public struct CommandLineFlag: Sendable, ExpressibleByStringLiteral {
    public let name: String
    /// The value a flag without one stands for.
    public let implies: String?

    public init(stringLiteral name: String) {
        self.name = name
        implies = nil
    }

    init(name: String, implies: String?) {
        self.name = name
        self.implies = implies
    }

    /// A flag without a value, giving the key `value`.
    static func without(_ name: String, meaning value: String) -> CommandLineFlag { CommandLineFlag(name: name, implies: value) }
}

/// A value given for a key: a TOML value from laminad.toml, or the text after a command-line flag.
enum GivenValue {
    case toml(any TOMLValueConvertible)
    case argument(String)

    func string() throws(ConfigurationError) -> String { try scalar("a string", { $0 }, \.string) }
    func int() throws(ConfigurationError) -> Int { try scalar("an integer", { Int($0) }, \.int) }
    func double() throws(ConfigurationError) -> Double {
        try scalar("a number", { Double($0) }) { $0.double ?? $0.int.map(Double.init) }
    }
    /// true or false in the file; on, off, true or false on the command line (`--damage off`).
    func bool() throws(ConfigurationError) -> Bool {
        try scalar("true or false", orOnTheCommandLine: "on or off", { ["on": true, "true": true, "off": false, "false": false][$0] }, \.bool)
    }

    /// The value as `what` ("an integer"), read from an argument's text or from TOML.
    private func scalar<Value>(_ what: String, orOnTheCommandLine argumentWhat: String? = nil, _ fromArgument: (String) -> Value?,
                               _ fromTOML: (any TOMLValueConvertible) -> Value?) throws(ConfigurationError) -> Value {
        switch self {
        case .argument(let s):
            guard let value = fromArgument(s) else { throw mistake("must be \(argumentWhat ?? what) (got '\(s)')") }
            return value
        case .toml(let v):
            guard let value = fromTOML(v) else { throw mistake("must be \(what), not \(v.type)") }
            return value
        }
    }

    /// A TOML array (keys that take one have no command-line flag).
    func array(_ otherwise: String) throws(ConfigurationError) -> TOMLArray {
        guard case .toml(let v) = self, let a = v.array else { throw mistake(otherwise) }
        return a
    }
}

/// An error about the key being read; whoever reads it names the key.
private func mistake(_ message: String) -> ConfigurationError { ConfigurationError(key: "", message) }

/// One key of a laminad.toml table: what it takes and where its value goes in `Target` (the
/// whole configuration, or one `[[output]]` or `[[input.device]]` entry).
public struct Setting<Target>: Sendable {
    public let key: ConfigurationKey
    let apply: @Sendable (inout Target, GivenValue) throws(ConfigurationError) -> Void

    init(_ name: String, takes: String, onCommandLine: String? = nil, flag: CommandLineFlag?, _ summary: String,
         apply: @escaping @Sendable (inout Target, GivenValue) throws(ConfigurationError) -> Void) {
        key = ConfigurationKey(name: name, takes: takes, flag: flag, takesOnCommandLine: onCommandLine ?? takes, summary: summary)
        self.apply = apply
    }

    /// Text, taken as it is.
    static func string(_ name: String, flag: CommandLineFlag? = nil, _ summary: String,
                       _ set: @escaping @Sendable (inout Target, String) -> Void) -> Setting {
        Setting(name, takes: "text", flag: flag, summary) { target, given throws(ConfigurationError) in set(&target, try given.string()) }
    }

    /// Text that `parse` turns into a value, or refuses (nil) as not being `takes`.
    static func text<Value>(_ name: String, _ takes: String, flag: CommandLineFlag? = nil, _ summary: String,
                            parse: @escaping @Sendable (String) -> Value?,
                            _ set: @escaping @Sendable (inout Target, Value) -> Void) -> Setting {
        Setting(name, takes: takes, flag: flag, summary) { target, given throws(ConfigurationError) in
            let s = try given.string()
            guard let value = parse(s) else { throw mistake("must be \(takes) (got '\(s)')") }
            set(&target, value)
        }
    }

    /// One of a few words, each standing for a value.
    static func choice<Value: Sendable>(_ name: String, _ options: [(word: String, value: Value)], flag: CommandLineFlag? = nil,
                                        _ summary: String, _ set: @escaping @Sendable (inout Target, Value) -> Void) -> Setting {
        let words = options.map(\.word)
        let list = (words.count > 3 ? "one of " : "") + words.dropLast().joined(separator: ", ") + " or " + words.last!
        return text(name, list, flag: flag, summary, parse: { s in options.first { $0.word == s }?.value }, set)
    }

    /// One of an enumeration's raw values.
    static func choice<Value: RawRepresentable & Sendable>(
        _ name: String, _ values: [Value], flag: CommandLineFlag? = nil, _ summary: String,
        _ set: @escaping @Sendable (inout Target, Value) -> Void
    ) -> Setting where Value.RawValue == String {
        choice(name, values.map { ($0.rawValue, $0) }, flag: flag, summary, set)
    }

    static func int(_ name: String, _ range: ClosedRange<Int>, flag: CommandLineFlag? = nil, _ summary: String,
                    _ set: @escaping @Sendable (inout Target, Int) -> Void) -> Setting {
        number(name, range, flag: flag, summary, { given throws(ConfigurationError) in try given.int() }, set)
    }

    static func double(_ name: String, _ range: ClosedRange<Double>, flag: CommandLineFlag? = nil, _ summary: String,
                       _ set: @escaping @Sendable (inout Target, Double) -> Void) -> Setting {
        number(name, range, flag: flag, summary, { given throws(ConfigurationError) in try given.double() }, set)
    }

    private static func number<Number: Comparable & Sendable>(
        _ name: String, _ range: ClosedRange<Number>, flag: CommandLineFlag?, _ summary: String,
        _ read: @escaping @Sendable (GivenValue) throws(ConfigurationError) -> Number,
        _ set: @escaping @Sendable (inout Target, Number) -> Void
    ) -> Setting {
        let span = "\(range.lowerBound)…\(range.upperBound)"
        return Setting(name, takes: span, flag: flag, summary) { target, given throws(ConfigurationError) in
            let n = try read(given)
            guard range.contains(n) else { throw mistake("must be in \(span) (got \(n))") }
            set(&target, n)
        }
    }

    static func bool(_ name: String, flag: CommandLineFlag? = nil, _ summary: String,
                     _ set: @escaping @Sendable (inout Target, Bool) -> Void) -> Setting {
        Setting(name, takes: "true or false", onCommandLine: "on or off", flag: flag, summary) { target, given throws(ConfigurationError) in set(&target, try given.bool()) }
    }

    /// `[x, y]`, in points.
    static func point(_ name: String, _ summary: String, _ set: @escaping @Sendable (inout Target, (Int, Int)) -> Void) -> Setting {
        Setting(name, takes: "[x, y]", flag: nil, summary) { target, given throws(ConfigurationError) in
            let a = try given.array("must be [x, y] in points")
            guard a.count == 2, let x = a[0].int, let y = a[1].int else { throw mistake("must be [x, y] in points") }
            set(&target, (x, y))
        }
    }

    /// A calibration matrix: six finite numbers `[a, b, c, d, e, f]`.
    static func matrix(_ name: String, _ summary: String, _ set: @escaping @Sendable (inout Target, [Float]) -> Void) -> Setting {
        Setting(name, takes: "[a, b, c, d, e, f]", flag: nil, summary) { target, given throws(ConfigurationError) in
            let six = "must be six numbers [a, b, c, d, e, f] (a 2×3 matrix, row by row)"
            let a = try given.array(six)
            guard a.count == 6 else { throw mistake(six) }
            var m: [Float] = []
            for i in 0..<6 {
                guard let d = a[i].double ?? a[i].int.map(Double.init), d.isFinite, abs(d) <= 1e6 else {
                    throw mistake("must be six numbers [a, b, c, d, e, f]; item \(i + 1) is not a finite number")
                }
                m.append(Float(d))
            }
            set(&target, m)
        }
    }
}

/// One table of laminad.toml and its keys: the top level (`path` nil), a table such as
/// `[limits]`, or an array of tables such as `[[output]]`, each entry of which becomes one value
/// added to the configuration.
public struct KeyTable: Sendable {
    /// "limits", "input.device"; nil: the top level.
    public let path: String?
    public let isArray: Bool
    public let keys: [ConfigurationKey]
    /// The keys a command-line flag may give (those of plain tables).
    let settings: [Setting<LaminadConfiguration>]
    /// Reads the TOML value at `path` into the configuration. `children`: the tables below this
    /// one, which are keys of it too.
    let read: @Sendable (any TOMLValueConvertible, _ children: Set<String>, inout LaminadConfiguration) throws(ConfigurationError) -> Void

    /// The top level (`path` nil) or a table.
    init(_ path: String?, _ settings: [Setting<LaminadConfiguration>]) {
        self.path = path
        isArray = false
        keys = settings.map(\.key)
        self.settings = settings
        read = { value, children, configuration throws(ConfigurationError) in
            guard let table = value.table else {
                throw ConfigurationError(key: path ?? "", "must be a table ([\(path ?? "")]), not \(value.type)")
            }
            try Self.read(table, at: path, settings, allowing: children, into: &configuration)
        }
    }

    /// An array of tables: each entry starts as `start`, must give `required`, takes `settings`,
    /// and is then added (`add` may refuse it, naming one of its keys).
    static func array<Element: Sendable>(
        _ path: String, required: (key: String, message: String), start: Element, _ settings: [Setting<Element>],
        add: @escaping @Sendable (inout LaminadConfiguration, Element) throws(ConfigurationError) -> Void
    ) -> KeyTable {
        KeyTable(path: path, isArray: true, keys: settings.map(\.key), settings: []) { value, _, configuration throws(ConfigurationError) in
            guard let array = value.array else {
                throw ConfigurationError(key: path, "must be an array of tables ([[\(path)]]), not \(value.type)")
            }
            for i in 0..<array.count {
                let entry = "\(path)[\(i)]"
                guard let table = array[i].table else { throw ConfigurationError(key: entry, "must be a table") }
                guard table[required.key] != nil else { throw ConfigurationError(key: "\(entry).\(required.key)", required.message) }
                var element = start
                try read(table, at: entry, settings, allowing: [], into: &element)
                do throws(ConfigurationError) { try add(&configuration, element) } catch {
                    throw ConfigurationError(key: "\(entry).\(error.key)", error.message)
                }
            }
        }
    }

    private init(path: String, isArray: Bool, keys: [ConfigurationKey], settings: [Setting<LaminadConfiguration>],
                 read: @escaping @Sendable (any TOMLValueConvertible, Set<String>, inout LaminadConfiguration) throws(ConfigurationError) -> Void) {
        self.path = path
        self.isArray = isArray
        self.keys = keys
        self.settings = settings
        self.read = read
    }

    /// Applies the keys `table` gives, in the order of `settings`, then fails on a key neither a
    /// setting nor one of `children`: a typo, or a setting this laminad does not know.
    private static func read<Target>(_ table: TOMLTable, at path: String?, _ settings: [Setting<Target>],
                                     allowing children: Set<String>, into target: inout Target) throws(ConfigurationError) {
        func qualified(_ key: String) -> String { path.map { "\($0).\(key)" } ?? key }
        for setting in settings {
            guard let value = table[setting.key.name] else { continue }
            do throws(ConfigurationError) { try setting.apply(&target, .toml(value)) } catch {
                throw ConfigurationError(key: qualified(setting.key.name), error.message)
            }
        }
        let known = Set(settings.map(\.key.name)).union(children)
        if let unknown = table.keys.sorted().first(where: { !known.contains($0) }) {
            throw ConfigurationError(key: qualified(unknown), "is not a setting laminad knows (see config/laminad.toml)")
        }
    }
}
