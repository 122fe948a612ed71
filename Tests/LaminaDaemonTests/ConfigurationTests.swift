import LaminaDaemon
import LaminaKMS
import LaminaCompositor
import LaminaTestSupport
import LaminaWayland
import Testing

/// laminad.toml as `LaminadConfiguration` reads it: the shipped file, every table, and messages that name the key.
@Suite("laminad.toml")
struct ConfigurationTests {
    static let shipped = TestPaths.repository + "/config/laminad.toml"

    @Test func theShippedFileParses() throws {
        let c = try LaminadConfiguration.load(path: Self.shipped)
        #expect(c.backend == .auto)
        #expect(c.logLevel == .info)
        #expect(c.daemon.socketMode == 0o660)
        #expect(c.kms.forceLegacy == false)
        #expect(c.kms.maxOutputs == 8)
        #expect(c.kms.virtualTerminal == nil, "vt = 0: the active VT")
        #expect(c.kms.cursor == false && c.kms.cursorPosition == nil)
        #expect(c.daemon.repaintWindow == 0.007)
        #expect(c.daemon.videoOpenTimeout == 10 && c.daemon.videoStallTimeout == 10)
    }

    /// `[wayland]`: on by default as wayland-lamina-0 beside the Lamina socket; a name or a path;
    /// off; the limits; `--wayland-display` wins over the file.
    @Test func wayland() throws {
        let shipped = try LaminadConfiguration.load(path: Self.shipped)
        #expect(shipped.daemon.wayland == WaylandSettings())
        #expect(shipped.daemon.wayland.socketPath(besides: "/run/lamina/lamina.sock") == "/run/lamina/wayland-lamina-0")
        var c = try LaminadConfiguration.parse("""
            [wayland]
            enabled = false
            display = "wayland-kiosk"
            max_surfaces_per_client = 8
            max_buffer_pixels = 1000000
            """)
        #expect(!c.daemon.wayland.enabled)
        #expect(c.daemon.wayland.maxSurfacesPerClient == 8 && c.daemon.wayland.maxBufferPixels == 1_000_000)
        #expect(c.daemon.wayland.socketPath(besides: "/run/user/1000/lamina-0") == "/run/user/1000/wayland-kiosk")
        try c.apply(arguments: ["--wayland-display", "/tmp/w-0"])
        #expect(c.daemon.wayland.socketPath(besides: "/run/user/1000/lamina-0") == "/tmp/w-0")
        #expect(throws: ConfigurationError.self) { try LaminadConfiguration.parse("[wayland]\nmax_surfaces_per_client = 0\n") }
    }

