/// The display's outputs (protocol 1.7): listing and changing them (privileged, as
/// `laminactl output` does), and following the display when laminad says it changed.
extension Connection {
    /// Every output laminad drives: its name, rectangle, scale, transform, mode, the modes it
    /// can show and its power. A privileged request.
    public func outputs() async throws -> (backend: String, outputs: [OutputState]) {
        try await outputRequest(name: "", .none)
    }

    /// Switches the output `name` to `mode` (a refresh of 0: any) and returns every output as
    /// it is afterwards. laminad resizes the display, fits every root layer to it and lays out
    /// what follows it; every 1.7 client is sent `display-changed`. Refused with the reason
    /// (an unknown name, a size out of range, a backend that cannot) as `LaminaError.server`.
    @discardableResult
    public func setOutputMode(_ name: String, _ mode: OutputMode) async throws -> (backend: String, outputs: [OutputState]) {
        try await outputRequest(name: name, .mode(mode))
    }

    /// Applies `change` to the output `name` (`laminactl output NAME transform|scale|position|
    /// enable|disable …`) and returns every output as it is afterwards. The display is laid
    /// out again as for a mode change, and input follows a new transform at once. Refused with
    /// the reason (an unknown name or transform, a scale out of 0.25…8, the last output
    /// disabled, a backend or driver that cannot) as `LaminaError.server`.
    @discardableResult
    public func configureOutput(_ name: String, _ change: OutputChange) async throws -> (backend: String, outputs: [OutputState]) {
        try await outputRequest(name: name, change)
    }

    /// Sets the backlight of the output `name` (nil: every output that has one) to `percent`
    /// of its range, 0 to 100 (0 is the dimmest lit level; blanking is `setDisplayPower`'s),
    /// as `laminactl display brightness` does. Refused with the reason (no backlight for that
    /// output, none at all, a brightness file laminad may not write) as `LaminaError.server`.
    @discardableResult
    public func setBrightness(_ percent: Double, output name: String? = nil) async throws -> (backend: String, outputs: [OutputState]) {
        try await outputRequest(name: name ?? "", .brightness(percent))
    }

    private func outputRequest(name: String, _ change: OutputChange) async throws -> (backend: String, outputs: [OutputState]) {
        try await connected()
        guard case let .outputs(backend, outputs) = try await channel.request(.output(name: name, change)) else {
            throw unexpected("output")
        }
        return (backend, outputs)
    }

    /// laminad's display changed (`display-changed`): `displaySize` and the root layer's
    /// bounds and position follow (laminad has fitted the root already, so nothing is sent
    /// back), the root is laid out again, and `onDisplayChange` is called.
    func displayChanged(_ layout: DisplayLayout) {
        displaySize = Size(width: Double(layout.width), height: Double(layout.height))
        displayLayout = layout
        rootLayer.takeFittedRoot(displayWidth: displaySize.width, displayHeight: displaySize.height)
        onDisplayChange(layout)
    }
}
