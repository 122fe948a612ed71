import Foundation
import LaminaDaemon
import LaminaCompositor
import LaminaTestSupport
import Testing

/// `LaminadConfiguration.keys`: the one list laminad.toml, the command line, config/laminad.toml
/// and the documents agree with.
@Suite("laminad.toml: the key table")
struct ConfigurationTableTests {
    /// Every key the table declares, dotted: "backend", "limits.max_tree_depth", "output.name".
    static let declared = Set(LaminadConfiguration.keys.flatMap { table in
        table.keys.map { key in table.path.map { "\($0).\(key.name)" } ?? key.name }
    })

    func message(_ arguments: [String]) -> String {
        var c = LaminadConfiguration()
        do { try c.apply(arguments: arguments) } catch { return error.description }
        return "accepted"
    }

    /// config/laminad.toml shows every key, set or as a commented example, and no other.
    @Test func theShippedFileShowsEveryKey() throws {
        let text = try String(contentsOfFile: ConfigurationTests.shipped, encoding: .utf8)
        var table: String?
        var shown: Set<String> = []
        for raw in text.split(separator: "\n") {
            let line = raw.hasPrefix("# ") ? raw.dropFirst(2) : raw[...]
            if line.hasPrefix("[") {
                table = String(line.prefix { $0 != " " }.filter { $0 != "[" && $0 != "]" })
            } else if let match = line.firstMatch(of: #/^([a-z_]+) = /#) {
                shown.insert(table.map { "\($0).\(match.1)" } ?? String(match.1))
            }
        }
        #expect(Self.declared.subtracting(shown).isEmpty, "keys config/laminad.toml does not show")
        #expect(shown.subtracting(Self.declared).isEmpty, "keys config/laminad.toml shows that laminad does not know")
    }

    /// The README and docs/ name only keys that exist: `[table] key`, `[[table]]` and the budgets (`max_…`).
    @Test func theDocumentsNameOnlyKeys() throws {
        let root = TestPaths.repository
        let docs = try FileManager.default.contentsOfDirectory(atPath: root + "/docs").filter { $0.hasSuffix(".md") }.map { "docs/" + $0 }
        let tables = Set(LaminadConfiguration.keys.compactMap(\.path))
        let names = Set(LaminadConfiguration.keys.flatMap { $0.keys.map(\.name) })
        var unknown: [String] = []
        for file in ["README.md"] + docs {
            let text = try String(contentsOfFile: root + "/" + file, encoding: .utf8)
            for match in text.matches(of: /`\[([a-z_.]+)\] ([a-z_]+)`/) where !Self.declared.contains("\(match.1).\(match.2)") {
                unknown.append("\(file): \(match.0)")
            }
            for match in text.matches(of: /`\[\[?([a-z_.]+)\]\]?`/) where !tables.contains(String(match.1)) {
                unknown.append("\(file): \(match.0)")
            }
            for match in text.matches(of: /`(max_[a-z_]+)`/) where !names.contains(String(match.1)) {
                unknown.append("\(file): \(match.0)")
            }
        }
        #expect(unknown == [])
    }

    /// `laminad --list-keys` shows every key, and `--help` every flag.
    @Test func theListsShowEveryKeyAndFlag() {
        for table in LaminadConfiguration.keys {
            for key in table.keys {
                #expect(("\n" + LaminadConfiguration.keyList).contains("\n\(key.name): \(key.takes)"))
                if let flag = key.flag { #expect(LaminadConfiguration.commandLineHelp.contains("--\(flag.name)")) }
            }
        }
    }

    /// Flags go through the same keys as the file, over what the file says.
    @Test func theCommandLineWinsOverTheFile() throws {
        var c = try LaminadConfiguration.parse("""
            [display]
            refresh = 30
            size = "640x480"
            idle_blank = 60
            [kms]
            max_outputs = 2
            [limits]
            max_total_image_bytes = 65536
            """)
        try c.apply(arguments: ["--refresh", "75", "--size=96x64", "--legacy-kms", "--damage", "off", "--idle-blank", "0",
                                "--session-journal", "", "--socket", "/tmp/lamina-test.sock", "--clock", "virtual", "--log-level", "debug"])
        #expect(c.refreshRate == 75 && c.headlessSize.width == 96 && c.headlessSize.height == 64)
        #expect(c.kms.forceLegacy && c.kms.maxOutputs == 2 && !c.damageTracking && c.daemon.idleBlankSeconds == nil)
        #expect(c.virtualClock && c.logLevel == .debug && c.daemon.compositor.limits.maxTotalImageBytes == 65536)
        let options = c.daemonOptions
        #expect(options.socketPath == "/tmp/lamina-test.sock" && options.sessionJournal == nil && options.clock == .virtual)
        c.sessionJournal = nil
        c.virtualClock = false
        #expect(c.daemonOptions.sessionJournal == "/tmp/lamina-test.sessions" && c.daemonOptions.clock == .real(refreshRate: 75))
    }

    @Test func commandLineMistakesNameTheFlag() {
        #expect(message(["--refresh", "0"]) == "--refresh: must be in 1.0…1000.0 (got 0.0)")
        #expect(message(["--refresh", "fast"]) == "--refresh: must be a number (got 'fast')")
        #expect(message(["--backend", "drm"]) == "--backend: must be auto, kms or headless (got 'drm')")
        #expect(message(["--damage", "maybe"]) == "--damage: must be on or off (got 'maybe')")
        #expect(message(["--max-outputs", "-1"]) == "--max-outputs: must be in 0…64 (got -1)")
        #expect(message(["--size", "96x"]).hasPrefix("--size: must be WIDTHxHEIGHT"))
        #expect(message(["--size"]).hasPrefix("--size: needs a value"))
        #expect(message(["--legacy-kms=yes"]) == "--legacy-kms: takes no value")
        #expect(message(["--bogus", "1"]) == "unknown option '--bogus' (laminad --help lists them)")
        #expect(message(["stray"]) == "unexpected argument 'stray'")
    }

    @Test func socketOwnersAreUsersAndGroupsThatExist() throws {
        let c = try LaminadConfiguration.parse("[socket]\nowner = \"0\"\ngroup = \"root\"\n[security]\nprivileged_group = \"0\"\n")
        #expect(c.daemon.socketOwner == 0 && c.daemon.socketGroup == 0 && c.daemon.privilegedGroup == 0)
        #expect(throws: ConfigurationError(key: "security.privileged_group",
                                           "must be a group on this system, by name or number (got 'no-such-group-here')")) {
            try LaminadConfiguration.parse("[security]\nprivileged_group = \"no-such-group-here\"\n")
        }
    }
}
