import LaminaCore
import LaminaDaemon
import LaminaServer
import LaminaKMS
import Testing

@Suite("frame pacing")
struct RepaintSchedulerTests {
    @Test func idleStartsAtOnce() {
        var s = RepaintScheduler(refreshInterval: 1.0 / 60, repaintWindow: 0.007)
        #expect(s.repaintTime(now: 5) == 5)
        s.presented(at: 5)
        // Long idle: start now.
        #expect(s.repaintTime(now: 9) == 9)
    }

    /// Virtual GPUs complete a flip about a millisecond after the commit, with no vblank: the
    /// next frame still waits for the refresh less the window, so an animation cannot spin.
    @Test func pacesToTheRefreshWithoutVblank() {
        var s = RepaintScheduler(refreshInterval: 1.0 / 60, repaintWindow: 0.007)
        var now = 10.0
        var starts: [Double] = []
        for _ in 0..<5 {
            let start = s.repaintTime(now: now)
            starts.append(start)
            s.frameStarted(at: start)
            now = start + 0.004  // render
            now += 0.001  // the flip event arrives
            s.presented(at: now)
        }
        for (a, b) in zip(starts.dropFirst(), starts.dropFirst(2)) {
            #expect(abs((b - a) - 1.0 / 60) < 1e-9, "frames \(b - a) s apart")
        }
    }

    @Test func animationsAimAtTheNextRefresh() {
        var s = RepaintScheduler(refreshInterval: 0.02, repaintWindow: 0.005)
        s.presented(at: 1.0)
        #expect(abs(s.targetRefresh(startingAt: 1.015) - 1.02) < 1e-9)
        // Late: the first refresh the frame can still make.
        #expect(abs(s.targetRefresh(startingAt: 1.019) - 1.04) < 1e-9)
    }

    @Test func windowIsClampedToTheRefresh() {
        let s = RepaintScheduler(refreshInterval: 0.01, repaintWindow: 0.5)
        #expect(s.repaintWindow == 0.01)
    }
}

@Suite("output transforms")
struct OutputTransformTests {
    func corner(_ t: OutputTransform, _ x: Double, _ y: Double, w: Double = 800, h: Double = 1280) -> (Double, Double) {
        let p = t.matrix(logicalWidth: w, logicalHeight: h).apply(to: Point(x: x, y: y))!
        return (p.x.rounded(), p.y.rounded())
    }

    @Test func quarterTurnsAreClockwise() {
        // An 800x1280 picture on a 1280x800 panel: its top-left goes to the top-right.
        #expect(corner(.rotate90, 0, 0) == (1280, 0))
        #expect(corner(.rotate90, 800, 0) == (1280, 800))
        #expect(corner(.rotate270, 0, 0) == (0, 800))
        #expect(corner(.rotate180, 0, 0, w: 1280, h: 800) == (1280, 800))
        #expect(corner(.flipped, 0, 0, w: 1280, h: 800) == (1280, 0))
        #expect(corner(.normal, 3, 4) == (3, 4))
    }

    @Test func sizesSwapForQuarterTurns() {
        #expect(OutputTransform.rotate90.logicalSize(width: 1280, height: 800) == (800, 1280))
        #expect(OutputTransform.flipped180.logicalSize(width: 1280, height: 800) == (1280, 800))
    }
}

@Suite("modes")
struct ModeRequestTests {
    @Test func parses() {
        #expect(ModeRequest(parsing: "1280x800") == ModeRequest(width: 1280, height: 800))
        #expect(ModeRequest(parsing: "1920x1080@60") == ModeRequest(width: 1920, height: 1080, refreshRate: 60))
        #expect(ModeRequest(parsing: "1920x") == nil)
        #expect(ModeRequest(parsing: "0x10") == nil)
        #expect(ModeRequest(parsing: "10x10@-1") == nil)
    }
}

@Suite("laminad.toml")
struct ConfigurationTests {
    static let shipped = VMHarness.repository + "/config/laminad.toml"

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

/// weston's per-output repaint, as `RepaintPlanner` keeps it: each output paced by its own
/// refresh, a busy output never holding back a free one, and owing the frame it missed.
@Suite("per-output repaint")
struct RepaintPlannerTests {
    @Test func aSlowOutputDoesNotHoldBackAFastOne() {
        var p = RepaintPlanner(repaintWindow: 0.004)
        p.setOutputs([("fast", 1.0 / 60), ("slow", 1.0 / 30)])
        #expect(p.ready(sceneChanged: false) == ["fast", "slow"], "new outputs owe their first frame")
        // Frame 1 on both at t = 0.
        let t1 = p.frameStarted(at: 0, on: ["fast", "slow"], sceneChanged: true)
        #expect(abs(t1 - 0.004) < 1e-9, "aimed at the repaint window's end when idle")
        p.frameSubmitted(["fast", "slow"], flipping: ["fast", "slow"], now: 0.001)
        #expect(p.ready(sceneChanged: true).isEmpty && p.nextFrameTime(now: 0.002, sceneChanged: true) == nil,
                "nothing to draw on while both await their flips")
        // The fast output's flip completes first; the scene keeps changing.
        let fastOwes = p.presented("fast", at: 0.004)
        #expect(!fastOwes)
        #expect(p.ready(sceneChanged: true) == ["fast"])
        let at = p.nextFrameTime(now: 0.005, sceneChanged: true)!
        #expect(abs(at - (0.004 + 1.0 / 60 - 0.004)) < 1e-9, "the fast output's next repaint time")
        let t2 = p.frameStarted(at: at, on: ["fast"], sceneChanged: true)
        #expect(abs(t2 - (0.004 + 1.0 / 60)) < 1e-9, "aimed at the fast output's next refresh")
        p.frameSubmitted(["fast"], flipping: ["fast"], now: at + 0.001)
        // The slow one missed that frame: it owes it once its flip completes.
        let slowOwes = p.presented("slow", at: 0.004 + 1.0 / 30)
        #expect(slowOwes, "the slow output owes the frame it missed")
        #expect(p.ready(sceneChanged: false) == ["slow"])
        _ = p.frameStarted(at: 0.04, on: ["slow"], sceneChanged: false)
        p.frameSubmitted(["slow"], flipping: [], now: 0.041)   // shown by a modeset
        #expect(p.ready(sceneChanged: false).isEmpty, "nothing owed any more")
        #expect(p.anyAwaiting, "fast still awaits its flip")
    }

    @Test func hotplugAddsAndForgetsOutputs() {
        var p = RepaintPlanner(repaintWindow: 0.004)
        p.setOutputs([("A", 1.0 / 60)])
        _ = p.frameStarted(at: 0, on: ["A"], sceneChanged: true)
        p.frameSubmitted(["A"], flipping: ["A"], now: 0)
        p.setOutputs([("A", 1.0 / 75), ("B", 1.0 / 60)])
        #expect(p.outputs["A"]?.isAwaiting == true && p.outputs["A"]?.scheduler.refreshInterval == 1.0 / 75)
        #expect(p.ready(sceneChanged: false) == ["B"], "a new output owes a frame")
        p.setOutputs([("B", 1.0 / 60)])
        #expect(p.outputs["A"] == nil && !p.anyAwaiting)
    }
}
