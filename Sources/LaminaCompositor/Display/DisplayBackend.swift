import LaminaCore
import LaminaProtocol

/// A place frames go: the headless framebuffers, or the displays of a DRM device (wlroots'
/// `wlr_backend`, made small). It hands out its `outputs` (`Output`), which the frame step
/// draws one by one, and does what concerns all of them: the one commit that shows their
/// frames together (`beginCommit`/`flushCommit`, weston's `repaint_begin`/`repaint_flush`),
/// the event descriptor, the session and the cursor. It does not draw: the renderer belongs
/// to the frame step (`FramePresenter`), and the daemon wires the two.
public protocol DisplayBackend: AnyObject {
    /// "headless" or "kms".
    var name: String { get }
    /// One line for logs: the device and its outputs.
    var summary: String { get }
    /// The desktop's size in points: the extent of the outputs (KMS keeps the last one while
    /// no display is connected).
    var width: Int { get }
    var height: Int { get }
    /// The outputs, lit or blanked, in desktop order (none while no display is connected).
    var outputs: [any Output] { get }
    /// False while the session is switched away (a VT switch, a disabled seat): nothing may
    /// be drawn or committed, and frames are dropped.
    var isActive: Bool { get }

    /// Starts a frame's commits: the outputs' `commit(damage:)` calls until `flushCommit` are
    /// gathered.
    func beginCommit()
    /// Shows what the outputs committed since `beginCommit`: with atomic modesetting in ONE
    /// commit, so the outputs change on the same refresh (one output after another where the
    /// driver refuses that, or with legacy modesetting).
    func flushCommit() throws
    /// A descriptor the event loop watches for the backend's events (KMS: page flips and
    /// hotplug), or nil for a backend that has none. When it is readable, call `dispatchEvents`.
    var eventDescriptor: Int32? { get }
    /// Handles what is pending on `eventDescriptor` without blocking.
    func dispatchEvents() throws -> BackendEvents

    /// Whether frames redraw only what changed (`laminad --damage on`, the default) or every
    /// pixel (`--damage off`).
    var damageTracking: Bool { get set }

    /// Whether each output gets its own root layer (the "separate" layout,
    /// `ModelTree.outputRoots`) rather than showing its part of one desktop.
    var outputsHaveOwnRoots: Bool { get }
    /// Whether outputs can be blanked and lit (`display off|on`, idle blanking).
    var canSetPower: Bool { get }
    /// Called with false when the session is taken away (a VT switch, a disabled seat) before
    /// the devices are given up, and with true when it is back: the daemon suspends and resumes
    /// input devices with it. Headless has no session and never calls it.
    var onSessionActiveChange: ((_ active: Bool) -> Void)? { get set }
    /// Shows the pointer's cursor with its hot spot at `position` (display/layout points), or
    /// hides it (nil); a backend without a cursor ignores it. Returns true when a frame must be
    /// drawn to show the change (a cursor the renderer draws), false when it showed at once.
    @discardableResult
    func setCursor(_ position: Point?) -> Bool
    /// The seat or VT the display is held through, which input devices and VT switches go
    /// through too; nil where there is none (headless).
    var session: (any DisplaySession)? { get }
    /// The DRM device the display is on (KMS: its descriptor, which the backend keeps open),
    /// where apps allocate the dma-bufs they share with laminad; nil without one (headless).
    var drmDevice: Int32? { get }
    /// Applies `change` to the named output (`laminactl output NAME mode|transform|scale|
    /// position|enable|disable …`): all of it or nothing. The caller has checked the values
    /// (a size, a known transform, a scale in range, not the last output disabled). Throws
    /// `OutputChangeRefused` with the reason where the backend or the driver will not, and
    /// `UnknownOutput` for a name it does not have. Afterwards the caller handles the change as
    /// a hotplug (`Compositor.outputsReconfigured`).
    func configure(_ change: OutputChange, output name: String) throws
}

/// An output change (`laminactl output NAME …`) the backend or the driver refused.
public struct OutputChangeRefused: Error, CustomStringConvertible {
    public var reason: String
    public init(_ reason: String) { self.reason = reason }
    public var description: String { reason }
}

/// How a backend holds the display: through a libseat seat, or a VT taken directly (root).
/// The daemon opens input devices and switches VTs through it.
public protocol DisplaySession: AnyObject {
    /// The seat's name where devices are opened through libseat; nil where they are opened
    /// directly (root, no seat manager).
    var seatName: String? { get }
    /// Opens an input device through the seat; returns its descriptor and the seat's number
    /// for it (for `closeDevice`). Only where `seatName` is not nil.
    func openDevice(_ path: String) throws -> (fd: Int32, id: Int32)
    /// Closes a device `openDevice` opened.
    func closeDevice(_ id: Int32)
    /// Switches to VT `n` (Ctrl+Alt+Fn once the console no longer reads the keyboard).
    func switchVT(_ n: Int32) throws
    /// Stops the console of the VT held directly from reading the keyboard, once laminad reads
    /// it itself; under a seat manager the seat does this. Logged, never fatal.
    func takeConsoleKeyboard()
}

