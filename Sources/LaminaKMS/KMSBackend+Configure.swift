import LaminaCore
import LaminaCompositor
import LaminaProtocol

/// Outputs changed at run time (`laminactl output NAME mode|transform|scale|position|enable|
/// disable …`): the output's settings change in the configuration, and the output is made
/// again from them as a hotplug makes one (a new GBM surface of the mode's size, the modeset
/// with its first frame). Where the output cannot be made with the new settings, the old ones
/// come back and the change is refused.
extension KMSBackend {
    public func configure(_ change: OutputChange, output name: String) throws {
        let resources = try drm.resources()
        guard let connector = resources.connected.first(where: { $0.name == name }) else {
            throw UnknownOutput(name: name, known: resources.connected.map(\.name), backend: self.name)
        }
        let index = lit.firstIndex { $0.name == name }
        let before = configuration.output(named: name)
        var settings = before
        if let index {
            // Its place stays unless changed (one placed after the others keeps where it is).
            settings.position = lit[index].origin
        }
        switch change {
        case .none:
            return
        case .mode(let m):
            let wanted = ModeRequest(width: Int(m.width), height: Int(m.height), refreshRate: m.refresh > 0 ? m.refresh : nil)
            guard wanted.best(of: connector.modes) != nil else {
                let offered = Set(connector.modes.map { "\($0.width)x\($0.height)" }).sorted()
                throw OutputChangeRefused("the display has no mode \(wanted) (it offers \(offered.joined(separator: ", ")))")
            }
            settings.mode = wanted
        case .transform(let text):
            guard let transform = OutputTransform(rawValue: text) else { throw OutputChangeRefused("unknown transform '\(text)'") }
            settings.transform = transform
        case .scale(let scale):
            settings.scale = scale
        case let .position(x, y):
            settings.position = (Int(x), Int(y))
        case .enabled(let on):
            guard on != (index != nil) else { return }
            settings.enabled = on
            if on, lit.count >= configuration.maxOutputs {
                throw OutputChangeRefused("\(lit.count) outputs are lit, the most [kms] max_outputs allows")
            }
        }
        try waitForFlips(timeout: 1)
        setSettings(settings)
        if let index {
            try? committer.disable(lit[index].target)
            lit.remove(at: index)
        }
        if settings.enabled {
            guard let output = makeOutput(connector, resources: resources, taken: lit) else {
                // Back as it was: the old settings, the old output made again.
                setSettings(before)
                if index != nil, let old = makeOutput(connector, resources: resources, taken: lit) {
                    lit.insert(old, at: min(index ?? lit.count, lit.count))
                }
                relayOut()
                throw OutputChangeRefused("the display could not be set up with \(change.description) (laminad's log says why)")
            }
            lit.insert(output, at: min(index ?? lit.count, lit.count))
        }
        relayOut()
    }

    /// Replaces the configuration's entry for `settings.name` (or adds one).
    private func setSettings(_ settings: OutputConfiguration) {
        if let i = configuration.outputs.firstIndex(where: { $0.name == settings.name }) {
            configuration.outputs[i] = settings
        } else {
            configuration.outputs.append(settings)
        }
    }

    /// The desktop's extent, the cursor and a frame after outputs changed.
    private func relayOut() {
        if let extent = Self.desktopExtent(lit), extent.width != width || extent.height != height {
            logger.notice("kms: desktop \(width)x\(height) → \(extent.width)x\(extent.height)")
            (width, height) = extent
        }
        placeCursor()
        repaint(.hotplug)
    }
}
