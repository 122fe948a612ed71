import LaminaCore
import LaminaProtocol

/// What the compositor asks of the platform that runs it: laminad's daemon, or a test's
/// harness. One protocol instead of a hook per call, so the seam reads in one place.
///
/// The host must not call back into the compositor from these methods: a connection it decides
/// to drop (a send over budget) is reported with `disconnected` later (laminad: after the
/// current event). The compositor never sends in the middle of walking its own state, so even
/// a host that does is safe, but nothing relies on it.
public protocol CompositorHost: AnyObject {
    /// Queues `bytes` (whole frames) for `client`.
    func send(_ bytes: [UInt8], to client: ClientID)
    /// Closes `client`'s connection once the bytes queued for it are sent.
    func close(_ client: ClientID)
    /// Whether the platform holds `client`'s frames back for now (laminad: its unread output
    /// is over budget); they stay queued and are handled by `handlePending` later.
    func isHeldBack(_ client: ClientID) -> Bool
    /// Counters the platform adds to `stats` (laminad: queued output, dropped connections).
    func platformStatistics() -> [Statistic]
    /// A named session changed (`Compositor.journalGeneration` moved): laminad schedules a
    /// journal write.
    func sessionsChanged()
    /// `client` changed a kept session and is about to be told so (its commit's `applied`
    /// reply, an `advance-clock` answer): the platform holds what it sends `client` from here
    /// on until the session journal holds `Compositor.journalGeneration` (laminad's group
    /// commit), so what a client was told is applied survives the process being killed.
    func acknowledgementAwaitsJournal(_ client: ClientID)
    /// An injected input event, to be routed as the platform routes its devices' events
    /// (laminad wakes a blanked display first, then calls `Compositor.handleInput`). Returns
    /// false where the platform has no routing of its own: the compositor routes it directly.
    func routeInjected(_ action: InputAction, origin: InputOrigin) -> Bool
    /// A key name translated through the keymap (laminad's xkbcommon keyboard); nil when the
    /// name is unknown. A host without a keymap leaves key injection refused.
    var hasKeymap: Bool { get }
    func keyAction(named name: String, pressed: Bool) -> InputAction?
    /// Turns the named output (nil: every output) off or on and returns every output's state
    /// afterwards; throws `UnknownOutput` for a name the backend does not have. Nil where the
    /// platform has no outputs to blank (headless): the request is answered with none.
    func displayPower(_ on: Bool, output: String?) throws -> [OutputPower]?
    /// An `output` request changed an output (`laminactl output NAME …`): laminad keeps the
    /// change across restarts (`OutputSettingsKeeper`).
    func outputChanged(_ change: OutputChange, output: String)
    /// Sets the backlight of output `output` (nil: every output that has one) to `percent`
    /// (0 to 100, checked): laminad through `/sys/class/backlight`. Throws `UnknownOutput` for
    /// a name the backend does not have and `OutputChangeRefused` saying why nothing was set
    /// (no backlight for that output, none at all, a file it may not write).
    func setBrightness(_ percent: Double, output: String?) throws
    /// A frame was drawn and handed to the outputs: what was committed before it is in it
    /// (laminad: Wayland surfaces' frame callbacks wait for it to be presented).
    func frameSubmitted()
    /// The frame submitted last is on screen (at once on headless, at the page flip on KMS) at
    /// `time`, seconds on the compositor's clock: on the real clock the page flip's own time
    /// (the kernel's vblank timestamp, CLOCK_MONOTONIC) or, shown at once, the frame's target;
    /// on the virtual clock the virtual time (laminad: Wayland apps' frame callbacks and
    /// presentation feedback carry it).
    func framePresented(at time: Double)
    /// The display's layout changed (outputs plugged, unplugged, resized, turned or scaled), or
    /// is told for the first time: laminad describes it to Wayland apps.
    func displayChanged(_ layout: DisplayLayout)
    /// Whether a client manages apps now (kiosk mode off) or none does any more (kiosk on).
    func appsManaged(_ managed: Bool)
    /// App windows to configure to these sizes (points), from the layers showing them.
    func sizeApps(_ sizes: [UInt32: Size])
    /// An input event for an app window, in its points (`AppInput`).
    func appInput(_ input: AppInput)
    /// A managing client asks app window `app` to close.
    func closeApp(_ app: UInt32)
}

/// The defaults describe a host with no budgets, statistics, journal, input routing, keymap or
/// outputs of its own (tests, benchmarks, the fuzzer).
extension CompositorHost {
    public func isHeldBack(_ client: ClientID) -> Bool { false }
    public func platformStatistics() -> [Statistic] { [] }
    public func sessionsChanged() {}
    public func acknowledgementAwaitsJournal(_ client: ClientID) {}
    public func routeInjected(_ action: InputAction, origin: InputOrigin) -> Bool { false }
    public var hasKeymap: Bool { false }
    public func keyAction(named name: String, pressed: Bool) -> InputAction? { nil }
    public func displayPower(_ on: Bool, output: String?) throws -> [OutputPower]? { nil }
    public func outputChanged(_ change: OutputChange, output: String) {}
    public func displayChanged(_ layout: DisplayLayout) {}
    public func setBrightness(_ percent: Double, output: String?) throws {
        throw OutputChangeRefused("no output has a backlight: this host drives none")
    }
    public func frameSubmitted() {}
    public func framePresented(at time: Double) {}
    public func appsManaged(_ managed: Bool) {}
    public func sizeApps(_ sizes: [UInt32: Size]) {}
    public func appInput(_ input: AppInput) {}
    public func closeApp(_ app: UInt32) {}
}
