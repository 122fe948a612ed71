import ArgumentParser
import LaminaCore
import LaminaDaemon
import LaminaHeadless
import LaminaKMS
import LaminaPlatform
import LaminaServer
import Logging

/// laminad: owns the display and composites clients' layer trees.
///
/// Settings come from the command line, then `--config` (laminad.toml), then the defaults.
struct Laminad: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "laminad",
        abstract: "The Lamina compositor daemon: owns the display and draws clients' layer trees.")

    @Option(help: "laminad.toml to read (config/laminad.toml documents every key); options given here win over it.")
    var config: String?

    @Option(help: "Display backend: auto, headless or kms (default auto).")
    var backend: String?

    @Option(help: "Output size for the headless backend, WIDTHxHEIGHT (default 1280x720).")
    var size: String?

    @Option(help: "Unix socket to listen on (default: $XDG_RUNTIME_DIR/lamina-0, or /run/lamina/lamina.sock).")
    var socket: String?

    @Option(name: .customLong("session-journal"), help: "Folder where kept sessions are journalled, to come back after a restart (default: beside the socket, SOCKET.sessions; \"\" for none).")
    var sessionJournal: String?

    @Option(help: "Frame clock: real (CLOCK_MONOTONIC at the refresh rate) or virtual (moves only when a client advances it).")
    var clock: String?

    @Option(help: "Refresh rate of the headless real clock in Hz (default 60).")
    var refresh: Double?

    @Option(help: "Display background colour, #RRGGBB or #RRGGBBAA.")
    var background: String?

    @Option(name: .customLong("frames-dir"), help: "Write every presented frame as a numbered PNG into this folder.")
    var framesDir: String?

    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error or critical (default info).")
    var logLevel: String?

    @Option(name: .customLong("drm-device"), help: "KMS: the DRM card to open (default: the first with a connected display).")
    var drmDevice: String?

    @Flag(name: .customLong("legacy-kms"), help: "KMS: use legacy SetCrtc/PageFlip instead of atomic modesetting (also LAMINA_KMS_NO_ATOMIC=1).")
    var legacyKMS = false

    @Option(name: .customLong("output"), help: "KMS: an output's settings, NAME[:mode=WxH[@HZ]][:pos=X,Y][:transform=T][:scale=S][:off]; repeatable, replaces the file's [[output]] of that name.")
    var outputSpecs: [String] = []

    @Option(name: .customLong("max-outputs"), help: "KMS: the most displays lit at once (default 8).")
    var maxOutputs: Int?

    @Option(name: .customLong("layout"), help: "KMS: desktop (one virtual desktop) or separate (a root per output: a top-level layer named after the output).")
    var layout: String?

    @Option(name: .customLong("session"), help: "KMS: how the card is opened: auto (libseat when seatd or logind is reachable, else directly), libseat or direct.")
    var session: String?

    @Option(help: "Damage tracking: on (redraw only what changed since each buffer was drawn, the default) or off (draw every frame whole).")
    var damage: String?

    @Option(help: "Headless: how many offscreen buffers to rotate, with buffer-age semantics like a swapchain (1 to 4, default 1).")
    var buffers: Int?

    @Option(name: .customLong("idle-blank"), help: "KMS: blank the displays after this many seconds without a change.")
    var idleBlank: Double?

    func run() throws {
        let startTime = monotonicSeconds()
        var file = LaminadConfiguration()
        if let config {
            do { file = try LaminadConfiguration.load(path: config) } catch { throw ValidationError("\(error)") }
        }
        let level: Logger.Level
        if let logLevel {
            guard let l = Logger.Level(rawValue: logLevel) else {
                throw ValidationError("--log-level must be one of trace, debug, info, notice, warning, error, critical (got '\(logLevel)')")
            }
            level = l
        } else {
            level = file.logLevel ?? .info
        }
        let journal = JournalLogHandler.stderrIsJournal
        LoggingSystem.bootstrap { label in
            if journal {
                var h = JournalLogHandler(label: label)
                h.logLevel = level
                return h
            }
            var h = StreamLogHandler.standardError(label: label)
            h.logLevel = level
            return h
        }
        let logger = Logger(label: "laminad")
        if let config { logger.info("configuration: \(config)") }

        let choice: BackendChoice
        if let backend {
            guard let b = BackendChoice(rawValue: backend) else { throw ValidationError("--backend must be auto, headless or kms (got '\(backend)')") }
            choice = b
        } else {
            choice = file.backend ?? .auto
        }
        var headlessSize = file.headlessSize ?? (1280, 720)
        if let size {
            let parts = size.split(separator: "x").compactMap { Int($0) }
            guard parts.count == 2, parts[0] > 0, parts[1] > 0, parts[0] <= 16384, parts[1] <= 16384 else {
                throw ValidationError("--size must be WIDTHxHEIGHT with each side 1…16384 (got '\(size)')")
            }
            headlessSize = (parts[0], parts[1])
        }
        let clockSetting: FrameClock.ClockKindSetting
        let refreshRate = refresh ?? file.refreshRate ?? 60
        switch clock ?? file.clock ?? "real" {
        case "real":
            guard refreshRate > 0, refreshRate <= 1000 else { throw ValidationError("--refresh must be in (0, 1000] Hz (got \(refreshRate))") }
            clockSetting = .real(refreshRate: refreshRate)
        case "virtual": clockSetting = .virtual
        default: throw ValidationError("--clock must be real or virtual (got '\(clock ?? "")')")
        }
        var bg = file.background ?? .black
        if let background {
            guard let c = Color(hex: background) else {
                throw ValidationError("--background must be #RRGGBB or #RRGGBBAA (got '\(background)')")
            }
            bg = c
        }
        var kms = file.kms
        kms.cursor = file.cursor ?? false
        kms.cursorPosition = file.cursorPosition
        if let drmDevice { kms.devicePath = drmDevice }
        if legacyKMS { kms.forceLegacy = true }
        if let maxOutputs { kms.maxOutputs = max(0, maxOutputs) }
        if let layout {
            guard let l = KMSConfiguration.Layout(rawValue: layout) else {
                throw ValidationError("--layout must be desktop or separate (got '\(layout)')")
            }
            kms.layout = l
        }
        if let session {
            guard let kind = KMSConfiguration.SessionKind(rawValue: session) else {
                throw ValidationError("--session must be auto, libseat or direct (got '\(session)')")
            }
            kms.session = kind
        }
        for spec in outputSpecs {
            let output = try OutputConfiguration(parsing: spec)
            kms.outputs.removeAll { $0.name == output.name }
            kms.outputs.append(output)
        }
        var damageTracking = file.damageTracking ?? true
        if let damage {
            guard damage == "on" || damage == "off" else { throw ValidationError("--damage must be on or off (got '\(damage)')") }
            damageTracking = damage == "on"
        }
        let bufferCount = buffers ?? file.headlessBuffers ?? 1
        guard (1...HeadlessBackend.maximumBuffers).contains(bufferCount) else {
            throw ValidationError("--buffers must be 1…\(HeadlessBackend.maximumBuffers) (got \(bufferCount))")
        }
        let display: FramePresenter
        do {
            display = try openDisplay(choice, width: headlessSize.0, height: headlessSize.1, buffers: bufferCount, kms: kms, logger: logger)
            display.backend.damageTracking = damageTracking
        } catch {
            logger.critical("\(error)")
            throw ExitCode(2)
        }
        var options = Daemon.Options(socketPath: SocketPath.resolve(socket ?? file.socketPath), clock: clockSetting, framesDirectory: framesDir)
        options.compositor.background = bg
        let journalPath = sessionJournal ?? file.sessionJournal ?? Daemon.Options.defaultSessionJournal(socketPath: options.socketPath)
        options.sessionJournal = journalPath.isEmpty ? nil : journalPath
        if let n = file.maxLayersPerClient { options.compositor.limits.maxLayers = n }
        if let n = file.maxOperationsPerCommit { options.compositor.limits.maxOperationsPerCommit = n }
        if let n = file.maxMessageBytes { options.compositor.frameLimit = n }
        if let n = file.maxQueuedBytes { options.maxQueuedBytes = n }
        if let n = file.maxTotalQueuedBytes { options.maxTotalQueuedBytes = n }
        if let t = file.handshakeTimeout { options.handshakeTimeout = t }
        if let n = file.maxTreeDepth { options.compositor.limits.maxDepth = n }
        if let n = file.maxKeptLayers { options.compositor.limits.maxKeptLayers = n }
        if let n = file.maxVideos { options.compositor.maxVideos = n }
        if let t = file.videoOpenTimeout { options.videoOpenTimeout = t }
        if let t = file.videoStallTimeout { options.videoStallTimeout = t }
        if let y = file.videoYUV, y != "auto" { options.videoYUVInRenderer = y == "renderer" }
        if let n = file.maxKeptSessions { options.compositor.limits.maxKeptSessions = n }
        if let n = file.maxKeptSessionsPerUser { options.compositor.limits.maxKeptSessionsPerUser = n }
        if let n = file.maxTotalLayers { options.compositor.limits.maxTotalLayers = n }
        if let n = file.maxClients { options.compositor.limits.maxClients = n }
        if let n = file.maxClientsPerUser { options.compositor.limits.maxClientsPerUser = n }
        options.startTime = startTime
        options.input = file.input
        options.idleBlankSeconds = idleBlank ?? file.idleBlankSeconds.flatMap { $0 > 0 ? $0 : nil }
        options.cursor = kms.cursor && display.backend is KMSBackend
        if let seconds = file.cursorHideAfter { options.cursorHideSeconds = seconds }
        if let ms = file.repaintWindowMilliseconds { options.repaintWindow = ms / 1000 }
        if let mode = file.socketMode { options.socketMode = mode }
        do {
            options.socketOwner = try file.socketOwner.map(SocketOwnership.user(named:))
            options.socketGroup = try file.socketGroup.map(SocketOwnership.group(named:))
            options.privilegedGroup = try file.privilegedGroup.map(SocketOwnership.group(named:))
        } catch {
            throw ValidationError("\(error)")
        }
        let passed = ServiceManager.listenDescriptors()
        if let fd = passed.first {
            guard ServiceManager.isListeningUnixSocket(fd) else {
                throw ValidationError("socket activation passed descriptor \(fd), which is not a listening Unix stream socket")
            }
            options.listenerDescriptor = fd
        }
        // Tree walks recurse on this thread, as deep as the depth budget allows (64 by default,
        // 256 at most): 64 MiB is several times what 256 levels take in a debug build.
        let stack = reserveMainStack(64 << 20)
        if stack < 64 << 20 { logger.warning("the main thread's stack is limited to \(stack) bytes (RLIMIT_STACK); deep layer trees may not fit") }
        let daemon = try Daemon(display: display, options: options, logger: logger)
        try daemon.run()
    }
}