    @Test func outputsAndKMS() throws {
        let c = try LaminadConfiguration.parse("""
            backend = "kms"
            [kms]
            device = "/dev/dri/card1"
            atomic = false
            max_outputs = 2
            layout = "separate"
            session = "direct"
            vt = 7
            [[output]]
            name = "Virtual-1"
            mode = "1024x768@60"
            position = [0, 0]
            transform = "90"
            [[output]]
            name = "HDMI-A-1"
            enabled = false
            """)
        #expect(c.backend == .kms)
        #expect(c.kms.devicePath == "/dev/dri/card1")
        #expect(c.kms.forceLegacy)
        #expect(c.kms.maxOutputs == 2)
        #expect(c.kms.layout == .separate)
        #expect(c.kms.session == .direct)
        #expect(c.kms.virtualTerminal == 7)
        #expect(c.kms.outputs.count == 2)
        #expect(c.kms.outputs[0] == OutputConfiguration(name: "Virtual-1", mode: ModeRequest(width: 1024, height: 768, refreshRate: 60),
                                                        position: (0, 0), transform: .rotate90))
        #expect(c.kms.outputs[1].enabled == false)
    }

    /// `[journal] path`: where kept sessions are journalled (under /var/lib they survive a
    /// reboot); "" turns the journal off; by default it sits beside the socket.
    @Test func journalPath() throws {
        var c = try LaminadConfiguration.parse("[socket]\npath = \"/run/lamina/lamina.sock\"\n[journal]\npath = \"/var/lib/lamina/sessions\"\n")
        #expect(c.daemonOptions.sessionJournal == "/var/lib/lamina/sessions")
        c = try LaminadConfiguration.parse("[socket]\npath = \"/run/lamina/lamina.sock\"\n[journal]\npath = \"\"\n")
        #expect(c.daemonOptions.sessionJournal == nil)
        c = try LaminadConfiguration.parse("[socket]\npath = \"/run/lamina/lamina.sock\"\n")
        #expect(c.daemonOptions.sessionJournal == "/run/lamina/lamina.sessions")
        // A file written before [journal] path still starts laminad, its key read the same.
        c = try LaminadConfiguration.parse("[socket]\npath = \"/run/lamina/lamina.sock\"\n[sessions]\njournal = \"/var/lib/lamina/old\"\n")
        #expect(c.daemonOptions.sessionJournal == "/var/lib/lamina/old")
    }

    @Test func mistakesNameTheKey() {
        func message(_ text: String) -> String {
            do { _ = try LaminadConfiguration.parse(text) } catch { return error.description }
            return "accepted"
        }
        #expect(message("backend = \"drm\"") == "backend: must be auto, kms or headless (got 'drm')")
        #expect(message("[display]\nbackground = \"red\"").hasPrefix("display.background: must be #RRGGBB"))
        #expect(message("[[output]]\nname = \"A\"\ntransform = \"45\"").hasPrefix("output[0].transform: must be one of normal, 90"))
        #expect(message("[kms]\nmax_outputs = \"two\"") == "kms.max_outputs: must be an integer, not string")
        #expect(message("[kms]\nlayout = \"split\"") == "kms.layout: must be desktop or separate (got 'split')")
        #expect(message("[video]\nyuv = \"gpu\"") == "video.yuv: must be auto, renderer or decoder (got 'gpu')")
        #expect(message("[kms]\nsession = \"logind\"") == "kms.session: must be auto, libseat or direct (got 'logind')")
        #expect(message("[display]\ncursor_position = [1]").hasPrefix("display.cursor_position:"))
        #expect(message("[kms]\nvt = 64") == "kms.vt: must be in 0…63 (got 64)")
        #expect(message("[socket]\nmdoe = \"0660\"") == "socket.mdoe: is not a setting laminad knows (see config/laminad.toml)")
        #expect(message("[[output]]\nmode = \"1x1\"").hasPrefix("output[0].name: every [[output]] needs"))
        #expect(message("backend = ").hasPrefix("not valid TOML"))
    }
}

@Suite("laminad.toml: cursor")
struct CursorConfigurationTests {
    @Test func hideAfter() throws {
        let c = try LaminadConfiguration.parse("[display]\ncursor = true\ncursor_hide_after = 1.5\n")
        #expect(c.kms.cursor == true && c.daemon.cursorHideSeconds == 1.5)
        #expect(try LaminadConfiguration.parse("[display]\ncursor_hide_after = 0\n").daemon.cursorHideSeconds == 0)
        #expect(try LaminadConfiguration.load(path: ConfigurationTests.shipped).daemon.cursorHideSeconds == 5)
        func message(_ text: String) -> String {
            do { _ = try LaminadConfiguration.parse(text) } catch { return error.description }
            return "accepted"
        }
        #expect(message("[display]\ncursor_hide_after = -1").hasPrefix("display.cursor_hide_after: must be in 0"))
        #expect(message("[display]\ncursor_hide_after = 100000").hasPrefix("display.cursor_hide_after: must be in 0"))
        #expect(message("[display]\ncursor_hide_after = \"soon\"") == "display.cursor_hide_after: must be a number, not string")
    }
}

