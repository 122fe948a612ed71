import LaminaCompositor

/// How the KMS backend picks its device and lays out its outputs (the `[kms]` and `[[output]]`
/// tables of laminad.toml).
public struct KMSConfiguration: Sendable {
    /// The card to open; nil picks the first card with a connected connector that can be mastered.
    public var devicePath: String?
    /// Use SetCrtc/PageFlip even where atomic modesetting works. `LAMINA_KMS_NO_ATOMIC=1` forces it too.
    public var forceLegacy = false
    /// Outputs by connector name; connectors not listed get their preferred mode, placed left
    /// to right after the listed ones.
    public var outputs: [OutputConfiguration] = []
    /// The most outputs lit at once.
    public var maxOutputs = 8
    /// The desktop size while no display is connected.
    public var fallbackSize = (width: 1280, height: 720)
    /// One virtual desktop, or a root per output.
    public var layout = Layout.desktop
    /// What becomes of the picture on the displays at start and of the last frame at exit
    /// (`[boot]`; the compositor fades the picture, this backend takes the CRTCs over).
    public var boot = BootSettings()

    /// How outputs share the clients' layer trees.
    public enum Layout: String, Sendable, CaseIterable {
        /// All outputs show parts of one desktop, at their positions in it.
        case desktop
        /// Each output has its own root: a top-level layer named after the output (its
        /// connector name) is placed in that output's coordinates.
        case separate
    }

    /// How the card is opened: through a seat manager (libseat: seatd or logind, for an
    /// ordinary user) or directly (root on a dedicated kiosk).
    public var session = SessionKind.auto
    /// Show a cursor (an arrow). Off by default: a kiosk shows none.
    public var cursor = false
    /// Where the cursor's tip shows, in desktop points; nil puts it at the first output's centre.
    public var cursorPosition: (x: Int, y: Int)?
    /// The virtual terminal to show on when the card is opened directly (tty`N`); nil takes
    /// the active one.
    public var virtualTerminal: Int32?

    /// How the KMS backend gets the card.
    public enum SessionKind: String, Sendable, CaseIterable {
        /// libseat when a seat manager is reachable (seatd's socket, a logind session), falling
        /// back to opening the card directly (which needs root or the card's permissions).
        case auto
        /// libseat only (any of its backends, including its built-in seatd when root).
        case libseat
        /// Open the card directly; no seat, no VT-switch notifications.
        case direct
    }

    public init() {}

    /// The configuration for connector `name`, or the defaults.
    public func output(named name: String) -> OutputConfiguration {
        outputs.first { $0.name == name } ?? OutputConfiguration(name: name)
    }
}

/// One output's settings.
public struct OutputConfiguration: Sendable, Equatable {
    /// The connector: "Virtual-1", "HDMI-A-1", "eDP-1".
    public var name: String
    /// False leaves the connector dark.
    public var enabled = true
    /// The mode; nil takes the connector's preferred mode.
    public var mode: ModeRequest?
    /// The top-left corner in the desktop, in points; nil places the output right of the others.
    public var position: (x: Int, y: Int)?
    /// Pixels per point.
    public var scale = 1.0
    /// How the picture is turned on the panel.
    public var transform = OutputTransform.normal

    public init(name: String, enabled: Bool = true, mode: ModeRequest? = nil, position: (x: Int, y: Int)? = nil,
                scale: Double = 1, transform: OutputTransform = .normal) {
        self.name = name
        self.enabled = enabled
        self.mode = mode
        self.position = position
        self.scale = scale
        self.transform = transform
    }

    public static func == (a: OutputConfiguration, b: OutputConfiguration) -> Bool {
        a.name == b.name && a.enabled == b.enabled && a.mode == b.mode && a.position?.x == b.position?.x
            && a.position?.y == b.position?.y && a.scale == b.scale && a.transform == b.transform
    }
}
