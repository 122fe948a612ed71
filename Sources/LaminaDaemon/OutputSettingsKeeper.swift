import LaminaCompositor
import LaminaKMS
import LaminaPlatform
import LaminaProtocol
import Logging

/// The outputs' settings over laminad's life (issue 27): changes made at run time kept across
/// restarts while the configuration stays the same, and the configuration's `[[output]]`
/// settings applied again when SIGHUP says it changed.
///
/// - **At start** the headless backend takes its `[[output]]` entry (named "headless") as
///   changes (KMS reads its entries when it lights the outputs); then the changes kept in the
///   session journal's folder (`outputs`, an `OutputOverrides`) are made again if the
///   configuration file is the one they were made over, and forgotten if not.
/// - **A change by request** (`laminactl output NAME …`) is recorded and the file rewritten.
/// - **SIGHUP** reads the configuration file again, makes the changes that take the outputs from
///   what they are now (the old `[[output]]` settings with the changes made at run time) to what
///   the file says, and starts a new record over the new file.
///
/// Nothing here is kept where laminad has no session journal (`--session-journal ""`).
final class OutputSettingsKeeper {
    /// Its file in the session journal's folder, and the name it is written under first (the
    /// journal's writer leaves both alone).
    static let files: Set<String> = ["outputs", "outputs.new"]

    private let compositor: Compositor
    private let logger: Logger
    private let configurationFile: String?
    /// Where the overrides are kept; nil: nowhere.
    private let path: String?
    /// The `[[output]]` settings laminad runs with now.
    private var outputs: [OutputConfiguration]
    private var overrides: OutputOverrides

    init(compositor: Compositor, options: Daemon.Options, logger: Logger) {
        self.compositor = compositor
        self.logger = logger
        configurationFile = options.configurationFile
        path = options.sessionJournal.map { $0 + "/outputs" }
        outputs = options.outputs
        let base = Self.fingerprint(configurationFile, backend: compositor.backend.name)
        overrides = OutputOverrides(base: base)
        if compositor.backend.name == "headless" {
            apply(OutputOverrides.changes(from: [], to: outputs.filter { $0.name == "headless" }), why: "configuration")
        }
        restore(base: base)
    }

    /// The configuration file's fingerprint (an absent or unreadable one counts as empty).
    private static func fingerprint(_ file: String?, backend: String) -> UInt64 {
        let bytes = file.flatMap { try? Files.read($0, limit: 16 << 20) } ?? []
        return OutputOverrides.fingerprint(of: bytes, backend: backend)
    }

    private func restore(base: UInt64) {
        guard let path, let bytes = try? Files.read(path, limit: 1 << 20) else { return }
        do {
            let kept = try OutputOverrides.decode(String(decoding: bytes, as: UTF8.self))
            guard kept.base == base else {
                logger.notice("outputs: the configuration changed since the outputs were changed at run time; its settings apply")
                _ = Files.remove(path)
                return
            }
            for c in kept.changes {
                do {
                    if try compositor.configureOutput(c.output, c.change) { logger.notice("outputs: \(c.output) \(c.change.description) (kept from before the restart)") }
                    overrides.record(c.change, output: c.output)
                } catch {
                    logger.warning("outputs: \(c.output) \(c.change.description), kept from before the restart, is not possible now: \(error)")
                }
            }
        } catch {
            logger.error("outputs: \(path) is unreadable (\(error)); starting from the configuration")
            _ = Files.remove(path)
        }
    }

    /// A change made by request: kept for the next start.
    func record(_ change: OutputChange, output: String) {
        overrides.record(change, output: output)
        write()
    }

    /// SIGHUP: the configuration file's `[[output]]` settings, read again, applied where they
    /// differ from those laminad runs with; changes made at run time are forgotten.
    func reload() {
        guard let configurationFile else {
            logger.notice("SIGHUP: laminad was started without --config; there is no configuration to read again")
            return
        }
        let fresh: LaminadConfiguration
        do {
            fresh = try LaminadConfiguration.load(path: configurationFile)
        } catch {
            logger.error("SIGHUP: \(configurationFile): \(error); the outputs stay as they are")
            return
        }
        let new = fresh.kms.outputs
        // From what the outputs are now (the changes made at run time included) to what the
        // file says.
        let differences = OutputOverrides.changes(from: overrides.applied(to: outputs), to: new)
        logger.notice("SIGHUP: \(configurationFile) read again: \(differences.changes.isEmpty ? "no output settings changed" : "\(differences.changes.count) output changes")")
        for note in differences.notes { logger.notice("SIGHUP: \(note)") }
        apply(differences, why: "SIGHUP")
        outputs = new
        overrides = OutputOverrides(base: Self.fingerprint(configurationFile, backend: compositor.backend.name))
        write()
    }

    private func apply(_ differences: (changes: [OutputOverrides.Change], notes: [String]), why: String) {
        for c in differences.changes {
            do {
                try compositor.configureOutput(c.output, c.change)
            } catch {
                logger.error("\(why): output \(c.output) \(c.change.description): \(error)")
            }
        }
    }

    /// Writes the overrides (none: the file goes).
    private func write() {
        guard let path else { return }
        if overrides.changes.isEmpty {
            _ = Files.remove(path)
            return
        }
        do {
            try Files.writeAtomically(path, Array(overrides.encoded().utf8))
        } catch {
            logger.error("outputs: \(path): \(error); run-time output changes will not survive a restart")
        }
    }
}
