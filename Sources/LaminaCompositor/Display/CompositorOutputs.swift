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
        case .mode(let mode):
            let output = try output(named: name)
            try check(mode, for: output.name)
            guard mode != output.currentMode else { break }
            do {
                try backend.setMode(mode, output: output.name)
            } catch let refused as OutputChangeRefused {
                throw RequestRefused(.invalidRequest, "\(output.name): \(refused.reason)")
            }
            logger.notice("output \(output.name): mode \(mode) asked for")
            outputsReconfigured()
        }
        return .outputs(backend: backend.name, backend.outputs.map(\.state))
    }

    /// The backend's outputs changed by request (a mode): handled as a hotplug.
    public func outputsReconfigured() {
        handle(BackendEvents(reasons: [.hotplug]))
    }

    /// Tells every client of protocol 1.7 or later the display's layout where it differs from
    /// the one last told (or given at welcome). Called after the outputs changed.
    func announceDisplay() {
        let layout = backend.displayLayout
        guard layout != announcedDisplay else { return }
        announcedDisplay = layout
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

    private func check(_ mode: OutputMode, for name: String) throws {
        let limit = Self.maximumOutputDimension
        guard (1...limit).contains(mode.width), (1...limit).contains(mode.height) else {
            throw RequestRefused(.invalidRequest, "\(name): mode \(mode.width)x\(mode.height) is out of range: width and height must each be 1 to \(limit) pixels")
        }
        guard mode.refresh.isFinite, mode.refresh >= 0, mode.refresh <= 1000 else {
            throw RequestRefused(.invalidRequest, "\(name): refresh \(mode.refresh) Hz is out of range: give 0 (any) or up to 1000 Hz")
        }
    }
}
