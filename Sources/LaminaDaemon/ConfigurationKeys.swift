import LaminaCore
import LaminaGLES
import LaminaHeadless
import LaminaInput
import LaminaKMS
import LaminaCompositor
import Logging

extension LaminadConfiguration {
    /// Every key of laminad.toml, table by table in config/laminad.toml's order: its name, what
    /// it takes, its command-line flag, one line on what it is for, and where its value goes.
    /// Parsing, the command line and `laminad --list-keys` all read this list.
    public static let keys: [KeyTable] = [
        KeyTable(nil, [
            .choice("backend", [BackendChoice.auto, .kms, .headless], flag: "backend",
                    "The display backend: KMS when a display can be driven, else headless (auto), or only one of them.") { $0.backend = $1 },
            .choice("log_level", Logger.Level.allCases, flag: "log-level", "The least severe log lines written.") { $0.logLevel = $1 },
        ]),
        KeyTable("socket", [
            .string("path", flag: "socket",
                    "Where clients connect (default: $LAMINA_SOCKET, else $XDG_RUNTIME_DIR/lamina-0, else /run/lamina/lamina.sock).") {
                $0.socketPath = $1
            },
            .text("owner", "a user on this system, by name or number", "The socket file's owner.",
                  parse: SocketOwnership.user(named:)) { $0.daemon.socketOwner = $1 },
            .text("group", "a group on this system, by name or number", "The socket file's group.",
                  parse: SocketOwnership.group(named:)) { $0.daemon.socketGroup = $1 },
            .text("mode", "octal permissions such as \"0660\"", "The socket file's permissions, whatever the umask.",
                  parse: { UInt32($0, radix: 8).flatMap { $0 <= 0o777 ? $0 : nil } }) { $0.daemon.socketMode = $1 },
        ]),
        KeyTable("security", [
            .text("privileged_group", "a group on this system, by name or number",
                  "Members may make privileged requests (screenshots, every client's tree, display power, …).",
                  parse: SocketOwnership.group(named:)) { $0.daemon.privilegedGroup = $1 },
        ]),
        KeyTable("journal", [
            .string("path", flag: "session-journal",
                    "Where kept sessions are journalled, to come back after a restart, or a reboot under /var/lib (default: beside the socket; \"\": none).") {
                $0.sessionJournal = $1
            },
        ]),
        KeyTable("sessions", [
            .string("journal", "The journal's place before [journal] path (1.7); read the same, so an older laminad.toml still starts.") {
                $0.sessionJournal = $1
            },
        ]),
        KeyTable("limits", [
            .int("max_layers_per_client", 1...10_000_000, "The most layers one client may have.") { $0.daemon.compositor.limits.maxLayers = $1 },
            .int("max_operations_per_commit", 1...100_000_000, "The most operations one commit may carry.") {
                $0.daemon.compositor.limits.maxOperationsPerCommit = $1
            },
            .int("max_message_bytes", 1024...(1 << 30), "The largest message a client may send, in bytes.") { $0.daemon.compositor.frameLimit = $1 },
            .int("max_queued_bytes", 4096...(1 << 34), "Bytes of replies a slow client may leave unread before it is dropped.") {
                $0.daemon.maxQueuedBytes = $1
            },
            .int("max_total_queued_bytes", 4096...(1 << 36), "Unread bytes over all clients; past it the client holding the most is dropped.") {
                $0.daemon.maxTotalQueuedBytes = $1
            },
            .double("handshake_timeout", 0.05...3600, "Seconds a new connection has to say hello.") { $0.daemon.handshakeTimeout = $1 },
            // The server's tree walks run on the main thread's stack: 256 is safe with margin.
            .int("max_tree_depth", 1...256, "The deepest a layer may sit below its client's root.") { $0.daemon.compositor.limits.maxDepth = $1 },
            .int("max_kept_sessions", 0...10_000, "Sessions whose layers outlive their clients.") { $0.daemon.compositor.limits.maxKeptSessions = $1 },
            .int("max_kept_sessions_per_user", 0...10_000, "Kept sessions per user.") { $0.daemon.compositor.limits.maxKeptSessionsPerUser = $1 },
            .int("max_kept_layers", 0...10_000_000, "Layers all kept sessions may hold together.") { $0.daemon.compositor.limits.maxKeptLayers = $1 },
            .int("max_layout_constraints", 1...10_000_000, "Constraints laminad solves in one layout pass of a client's tree.") {
                $0.daemon.compositor.limits.maxLayoutConstraints = $1
            },
            .int("max_display_links_per_client", 1...1024, "Display links (CADisplayLink) one client may have.") {
                $0.daemon.compositor.limits.maxDisplayLinks = $1
            },
            .int("max_total_layers", 1...100_000_000, "Layers all sessions may hold together, connected and kept.") {
                $0.daemon.compositor.limits.maxTotalLayers = $1
            },
            .int("max_clients", 1...100_000, "Connected clients in all (privileged ones are always admitted).") {
                $0.daemon.compositor.limits.maxClients = $1
            },
            .int("max_clients_per_user", 1...100_000, "Connected clients per user.") { $0.daemon.compositor.limits.maxClientsPerUser = $1 },
            .int("max_videos", 0...64, "Videos decoded at once over all clients.") { $0.daemon.compositor.maxVideos = $1 },
            .int("max_image_bytes", 0...(1 << 36), "Pixel bytes (width × height × 4) of one client's images and video frames.") {
                $0.daemon.compositor.limits.maxImageBytes = $1
            },
            .int("max_total_image_bytes", 0...(1 << 36), "Pixel bytes of all clients' images and video frames together.") {
                $0.daemon.compositor.limits.maxTotalImageBytes = $1
            },
            .int("max_encoded_image_bytes", 0...(1 << 30), "Bytes of one encoded image file a client sends (SVG, GIF, WebP).") {
                $0.daemon.compositor.limits.maxEncodedImageBytes = $1
            },
            // Emitter layers.
            .int("max_particles_per_layer", 0...1_000_000, "Live particles one emitter layer may have (birthRate × lifetime of its cells).") {
                $0.daemon.compositor.limits.maxParticlesPerLayer = $1
            },
            .int("max_particles_per_client", 0...10_000_000, "Live particles one client's emitter layers may have together.") {
                $0.daemon.compositor.limits.maxParticlesPerClient = $1
            },
            // Tiled layers.
            .int("max_tile_bytes", 0...(1 << 36), "Pixel bytes of one client's tiled layers' tiles; the least recently seen tiles are evicted beyond it.") {
                $0.daemon.compositor.limits.tiles.maxBytes = $1
            },
            .int("max_tiles_per_client", 1...1_000_000, "Tiles one client's tiled layers may hold together (evicted beyond it, as for max_tile_bytes).") {
                $0.daemon.compositor.limits.tiles.maxTiles = $1
            },
            .int("max_tile_requests_per_frame", 1...65_536, "Tiles laminad asks one client for in one frame (the rest in later frames).") {
                $0.daemon.compositor.limits.tiles.requestsPerFrame = $1
            },
        ]),
        KeyTable("video", [
            .double("open_timeout", 0.1...3600, "Seconds a video's source has to give its first picture.") { $0.daemon.videoOpenTimeout = $1 },
            .double("stall_timeout", 0...3600, "Seconds a playing video may go without a new picture (0: never).") {
                $0.daemon.videoStallTimeout = $1
            },
            .choice("yuv", [("auto", nil), ("renderer", true), ("decoder", false)],
                    "Who turns planar YUV pictures into RGB: the renderer's shader, the decoder's videoconvert, or the renderer decides.") {
                $0.daemon.videoYUVInRenderer = $1
            },
        ]),
        KeyTable("audio", [
            .string("sink", flag: "audio-sink",
                    "Where videos' sound goes: auto (autoaudiosink), none (no sound), or a GStreamer sink description such as \"alsasink device=hw:1,0\".") {
                $0.daemon.audioSink = $1
            },
        ]),
        KeyTable("wayland", [
            .bool("enabled", "Serve Wayland clients (apps) on a socket of their own; false turns it off.") { $0.daemon.wayland.enabled = $1 },
            .string("display", flag: "wayland-display",
                    "The Wayland socket: a name, in the Lamina socket's folder, or an absolute path (default: wayland-lamina-0).") {
                $0.daemon.wayland.display = $1
            },
            .int("max_surfaces_per_client", 1...100_000, "Surfaces one Wayland client may hold; past it the client is dropped.") {
                $0.daemon.wayland.maxSurfacesPerClient = $1
            },
            .int("max_buffer_pixels", 1...(1 << 28), "Pixels (width × height) of one Wayland buffer laminad shows; a bigger one drops its client.") {
                $0.daemon.wayland.maxBufferPixels = $1
            },
            .double("fade_in", 0...10, "Seconds a new app window fades in over in kiosk mode (0: it appears at once).") {
                $0.daemon.wayland.fadeIn = $1
            },
        ]),
        KeyTable("renderer", [
            .choice("gles", [("auto", GLESRequest.automatic), ("2", .path(.gles2)), ("3", .path(.gles3)), ("vc4", .vc4)], flag: "gles",
                    "The GLES renderer path: ES 3 or ES 2 as the context allows (auto), ES 2 or ES 3, or ES 2 with the extensions Raspberry Pi's VC4 lacks hidden (vc4, a test mode).") {
                $0.glesRequest = $1
            },
            .string("shader_cache", flag: "shader-cache",
                    "Where compiled GL programs are kept between starts (default: $CACHE_DIRECTORY/shaders under systemd, else none; \"\": none).") {
                $0.shaderCache = $1
            },
        ]),
        KeyTable("display", [
            .text("background", "#RRGGBB or #RRGGBBAA", flag: "background", "What shows where no layer draws.",
                  parse: { Color(hex: $0) }) { $0.daemon.compositor.background = $1 },
            .choice("clock", [("real", false), ("virtual", true)], flag: "clock",
                    "The frame clock: CLOCK_MONOTONIC, or one that moves only when a client advances it (tests).") { $0.virtualClock = $1 },
            .double("refresh", 1...1000, flag: "refresh", "Frames per second of the headless backend's real clock, and of display links on the virtual clock.") { $0.refreshRate = $1 },
            .text("size", "WIDTHxHEIGHT, each side 1…16384", flag: "size",
                  "The headless output's size, and the KMS desktop's while no display is connected.",
                  parse: { s in ModeRequest(parsing: s).flatMap { $0.refreshRate == nil && $0.width <= 16384 && $0.height <= 16384 ? ($0.width, $0.height) : nil } }) {
                $0.headlessSize = $1
            },
            .bool("damage", flag: "damage", "Redraw only what changed since each buffer was drawn; false (off) draws every pixel of every frame.") {
                $0.damageTracking = $1
            },
            .int("buffers", 1...HeadlessBackend.maximumBuffers, flag: "buffers",
                 "The headless output's buffers, rotated with buffer-age semantics like a swapchain.") { $0.headlessBuffers = $1 },
.double("idle_blank", 0...86400, flag: "idle-blank", "The older name of [power] blank_after, read the same.") {
                $0.daemon.idleBlankSeconds = $1 > 0 ? $1 : nil
            },
            .double("repaint_window_ms", 0...100, "KMS: how long before a refresh rendering starts, in milliseconds.") {
                $0.daemon.repaintWindow = $1 / 1000
            },
            .bool("cursor", "KMS: show a cursor (a small arrow).") { $0.kms.cursor = $1 },
            .point("cursor_position", "Where the cursor's tip shows until the pointer first moves (default: the first output's centre).") {
                $0.kms.cursorPosition = $1
            },
            .double("cursor_hide_after", 0...86400, "Hide the cursor after this many seconds without pointer motion (0: never).") {
                $0.daemon.cursorHideSeconds = $1
            },
        ]),
        KeyTable("power", [
            .double("dim_after", 0...86400, "Dim the panels' backlights after this many seconds without a change or input (0: never).") {
                $0.daemon.dimAfterSeconds = $1
            },
            .double("dim_to", 0...100, "Dimmed, the backlights show this percent of the brightness set before (never off); activity restores it.") {
                $0.daemon.dimToPercent = $1
            },
            .double("blank_after", 0...86400, "KMS: blank the displays after this many seconds without a change or input (0: never); the waking touch is not delivered.") {
                $0.daemon.idleBlankSeconds = $1 > 0 ? $1 : nil
            },
        ]),
        .array("power.cec", required: ("output", "every [[power.cec]] needs the connector name, such as \"HDMI-A-1\""),
               start: CECOutputSetting(output: ""), [
            .text("output", "a connector's name, such as \"HDMI-A-1\"", "The output whose TV is switched with it: standby when it blanks, on and this input when it lights.",
                  parse: { $0.isEmpty ? nil : $0 }) { $0.output = $1 },
            .text("device", "a CEC adapter, such as \"/dev/cec0\"", "The HDMI-CEC adapter the TV is reached through.",
                  parse: { $0.hasPrefix("/") ? $0 : nil }) { $0.device = $1 },
            .text("osd_name", "1 to 14 ASCII characters", "The name the TV shows for this player (default: Lamina).",
                  parse: { s in !s.isEmpty && s.utf8.count <= 14 && s.utf8.allSatisfy { (0x20..<0x7F).contains($0) } ? s : nil }) { $0.osdName = $1 },
            .bool("standby", "false: blanking leaves the TV on (only waking it is sent).") { $0.standby = $1 },
        ]) { configuration, setting throws(ConfigurationError) in
            guard !setting.device.isEmpty else {
                throw ConfigurationError(key: "device", "every [[power.cec]] needs the adapter, such as \"/dev/cec0\"")
            }
            guard !configuration.daemon.cec.contains(where: { $0.output == setting.output }) else {
                throw ConfigurationError(key: "output", "\(setting.output) has two [[power.cec]] tables")
            }
            configuration.daemon.cec.append(setting)
        },
        KeyTable("kms", [
            .string("device", flag: "drm-device", "The DRM card to open (default: the first with a connected display that can be mastered).") {
                $0.kms.devicePath = $1
            },
            .bool("atomic", flag: .without("legacy-kms", meaning: "false"),
                  "Atomic modesetting where the driver offers it; false forces legacy SetCrtc/PageFlip (also LAMINA_KMS_NO_ATOMIC=1).") {
                $0.kms.forceLegacy = !$1
            },
            .int("max_outputs", 0...64, flag: "max-outputs", "The most displays lit at once.") { $0.kms.maxOutputs = $1 },
            .choice("layout", KMSConfiguration.Layout.allCases, flag: "layout",
                    "One virtual desktop, or a root per output (a top-level layer named after the output).") { $0.kms.layout = $1 },
            .choice("session", KMSConfiguration.SessionKind.allCases, flag: "session",
                    "How the card is opened: libseat when seatd or logind is reachable, else directly (auto), or only one way.") {
                $0.kms.session = $1
            },
            .int("vt", 0...63, "The virtual terminal taken when the card is opened directly (0: the active one).") {
                $0.kms.virtualTerminal = $1 > 0 ? Int32($1) : nil
            },
        ]),
        KeyTable("boot", [
            .choice("handoff", BootSettings.Handoff.allCases, flag: "boot-handoff",
                    "KMS: the picture a display shows at start (a boot splash) stays under the scene (keep), crossfades to it at the first client frame (fade), or is not taken over: the first frame modesets (off).") {
                $0.kms.boot.handoff = $1
                $0.daemon.compositor.boot.handoff = $1
            },
            .double("fade_seconds", BootSettings.fadeSecondsRange, "Seconds the crossfade from the boot picture to the scene takes (laminad's clock).") {
                $0.kms.boot.fadeSeconds = $1
                $0.daemon.compositor.boot.fadeSeconds = $1
            },
            .choice("on_exit", BootSettings.OnExit.allCases,
                    "KMS: at exit leave the last frame on screen where the kernel allows (keep), or put back what the display showed before laminad (restore).") {
                $0.kms.boot.onExit = $1
                $0.daemon.compositor.boot.onExit = $1
            },
        ]),
        .array("output", required: ("name", "every [[output]] needs the connector name, such as \"HDMI-A-1\""), start: OutputConfiguration(name: ""), [
            .string("name", "The connector, as the log names it: \"HDMI-A-1\", \"Virtual-1\".") { $0.name = $1 },
            .bool("enabled", "false leaves the display dark.") { $0.enabled = $1 },
            .text("mode", "WIDTHxHEIGHT or WIDTHxHEIGHT@HZ", "The mode (default: the display's preferred one).",
                  parse: { ModeRequest(parsing: $0) }) { $0.mode = $1 },
            .point("position", "The top-left corner in the desktop (default: right of the outputs before it).") { $0.position = $1 },
            .double("scale", 0.25...8, "Pixels per point.") { $0.scale = $1 },
            .choice("transform", OutputTransform.allCases, "Clockwise turns, mirrored first when flipped.") { $0.transform = $1 },
        ]) { configuration, output throws(ConfigurationError) in
            guard !configuration.kms.outputs.contains(where: { $0.name == output.name }) else {
                throw ConfigurationError(key: "name", "\(output.name) is configured twice")
            }
            configuration.kms.outputs.append(output)
        },
        KeyTable("input", [
            .bool("enabled", "Open the seat's input devices through libinput (KMS only).") { $0.daemon.input.enabled = $1 },
            .text("seat", "a seat's name, such as \"seat0\"", "The udev seat whose devices are used.",
                  parse: { $0.isEmpty ? nil : $0 }) { $0.daemon.input.seat = $1 },
            .text("keyboard_layout", "a layout's name, such as \"us\" or \"de\"", "The XKB layout keys are translated with.",
                  parse: { $0.isEmpty ? nil : $0 }) { $0.daemon.input.keymap.layout = $1 },
            .string("keyboard_variant", "The XKB variant.") { $0.daemon.input.keymap.variant = $1 },
            .string("keyboard_options", "Comma-separated XKB options, such as \"ctrl:nocaps\".") { $0.daemon.input.keymap.options = $1 },
            .string("keyboard_model", "The XKB model (\"\": pc105).") { $0.daemon.input.keymap.model = $1.isEmpty ? "pc105" : $1 },
            .int("key_repeat_rate", 0...1000, "Repeats a second of a held key in Wayland apps; 0 turns repeat off.") { $0.daemon.input.keyRepeat.rate = $1 },
            .int("key_repeat_delay", 1...10_000, "Milliseconds a key is held before it repeats in Wayland apps.") {
                $0.daemon.input.keyRepeat.delayMilliseconds = $1
            },
        ]),
        .array("input.device", required: ("match", "every [[input.device]] needs a part of the device's name to match, such as \"ILITEK\""),
               start: DeviceRule(match: ""), [
            .text("match", "a part of the device's name, such as \"ILITEK\"", "The first table whose match occurs in a device's name applies.",
                  parse: { $0.isEmpty ? nil : $0 }) { $0.match = $1 },
            .string("output", "The output the touchscreen or tablet lies over (default: udev's WL_OUTPUT, else the first).") { $0.output = $1 },
            .matrix("calibration", "A touch at (x, y) of the panel is taken to be at (a·x + b·y + c, d·x + e·y + f).") { $0.calibration = $1 },
        ]) { configuration, rule throws(ConfigurationError) in configuration.daemon.input.devices.append(rule) },
    ]
}
