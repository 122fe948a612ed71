import LaminaCore

/// What laminad does with the picture a display already shows when it starts (a boot splash,
/// a logo, the console), and with its own last frame when it exits: the `[boot]` table.
public struct BootSettings: Sendable, Equatable {
    /// What happens to the picture found on a display at start.
    public enum Handoff: String, Sendable, CaseIterable {
        /// It stays as the desktop's background, under the scene, for as long as laminad runs.
        case keep
        /// It shows until the first frame that draws a client's layers, then crossfades to the
        /// scene over `fadeSeconds`.
        case fade
        /// Not taken over: the first frame modesets (the display may go dark for a moment).
        case off
    }

    /// What laminad leaves on the displays when it exits.
    public enum OnExit: String, Sendable, CaseIterable {
        /// Its last frame: its framebuffer outlives it (Linux 6.8's CLOSEFB), or, before that,
        /// the frame is copied into the console's framebuffer, which is put back (see
        /// docs/architecture.md, "Boot handoff").
        case keep
        /// What the display showed before laminad (the console), put back by a modeset.
        case restore
    }

    public var handoff = Handoff.fade
    /// How long the crossfade takes, in seconds of laminad's clock (`fadeSecondsRange`).
    public var fadeSeconds = 0.5
    public var onExit = OnExit.keep

    /// The crossfade's bounds: 0 cuts at once; more than 10 s would keep the splash for no one.
    public static let fadeSecondsRange = 0.0...10.0

    public init(handoff: Handoff = .fade, fadeSeconds: Double = 0.5, onExit: OnExit = .keep) {
        self.handoff = handoff
        self.fadeSeconds = fadeSeconds
        self.onExit = onExit
    }
}

/// The picture one output showed when laminad took it over, as a texture, and where it lies in
/// the desktop (the output's rectangle, in points).
public struct BootPicture: Sendable {
    public var output: String
    public var rect: Rect
    public var source: ImageSource
    /// Where it came from, for `stats` and the log: "1280x800 XR24 from CRTC 36".
    public var origin: String

    public init(output: String, rect: Rect, source: ImageSource, origin: String) {
        self.output = output
        self.rect = rect
        self.source = source
        self.origin = origin
    }
}

/// The boot handoff's decisions over time, without EGL or KMS (like `RepaintPlanner`): the
/// pictures taken over show until the first frame that draws anything of a client's (or of a
/// restored session's); then, with `keep`, they stay under the scene; with `fade`, they are
/// drawn OVER the scene with an opacity falling linearly from 1 to 0 over `fadeSeconds` of the
/// compositor's clock, so each pixel moves in a straight line from the splash's colour to the
/// scene's (a crossfade; under the scene an opaque client would hide the splash at once), and
/// then they are let go (`isFinished`: the textures are freed).
public struct BootHandoff: Sendable {
    public enum Phase: Equatable, Sendable {
        /// No client has drawn yet: the pictures are the background.
        case waiting
        /// `keep`: a client drew; the pictures stay under the scene.
        case kept
        /// `fade`: the crossfade began at this clock time (when the first frame with the
        /// scene had been drawn, `frameDrawn`).
        case fading(since: Double)
        /// The crossfade ended: nothing more is drawn.
        case finished
    }

    public let handoff: BootSettings.Handoff
    public let fadeSeconds: Double
    public private(set) var pictures: [BootPicture]
    /// How many pictures were taken over (kept after they are let go, for `stats`).
    public let pictureCount: Int
    public private(set) var phase = Phase.waiting
    /// Whether the frame that began the fade has been drawn (`frameDrawn`).
    private var fadeAnchored = false

    /// nil where there is nothing to hand over: `off`, or no picture.
    public init?(settings: BootSettings, pictures: [BootPicture]) {
        guard settings.handoff != .off, !pictures.isEmpty else { return nil }
        handoff = settings.handoff
        let bounds = BootSettings.fadeSecondsRange
        fadeSeconds = settings.fadeSeconds.isFinite ? min(max(settings.fadeSeconds, bounds.lowerBound), bounds.upperBound) : 0.5
        self.pictures = pictures
        pictureCount = pictures.count
    }

    /// A frame at clock time `time` is being built; `sceneDraws` says whether the clients'
    /// layers draw anything in it. The first such frame starts the fade (or keeps the
    /// pictures); a fade whose time is up finishes, and its textures are destroyed.
    public mutating func advance(sceneDraws: Bool, at time: Double) {
        switch phase {
        case .waiting where sceneDraws:
            if handoff == .keep {
                phase = .kept
            } else {
                phase = .fading(since: time)
                if fadeSeconds <= 0 { finish() }
            }
        case .fading(let since) where time - since >= fadeSeconds:
            finish()
        default:
            break
        }
    }

    /// The frame built by the last `advance` has been drawn; the clock reads `time`. A fade
    /// that frame began counts from here, not from when it was built: the first frame with the
    /// scene is where its shaders are compiled, which takes seconds on a slow board (or in a
    /// guest under emulation), and must not use the fade up (it would cut from the splash to the
    /// scene). Later frames change nothing. On a virtual clock the time has not moved.
    public mutating func frameDrawn(at time: Double) {
        guard !fadeAnchored, case .fading(let since) = phase else { return }
        fadeAnchored = true
        if time > since { phase = .fading(since: time) }
    }

    private mutating func finish() {
        phase = .finished
        for p in pictures { p.source.destroy() }
        pictures.removeAll()
    }

    /// The pictures' opacity at clock time `time`: 1 until the fade begins, then falling
    /// linearly to 0 at `fadeSeconds` after it began (a clock that went back holds at 1).
    public func opacity(at time: Double) -> Double {
        switch phase {
        case .waiting, .kept: 1
        case .finished: 0
        case .fading(let since):
            fadeSeconds > 0 ? min(1, max(0, 1 - (time - since) / fadeSeconds)) : 0
        }
    }

    /// Whether the picture changes with time alone (a real clock asks for frames until it ends).
    public var isFading: Bool {
        if case .fading = phase { true } else { false }
    }

    public var isFinished: Bool { phase == .finished }

    /// The frame `list` with the pictures drawn in: at the back while they are the background
    /// (waiting, kept), above the scene while they fade out.
    public func decorate(_ list: inout DrawList, at time: Double) {
        let alpha = opacity(at: time)
        guard alpha > 0, !pictures.isEmpty else { return }
        let commands = pictures.map { p in
            DrawCommand(kind: .contents, transform: .translation(x: p.rect.origin.x, y: p.rect.origin.y),
                        bounds: Rect(x: 0, y: 0, width: p.rect.width, height: p.rect.height), opacity: alpha,
                        contents: DrawContents(source: p.source, destination: Rect(x: 0, y: 0, width: p.rect.width, height: p.rect.height),
                                               isOpaque: true))
        }
        if isFading {
            list.commands += commands
        } else {
            list.commands.insert(contentsOf: commands, at: 0)
        }
    }

    /// The state for `stats` (`boot.fade`): "waiting for the first client frame", "kept under
    /// the scene", "fading: 0.40 of 0.5 s", "finished".
    public func fadeState(at time: Double) -> String {
        switch phase {
        case .waiting: "waiting for the first client frame"
        case .kept: "kept under the scene"
        case .finished: "finished"
        case .fading(let since):
            "fading: \((max(0, time - since) * 100).rounded() / 100) of \(fadeSeconds) s"
        }
    }
}
