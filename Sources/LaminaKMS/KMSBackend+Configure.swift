import LaminaCore
import LaminaCompositor
import LaminaProtocol

/// Outputs changed at run time (`laminactl output NAME mode|transform|scale|position|enable|
/// disable …`): the output's settings change in the configuration, and the output is made
/// again from them as a hotplug makes one (a new GBM surface of the mode's size, the modeset
/// with its first frame). The new output is made and the driver asked (a TEST_ONLY modeset of
/// the new mode with a probe buffer, where modesetting is atomic) while the old one still
/// shows; where the driver refuses, or the output cannot be made, nothing changes and the
/// change is refused with the reason.
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
        case .brightness:
            throw OutputChangeRefused("brightness is the output's backlight's, not the display's: laminad sets it through /sys/class/backlight")
        case .enabled(let on):
            guard on != (index != nil) else { return }
            settings.enabled = on
            if on, lit.count >= configuration.maxOutputs {
                throw OutputChangeRefused("\(lit.count) outputs are lit, the most [kms] max_outputs allows")
            }
        }
        try waitForFlips(timeout: 1)
        // The new output is made and the driver asked while the old one still shows: a refusal
        // leaves the screen as it was.
        let others = lit.filter { $0.name != name }
        var made: KMSOutput?
        if settings.enabled {
            setSettings(settings)
            guard let output = makeOutput(connector, resources: resources, taken: others) else {
                setSettings(before)
                throw OutputChangeRefused("the display could not be set up with \(change.description) (laminad's log says why)")
            }
            // The driver's answer before the change is taken: a TEST_ONLY modeset (atomic).
            do {
                let probe = try ProbeFramebuffer(drm: drm, width: output.mode.width, height: output.mode.height)
                _ = try committer.testModeset(output.target, framebuffer: probe.id)
            } catch {
                setSettings(before)
                throw OutputChangeRefused("the driver will not show \(output.mode) with \(change.description): \(error)")
            }
            made = output
        } else {
            setSettings(settings)
        }
        if let index {
            let old = lit.remove(at: index)
            // What the CRTC showed before laminad (restored at exit) stays the old output's.
            if let made, made.target.crtc == old.target.crtc { made.saved = old.saved }
            if made?.target.crtc != old.target.crtc { try? committer.disable(old.target) }
        }
        if let made { lit.insert(made, at: min(index ?? lit.count, lit.count)) }
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