@Suite("laminad.toml: power")
struct PowerConfigurationTests {
    @Test("[power] dim_after, dim_to and blank_after; [display] idle_blank still sets blank_after")
    func dimmingAndBlanking() throws {
        let c = try LaminadConfiguration.parse("[power]\ndim_after = 30\ndim_to = 20\nblank_after = 120\n")
        #expect(c.daemon.dimAfterSeconds == 30 && c.daemon.dimToPercent == 20 && c.daemon.idleBlankSeconds == 120)
        #expect(try LaminadConfiguration.parse("[display]\nidle_blank = 60\n").daemon.idleBlankSeconds == 60, "the older name")
        #expect(try LaminadConfiguration.parse("[power]\nblank_after = 0\n").daemon.idleBlankSeconds == nil)
        let shipped = try LaminadConfiguration.load(path: ConfigurationTests.shipped)
        #expect(shipped.daemon.dimAfterSeconds == 0 && shipped.daemon.dimToPercent == 30 && shipped.daemon.idleBlankSeconds == nil)
        func message(_ text: String) -> String {
            do { _ = try LaminadConfiguration.parse(text) } catch { return error.description }
            return "accepted"
        }
        #expect(message("[power]\ndim_to = 101").hasPrefix("power.dim_to: must be in 0"))
        #expect(message("[power]\ndim_after = -1").hasPrefix("power.dim_after: must be in 0"))
    }
}

/// `[[power.cec]]`: outputs whose TV is switched over HDMI-CEC.
@Suite("laminad.toml: [[power.cec]]")
struct CECConfigurationTests {
    @Test func readsEachOutputsAdapter() throws {
        let c = try LaminadConfiguration.parse("""
            [power]
            blank_after = 300
            [[power.cec]]
            output = "HDMI-A-1"
            device = "/dev/cec0"
            [[power.cec]]
            output = "HDMI-A-2"
            device = "/dev/cec1"
            osd_name = "Lobby"
            standby = false
            """)
        #expect(c.daemon.idleBlankSeconds == 300)
        #expect(c.daemon.cec.map(\.output) == ["HDMI-A-1", "HDMI-A-2"])
        #expect(c.daemon.cec.map(\.device) == ["/dev/cec0", "/dev/cec1"])
        #expect(c.daemon.cec.map(\.osdName) == ["Lamina", "Lobby"] && c.daemon.cec.map(\.standby) == [true, false])
        #expect(try LaminadConfiguration.parse("").daemon.cec.isEmpty, "none unless configured")
    }

    @Test func mistakesNameTheKey() {
        func error(_ text: String) -> String {
            do { _ = try LaminadConfiguration.parse(text) } catch { return error.description }
            return "accepted"
        }
        #expect(error("[[power.cec]]\ndevice = \"/dev/cec0\"") == "power.cec[0].output: every [[power.cec]] needs the connector name, such as \"HDMI-A-1\"")
        #expect(error("[[power.cec]]\noutput = \"HDMI-A-1\"") == "power.cec[0].device: every [[power.cec]] needs the adapter, such as \"/dev/cec0\"")
        #expect(error("[[power.cec]]\noutput = \"HDMI-A-1\"\ndevice = \"cec0\"").hasPrefix("power.cec[0].device: must be a CEC adapter"))
        #expect(error("[[power.cec]]\noutput = \"A\"\ndevice = \"/dev/cec0\"\nosd_name = \"fifteen letters!\"").hasPrefix("power.cec[0].osd_name: must be 1 to 14 ASCII characters"))
        #expect(error("[[power.cec]]\noutput = \"A\"\ndevice = \"/dev/cec0\"\n[[power.cec]]\noutput = \"A\"\ndevice = \"/dev/cec1\"") == "power.cec[1].output: A has two [[power.cec]] tables")
        #expect(error("[[power.cec]]\noutput = \"A\"\ndevice = \"/dev/cec0\"\nvendor = 1") == "power.cec[0].vendor: is not a setting laminad knows (see config/laminad.toml)")
    }
}