/// A backend without displays to blank was asked to.
public struct PowerUnsupported: Error, CustomStringConvertible {
    public var backend: String
    public init(backend: String) { self.backend = backend }
    public var description: String { "display power needs the KMS backend; this daemon runs \(backend)" }
}

/// A screenshot was asked for where none can be made from what was shown.
public struct ScreenshotUnavailable: Error, CustomStringConvertible {
    public var reason: String
    public init(reason: String) { self.reason = reason }
    public var description: String { reason }
}

/// What a backend reports after handling the events on its `eventDescriptor`.
public struct BackendEvents: Sendable, Equatable {
    /// A frame reached the screen of `output` at `time`, in seconds of CLOCK_MONOTONIC (the
    /// page-flip event's time, or when the event was read where the device gives no real
    /// vblank time).
    public struct Presentation: Sendable, Equatable {
        public var output: String
        public var time: Double
        public init(output: String, time: Double) {
            self.output = output
            self.time = time
        }
    }
    /// Each output's frames that reached the screen since the last call, oldest first.
    public var presented: [Presentation]
    /// Why the outputs must be drawn again though nothing in the tree changed: a display was
    /// connected or changed mode (`hotplug`), or was turned back on (`outputRelit`).
    public var reasons: Set<RepaintReason>

    public init(presented: [Presentation] = [], reasons: Set<RepaintReason> = []) {
        self.presented = presented
        self.reasons = reasons
    }
}

/// The defaults describe a backend whose outputs show frames at once (headless): no events,
/// no session, nothing to gather into one commit.
extension DisplayBackend {
    public var summary: String { "\(name) \(width)x\(height)" }
    public var isActive: Bool { true }
    public func beginCommit() {}
    public func flushCommit() throws {}
    public var eventDescriptor: Int32? { nil }
    public func dispatchEvents() throws -> BackendEvents { BackendEvents() }
    public var outputsHaveOwnRoots: Bool { false }
    public var canSetPower: Bool { false }
    public var onSessionActiveChange: ((_ active: Bool) -> Void)? {
        get { nil }
        set {}
    }
    @discardableResult
    public func setCursor(_ position: Point?) -> Bool { false }
    public var session: (any DisplaySession)? { nil }
    public var drmDevice: Int32? { nil }
    public func configure(_ change: OutputChange, output name: String) throws {
        throw OutputChangeRefused("the \(self.name) backend cannot change an output at run time (\(change.description))")
    }
}

/// What the daemon and the compositor read of the outputs, all outputs together.
extension DisplayBackend {
    /// The outputs' names, in desktop order.
    public var outputNames: [String] { outputs.map(\.name) }

    /// Each output's place in the desktop and its transform, in desktop order, for mapping
    /// touchscreens and pointers onto the desktop.
    public var outputPlacements: [OutputPlacement] { outputs.map(\.placement) }

    /// Every output and whether it shows (false while blanked), in desktop order.
    public var outputPower: [(name: String, isOn: Bool)] { outputs.map { ($0.name, $0.isOn) } }

    /// Each lit output that the repaint planner paces, with its refresh period: those with a
    /// refresh (none on headless, whose frames show at once), while the session is active.
    public var pagedOutputs: [(name: String, refreshInterval: Double)] {
        guard isActive else { return [] }
        return outputs.compactMap { o in o.isOn ? o.refreshInterval.map { (o.name, $0) } : nil }
    }

    /// True while some output's frame has not reached the screen yet.
    public var isFramePending: Bool { outputs.contains { $0.isFramePending } }

    /// Under the separate layout, each output's rectangle in the desktop by name (the
    /// compositor's output roots); empty under one desktop.
    public var outputRoots: [String: Rect] {
        guard outputsHaveOwnRoots else { return [:] }
        var roots: [String: Rect] = [:]
        for o in outputs { roots[o.name] = o.layoutRect }
        return roots
    }

    /// The display as the `display-changed` message tells it.
    public var displayLayout: DisplayLayout {
        DisplayLayout(width: UInt32(max(0, width)), height: UInt32(max(0, height)), outputs: outputs.map {
            DisplayLayout.Output(name: $0.name, frame: $0.layoutRect, scale: $0.scale, transform: $0.transform.rawValue,
                                 refresh: $0.refreshInterval.map { 1 / $0 } ?? 0)
        })
    }

    /// What the outputs' frames drew, all outputs together.
    public var damageStatistics: DamageStatistics {
        outputs.reduce(into: DamageStatistics()) { $0.add($1.damageStatistics) }
    }

    /// Blanks (`on` false) or lights the named output, or every output; returns the names it
    /// changed. A lit output shows the next frame, which the caller should draw even if nothing
    /// changed. Throws `PowerUnsupported` on a backend without outputs to blank and
    /// `UnknownOutput` for a name it does not have.
    @discardableResult
    public func setPower(_ on: Bool, output name: String? = nil) throws -> [String] {
        guard canSetPower else { throw PowerUnsupported(backend: self.name) }
        if let name, !outputs.contains(where: { $0.name == name }) {
            throw UnknownOutput(name: name, known: outputNames, backend: self.name)
        }
        var changed: [String] = []
        for output in outputs where (name == nil || output.name == name) && output.isOn != on {
            try output.setPower(on)
            changed.append(output.name)
        }
        return changed
    }
}
