import LaminaCore
import LaminaProtocol

/// Outputs changed at run time (`laminactl output`): the `output` request lists them or asks
/// the backend for a change; the change then goes the way a hotplug does (`handle(_:)`: the
/// display resizes, roots follow, layout animates, the repaint loop paces the new outputs),
/// and every 1.7 client is told the new layout (`display-changed`).
extension Compositor {
    /// The largest width or height, in pixels, an output's mode may be given.
    public static let maximumOutputDimension: UInt32 = 8192

    /// Lists the outputs, or applies `change` to the output `name`, and answers with every
    /// output as it is afterwards.
    func outputRequest(name: String, _ change: OutputChange) throws -> Reply {
        switch change {
        case .none:
            if !name.isEmpty { _ = try output(named: name) }
        case .brightness(let percent):
            try setBrightness(percent, output: name)
        default:
            if try configureOutput(name, change) { host?.outputChanged(change, output: name) }
        }
        return .outputs(backend: backend.name, backend.outputs.map(\.state))
    }

    /// Applies `change` to the output `name` as the `output` request does (laminad also at start
    /// and at SIGHUP, from its configuration): checked, applied by the backend, then laid out
    /// as a hotplug. Returns false where the output already was so. Throws `RequestRefused`
    /// naming what was wrong, or `UnknownOutput`.
    @discardableResult
    public func configureOutput(_ name: String, _ change: OutputChange) throws -> Bool {
        if case .none = change { return false }
        // An output left dark is not among the backend's outputs: the backend knows its name.
        let lightsDarkOutput = change == .enabled(true) && !name.isEmpty && !backend.outputNames.contains(name)
        if !lightsDarkOutput {
            guard try check(change, for: try output(named: name)) else { return false }
        }
        do {
            try backend.configure(change, output: name)
        } catch let refused as OutputChangeRefused {
            throw RequestRefused(.invalidRequest, "\(name): \(refused.reason)")
        }
        logger.notice("output \(name): \(change.description)")
        outputsReconfigured()
        return true
    }

    /// Sets output `name`'s backlight (every output's that has one when `name` is empty) through
    /// the host: nothing is laid out again, and nothing is kept across restarts (the kernel
    /// keeps the level; systemd-backlight restores it at boot).
    private func setBrightness(_ percent: Double, output name: String) throws {
        guard percent.isFinite, (0...100).contains(percent) else {
            throw RequestRefused(.invalidRequest, "brightness \(percent) is out of range: give a percentage from 0 to 100")
        }
        guard let host else { throw RequestRefused(.invalidRequest, "no output has a backlight: nothing drives one here") }
        do {
            try host.setBrightness(percent, output: name.isEmpty ? nil : name)
        } catch let refused as OutputChangeRefused {
            throw RequestRefused(.invalidRequest, refused.reason)
        }
        logger.notice("output \(name.isEmpty ? "every backlight" : name): brightness \(percent) %")
    }

    /// The backend's outputs changed by request: handled as a hotplug.
    public func outputsReconfigured() {
        handle(BackendEvents(reasons: [.hotplug]))
    }

    /// Tells every client of protocol 1.7 or later the display's layout where it differs from
    /// the one last told (or given at welcome). Called after the outputs changed.
    func announceDisplay() {
        let layout = backend.displayLayout
        guard layout != announcedDisplay else { return }
        announcedDisplay = layout
        host?.displayChanged(layout)
        guard !layout.outputs.isEmpty else { return }
        let frame = ServerMessage.displayChanged(layout).encoded()
        // Over a copy of the client list: a send that overflows a queue drops that client.
        for (c, s) in Array(sessions) where s.state == .ready && s.minor >= 7 {
            guard sessions[c]?.state == .ready else { continue }
            send(c, frame)
        }
    }

    private func output(named name: String) throws -> any Output {
        guard !name.isEmpty else {
            throw RequestRefused(.invalidRequest, "an output change needs the output's name (outputs: \(backend.outputNames.joined(separator: ", ")))")
        }
        guard let output = backend.outputs.first(where: { $0.name == name }) else {
            throw UnknownOutput(name: name, known: backend.outputNames, backend: backend.name)
        }
        return output
    }

    /// Whether `change` changes `output` (false: it is so already), or throws why it is refused.
    private func check(_ change: OutputChange, for output: any Output) throws -> Bool {
        let name = output.name
        switch change {
        case .none, .brightness:
            return false
        case .mode(let mode):
            let limit = Self.maximumOutputDimension
            guard (1...limit).contains(mode.width), (1...limit).contains(mode.height) else {
                throw RequestRefused(.invalidRequest, "\(name): mode \(mode.width)x\(mode.height) is out of range: width and height must each be 1 to \(limit) pixels")
            }
            guard mode.refresh.isFinite, mode.refresh >= 0, mode.refresh <= 1000 else {
                throw RequestRefused(.invalidRequest, "\(name): refresh \(mode.refresh) Hz is out of range: give 0 (any) or up to 1000 Hz")
            }
            return mode != output.currentMode
        case .transform(let text):
            guard let transform = OutputTransform(rawValue: text) else {
                throw RequestRefused(.invalidRequest, "\(name): unknown transform '\(text)' (transforms: \(OutputTransform.allCases.map(\.rawValue).joined(separator: ", ")))")
            }
            return transform != output.transform
        case .scale(let scale):
            guard scale.isFinite, (Self.outputScales).contains(scale) else {
                throw RequestRefused(.invalidRequest, "\(name): scale \(scale) is out of range: give \(Self.outputScales.lowerBound) to \(Self.outputScales.upperBound) pixels per point")
            }
            return scale != output.scale
        case let .position(x, y):
            let limit = Int32(Self.maximumOutputPosition)
            guard (0...limit).contains(x), (0...limit).contains(y) else {
                throw RequestRefused(.invalidRequest, "\(name): position \(x),\(y) is out of range: each must be 0 to \(limit) points")
            }
            return Point(x: Double(x), y: Double(y)) != output.layoutRect.origin
        case .enabled(let on):
            if on { return false }
            guard backend.outputs.contains(where: { $0.name != name }) else {
                throw RequestRefused(.invalidRequest, "\(name) is the only output: disabling it would leave laminad nothing to draw on")
            }
            return true
        }
    }

    /// The pixels per point an output may be given (as laminad.toml's [[output]] scale).
    public static let outputScales: ClosedRange<Double> = 0.25...8
    /// The largest x or y, in points, an output's top-left corner may be moved to.
    public static let maximumOutputPosition = 16384
}