Laminad.main()

extension OutputConfiguration {
    /// Parses `--output NAME[:mode=WxH[@HZ]][:pos=X,Y][:transform=T][:scale=S][:off]`.
    init(parsing spec: String) throws {
        let fields = spec.split(separator: ":").map(String.init)
        guard let name = fields.first, !name.isEmpty else { throw ValidationError("--output needs a connector name first (got '\(spec)')") }
        self.init(name: name)
        for field in fields.dropFirst() {
            let kv = field.split(separator: "=", maxSplits: 1).map(String.init)
            switch (kv[0], kv.count == 2 ? kv[1] : nil) {
            case ("off", nil): enabled = false
            case ("mode", let v?):
                guard let m = ModeRequest(parsing: v) else { throw ValidationError("--output \(name): mode must be WxH or WxH@HZ (got '\(v)')") }
                mode = m
            case ("pos", let v?):
                let xy = v.split(separator: ",").compactMap { Int($0) }
                guard xy.count == 2 else { throw ValidationError("--output \(name): pos must be X,Y (got '\(v)')") }
                position = (xy[0], xy[1])
            case ("transform", let v?):
                guard let t = OutputTransform(rawValue: v) else {
                    throw ValidationError("--output \(name): transform must be one of \(OutputTransform.allCases.map(\.rawValue).joined(separator: ", ")) (got '\(v)')")
                }
                transform = t
            case ("scale", let v?):
                guard let s = Double(v), s > 0, s <= 8 else { throw ValidationError("--output \(name): scale must be in (0, 8] (got '\(v)')") }
                scale = s
            default:
                throw ValidationError("--output \(name): unknown setting '\(field)' (mode=, pos=, transform=, scale=, off)")
            }
        }
    }
}
