import LaminaCore
import LaminaPlatform
import LaminaProtocol
import LaminaCompositor
import Logging

/// The backlights of laminad's outputs (`laminactl display brightness`, `stats`' `backlight.*`,
/// idle dimming): found afresh for each use in `sysfs` (`BacklightChoice`), so a hotplugged
/// output or a driver loaded late is seen without a restart. Nothing here is fatal: a missing
/// or unwritable backlight is an error for the request that wanted it, and a log line.
final class OutputBacklights: DimmableBacklights {
    private unowned let compositor: Compositor
    let sysfs: SysfsBacklights
    private let logger: Logger

    init(compositor: Compositor, sysfs: SysfsBacklights, logger: Logger) {
        self.compositor = compositor
        self.sysfs = sysfs
        self.logger = logger
    }

    /// Each output that has a backlight, with it, in the backend's order. One that cannot be
    /// read is logged and left out.
    func backlights() -> [(output: String, backlight: Backlight)] {
        let names = compositor.backend.outputNames
        var found: [(output: String, backlight: Backlight)] = []
        for name in names {
            do {
                guard let b = try sysfs.backlight(for: name, soleOutput: names.count == 1),
                      !found.contains(where: { $0.backlight.directory == b.directory }) else { continue }
                found.append((name, b))
            } catch {
                logger.warning("backlight of \(name): \(error)")
            }
        }
        return found
    }

    /// Sets `output`'s backlight (nil: every output's that has one) to `percent`. Throws
    /// `UnknownOutput`, or `OutputChangeRefused` naming what is missing or which file refused.
    func setBrightness(_ percent: Double, output: String?) throws {
        let names = compositor.backend.outputNames
        if let output, !names.contains(output) {
            throw UnknownOutput(name: output, known: names, backend: compositor.backend.name)
        }
        let targets: [(output: String, backlight: Backlight)]
        if let output {
            let b: Backlight?
            do { b = try sysfs.backlight(for: output, soleOutput: names.count == 1) } catch {
                throw OutputChangeRefused("the backlight of output \(output): \(error)")
            }
            guard let b else {
                throw OutputChangeRefused("no backlight for output \(output) (none in \(sysfs.root)/class/backlight belongs to it)")
            }
            targets = [(output, b)]
        } else {
            targets = backlights()
            guard !targets.isEmpty else {
                throw OutputChangeRefused("no output has a backlight (outputs: \(names.isEmpty ? "none" : names.joined(separator: ", ")); none in \(sysfs.root)/class/backlight belongs to them)")
            }
        }
        var failures: [String] = []
        for (name, b) in targets {
            do { try b.setPercent(percent) } catch { failures.append("\(name): \(error)") }
        }
        guard failures.isEmpty else { throw OutputChangeRefused(failures.joined(separator: "; ")) }
    }

    /// `backlight.OUTPUT`: each backlight's level in percent of its range.
    var statistics: [Statistic] {
        backlights().compactMap { o in
            (try? o.backlight.percent()).map { Statistic(name: "backlight.\(o.output)", value: ($0 * 100).rounded() / 100) }
        }
    }

    // MARK: DimmableBacklights

    func levels() -> [String: Int] {
        var levels: [String: Int] = [:]
        for (name, b) in backlights() {
            do { levels[name] = try b.level() } catch { logger.warning("backlight of \(name): \(error)") }
        }
        return levels
    }

    func setLevel(_ level: Int, output: String) throws {
        guard let b = backlights().first(where: { $0.output == output })?.backlight else { return }
        try b.setLevel(level)
    }
}
