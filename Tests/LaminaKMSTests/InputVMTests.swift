import Foundation
import Testing

/// What laminad's input layer logged in a guest: each `InputAction` it handed to the router
/// (`input: <logDescription>`, debug level) and each device it announced, as the guest script's
/// `input_log` printed them at its end.
///
/// When the router lands, tests add what the clients received beside `actions`.
struct InputLog {
    /// The actions in order, as `InputAction.logDescription` writes them.
    let actions: [String]
    /// "added 'NAME' (…) → OUTPUT [eventN]" and "removed 'NAME' [eventN]" lines, in order.
    let devices: [String]
    /// Every `input: ` line whole, with its time, level and source.
    let lines: [String]

    static let actionPrefixes = ["touchDown(", "touchMotion(", "touchUp(", "touchCancel(", "pointerMotion(", "pointerButton(",
                                 "pointerAxis(", "key(", "cancelAll"]

    init(_ run: VMHarness.Run) {
        var actions: [String] = [], devices: [String] = []
        lines = run.serial.split(whereSeparator: \.isNewline).filter { $0.hasPrefix("VMKMS_INPUT ") }.map { String($0.dropFirst(12)) }
        for line in lines {
            guard let range = line.range(of: " input: ") else { continue }
            let text = String(line[range.upperBound...]).trimmingCharacters(in: .whitespacesAndNewlines)
            if Self.actionPrefixes.contains(where: text.hasPrefix) {
                actions.append(text)
            } else if text.hasPrefix("added '") || text.hasPrefix("removed '") {
                devices.append(text)
            }
        }
        self.actions = actions
        self.devices = devices
    }

    /// Expects `expected` among the actions in this order (others may come between them).
    func expectActions(_ expected: [String], sourceLocation: SourceLocation = #_sourceLocation) {
        var rest = actions[...]
        for action in expected {
            guard let i = rest.firstIndex(of: action) else {
                Issue.record("no \(action) in order among laminad's input actions:\n\(actions.joined(separator: "\n"))", sourceLocation: sourceLocation)
                return
            }
            rest = rest[(i + 1)...]
        }
    }

    /// The device line that starts with `prefix`, expected once at least.
    @discardableResult
    func expectDevice(_ prefix: String, sourceLocation: SourceLocation = #_sourceLocation) -> String? {
        let line = devices.first { $0.hasPrefix(prefix) }
        #expect(line != nil, "no device line starting \(prefix) among:\n\(devices.joined(separator: "\n"))", sourceLocation: sourceLocation)
        return line
    }
}

/// QMP `input-send-event` arguments for QEMU's virtio tablet and keyboard.
/// A tablet move to (x, y) in QEMU's 0…32767 range.
func qmpTablet(_ x: Int, _ y: Int) -> String {
    #"{"events":[{"type":"abs","data":{"axis":"x","value":\#(x)}},{"type":"abs","data":{"axis":"y","value":\#(y)}}]}"#
}

/// The tablet's left button.
func qmpButton(_ down: Bool) -> String { #"{"events":[{"type":"btn","data":{"down":\#(down),"button":"left"}}]}"# }

/// A key by its QEMU qcode ("a", "shift", "ret", "f2").
func qmpKey(_ qcode: String, _ down: Bool) -> String {
    #"{"events":[{"type":"key","data":{"down":\#(down),"key":{"type":"qcode","data":"\#(qcode)"}}}]}"#
}

/// libinput takes only devices udev has seen: the input tests run the host's systemd-udevd in
/// the guest. Cancels the test (a skip, with the reason) where it is not installed.
func requireUdev() throws {
    guard FileManager.default.isExecutableFile(atPath: "/lib/systemd/systemd-udevd") else {
        let reason = "systemd-udevd is not installed (scripts/deps.sh installs udev); the input VM tests need it in the guest"
        if ProcessInfo.processInfo.environment["LAMINA_REQUIRE_VM"] == "1" {
            Issue.record(Comment(rawValue: reason))
            throw VMUnavailable(reason: reason)
        }
        try Test.cancel(Comment(rawValue: reason))
    }
}

/// laminad's input devices in QEMU guests: QEMU's virtio keyboard and tablet driven over QMP,
/// and multi-touch screens made with uinput inside the guest (lamina-uinput), all through
/// libinput's udev backend (systemd-udevd runs in the guest). Part of the serialized KMS suite
/// `KMSVMTests` (KMSVMTests.swift).
extension KMSVMTests {
    /// QEMU's tablet and keyboard (virtio) on a 1280x800 virtio-gpu output, German keymap from
    /// the configuration. A tablet move to (0.25, 0.5) of the screen is the desktop point
    /// (320, 400); the left button; Shift+a types "A"; KEY_Y types "z" (German layout); Return.
    /// Then a VT switch away cancels everything in flight and closes the devices, and back
    /// opens them again: a move to the screen's centre is (640, 400).
    @Test func qemuTabletAndKeyboardBecomeInputActions() async throws {
        try requireUdev()
        let run = try await VMHarness.run("input-qemu", input: true, files: [
            "input.toml": "[input]\nkeyboard_layout = \"de\"\n",
        ], script: """
            start_udev
            start_laminad --config $D/input.toml
            wait_log "input: added 'QEMU Virtio Tablet'" 150
            wait_log "input: added 'QEMU Virtio Keyboard'" 150
            qmp input-send-event '\(qmpTablet(8192, 16384))'
            wait_log "pointerMotion(to: (320.0, 400.0))" 100
            qmp input-send-event '\(qmpButton(true))'
            qmp input-send-event '\(qmpButton(false))'
            wait_log "pointerButton(code: 0x110, pressed: false)" 100
            qmp input-send-event '\(qmpKey("shift", true))'
            qmp input-send-event '\(qmpKey("a", true))'
            qmp input-send-event '\(qmpKey("a", false))'
            qmp input-send-event '\(qmpKey("shift", false))'
            qmp input-send-event '\(qmpKey("y", true))'
            qmp input-send-event '\(qmpKey("y", false))'
            qmp input-send-event '\(qmpKey("ret", true))'
            qmp input-send-event '\(qmpKey("ret", false))'
            wait_log 'name: "Return", text: ""' 100
            busybox chvt 2
            wait_log "input: session switched away" 100
            busybox chvt 1
            wait_log "input: session back" 100
            wait_count "input: added 'QEMU Virtio Tablet'" 2 150
            qmp input-send-event '\(qmpTablet(16384, 16384))'
            wait_log "pointerMotion(to: (640.0, 400.0))" 100
            stop_laminad
            input_log
            """)
        let log = InputLog(run)
        #expect(run.serial.contains("input: keymap rules 'evdev', model 'pc105', layout 'de'"))
        #expect(run.serial.contains("input: libinput on seat seat0"))
        log.expectDevice("added 'QEMU Virtio Tablet' (pointer, absolute) → Virtual-1 [event")
        log.expectDevice("added 'QEMU Virtio Keyboard' (keyboard")
        log.expectActions([
            "pointerMotion(to: (320.0, 400.0))",
            "pointerButton(code: 0x110, pressed: true)",
            "pointerButton(code: 0x110, pressed: false)",
            #"key(code: 42, pressed: true, keysym: 0xffe1, name: "Shift_L", text: "")"#,
            #"key(code: 30, pressed: true, keysym: 0x41, name: "A", text: "A")"#,
            #"key(code: 30, pressed: false, keysym: 0x41, name: "A", text: "")"#,
            #"key(code: 42, pressed: false, keysym: 0xffe1, name: "Shift_L", text: "")"#,
            #"key(code: 21, pressed: true, keysym: 0x7a, name: "z", text: "z")"#,
            #"key(code: 28, pressed: true, keysym: 0xff0d, name: "Return", text: "\r")"#,
            #"key(code: 28, pressed: false, keysym: 0xff0d, name: "Return", text: "")"#,
            "cancelAll",
            "pointerMotion(to: (640.0, 400.0))",
        ])
        // Announced once at info level: the VT switch's removal and re-adding are debug lines.
        #expect(log.lines.filter { $0.contains("info laminad: [LaminaDaemon] input: added 'QEMU Virtio Tablet'") }.count == 1)
        #expect(log.lines.filter { $0.contains("debug laminad: [LaminaDaemon] input: added 'QEMU Virtio Tablet'") }.count == 1)
        #expect(run.serial.contains("input: session switched away: cancelling input in flight and closing the devices"))
        #expect(run.values["laminad_exit"] == "0")
    }

    /// An ordinary user through seatd: libinput's devices are opened by seatd (libseat), as the
    /// card is. A tablet move reaches laminad; switching to VT 2 disables the seat, which
    /// cancels input in flight and closes the devices before laminad acknowledges; back on VT 1
    /// seatd opens them again and the next move arrives.
    @Test func devicesThroughSeatdAsOrdinaryUser() async throws {
        try requireUdev()
        let run = try await VMHarness.run("input-seat", input: true, script: """
            start_udev
            seatd -u nobody -g nogroup -l info >/tmp/seatd.log 2>&1 &
            SEATD=$!
            poll 50 test -S /run/seatd.sock || echo "VMKMS_FAIL seatd did not listen"
            value event_mode "$(stat -c %a:%U /dev/input/event2)"
            mkdir -p /tmp/kiosk; chown nobody /tmp/kiosk
            export LAMINA_SOCKET=/tmp/kiosk/lamina.sock
            # A copy the ordinary user may run: the checkout may lie in a folder only root can
            # enter (mktemp -d makes it 0700).
            cp "$LAMINAD" /tmp/kiosk/laminad; chmod 755 /tmp/kiosk/laminad
            setpriv --reuid=65534 --regid=65534 --clear-groups env HOME=/tmp/kiosk XDG_RUNTIME_DIR=/tmp/kiosk \
                /tmp/kiosk/laminad --backend kms --socket $LAMINA_SOCKET --log-level debug >>$LOG 2>&1 &
            PID=$!
            poll 300 listening && calibrate
            wait_log "input: added 'QEMU Virtio Tablet'" 200
            qmp input-send-event '\(qmpTablet(32767, 0))'
            wait_log "pointerMotion(to: (1279.96, 0.0))" 100
            busybox chvt 2
            wait_log "input: session switched away" 100
            wait_log "seat disabled" 50
            busybox chvt 1
            wait_log "input: session back" 100
            wait_count "input: added 'QEMU Virtio Tablet'" 2 150
            qmp input-send-event '\(qmpTablet(0, 16384))'
            wait_log "pointerMotion(to: (0.0, 400.0))" 100
            kill -0 $PID && value alive yes
            stop_laminad
            kill $SEATD
            input_log
            """)
        let log = InputLog(run)
        #expect(run.values["event_mode"] == "600:root", "the event nodes are not open to nobody directly")
        #expect(run.serial.contains("input: libinput on seat seat0 (devices through libseat)"))
        log.expectDevice("added 'QEMU Virtio Tablet' (pointer, absolute) → Virtual-1 [event")
        log.expectActions(["pointerMotion(to: (1279.96, 0.0))", "cancelAll", "pointerMotion(to: (0.0, 400.0))"])
        #expect(run.values["alive"] == "yes")
        #expect(run.values["laminad_exit"] == "0")
    }

    /// Touchscreens made with uinput inside the guest after laminad started (hotplug), on
    /// Virtual-1 turned 90° (`--output Virtual-1:transform=90`: the desktop is 800x1280). A
    /// touch at the panel's (0.25, 0.5) is a quarter from the panel's left and halfway down;
    /// the picture's left column runs along the panel's top row, so it is halfway across the
    /// picture and three quarters down: (400, 960). A second touchscreen with a configured
    /// calibration [0.5, 0, 0.1, 0, 0.5, 0.2] sees the same touch at (0.225, 0.45), which is
    /// (0.45·800, 0.775·1280) = (360, 992). Closing each tool's input removes its device.
    @Test func uinputTouchscreensOnARotatedOutput() async throws {
        try requireUdev()
        let config = """
            [[input.device]]
            match = "Lamina Calibrated Touch"
            output = "Virtual-1"
            calibration = [0.5, 0, 0.1, 0, 0.5, 0.2]
            """
        let run = try await VMHarness.run("input-touch", files: ["touch.toml": config], script: """
            start_udev
            start_laminad --output Virtual-1:transform=90 --config $D/touch.toml
            wait_log "input: libinput on seat" 100
            mkfifo /tmp/touch1 /tmp/touch2
            "$B/lamina-uinput" --name "Lamina Test Touch" </tmp/touch1 >>$LOG 2>&1 &
            exec 3>/tmp/touch1
            wait_log "input: added 'Lamina Test Touch'" 150
            echo "down 0 0.25 0.5" >&3
            wait_log "touchDown(id: 0" 100
            echo "move 0 0.5 0.5" >&3
            wait_log "touchMotion(id: 0" 100
            echo "up 0" >&3
            wait_log "touchUp(id: 0)" 100
            # Without the first tool's pipe (fd 3), so closing it ends the first tool.
            "$B/lamina-uinput" --name "Lamina Calibrated Touch" </tmp/touch2 3>&- >>$LOG 2>&1 &
            exec 4>/tmp/touch2
            wait_log "input: added 'Lamina Calibrated Touch'" 150
            echo "down 0 0.25 0.5" >&4
            wait_count "touchDown(id: 0" 2 100
            echo "down 1 0.5 0.5" >&4
            wait_log "touchDown(id: 1" 100
            echo "up 1" >&4
            echo "up 0" >&4
            wait_count "touchUp(id: 0)" 2 100
            echo "down 2 0.5 0.5" >&4
            wait_log "touchDown(id: 0, at: (360.0, 832.0))" 100
            exec 3>&-
            wait_log "input: removed 'Lamina Test Touch'" 150
            exec 4>&-
            wait_log "input: removed 'Lamina Calibrated Touch'" 150
            kill -0 $PID && value alive yes
            stop_laminad
            input_log
            """)
        let log = InputLog(run)
        #expect(run.serial.contains("desktop 800x1280"))
        log.expectDevice("added 'Lamina Test Touch' (touch, absolute) → Virtual-1 [event")
        let calibrated = log.expectDevice("added 'Lamina Calibrated Touch' (touch, absolute) → Virtual-1 [event")
        #expect(calibrated?.hasSuffix("calibration [0.5, 0.0, 0.1, 0.0, 0.5, 0.2]") == true, "\(calibrated ?? "")")
        log.expectDevice("removed 'Lamina Test Touch' [event")
        log.expectDevice("removed 'Lamina Calibrated Touch' [event")
        log.expectActions([
            "touchDown(id: 0, at: (400.0, 960.0))",
            "touchMotion(id: 0, to: (400.0, 640.0))",
            "touchUp(id: 0)",
            "touchDown(id: 0, at: (360.0, 992.0))",
            // (0.5, 0.5) calibrated is (0.35, 0.45): (0.45·800, 0.65·1280).
            "touchDown(id: 1, at: (360.0, 832.0))",
            "touchUp(id: 1)",
            "touchUp(id: 0)",
            // A finger still down when its device goes: cancelled, not lifted.
            "touchDown(id: 0, at: (360.0, 832.0))",
            "touchCancel(id: 0)",
        ])
        #expect(run.values["alive"] == "yes")
        #expect(run.values["laminad_exit"] == "0")
    }
}

extension KMSVMTests {
    /// Real devices all the way to clients: QEMU's tablet over a kept scene reaches the layer
    /// under it (`laminactl events`: enter, move, press, release on "bg", not injected, with the
    /// kernel's timestamp). Then `lamina-probe input-latency` measures kernel event → client for
    /// tablet moves (a figure for the notes; the test checks only that one came out).
    @Test func deviceEventsReachClientsWithLatency() async throws {
        try requireUdev()
        let scene = ##"{"sublayers":[{"name":"bg","bounds":[0,0,1280,800],"position":[640,400],"backgroundColor":"#202040"},{"name":"btn","bounds":[0,0,100,100],"position":[1000,600],"backgroundColor":"#FF0000"}]}"##
        let run = try await VMHarness.run("input-clients", input: true, files: ["scene.json": scene], script: """
            start_udev
            start_laminad
            wait_log "input: added 'QEMU Virtio Tablet'" 150
            apply $D/scene.json; settle
            "$L" events --count 5 >/tmp/events.txt 2>/tmp/events.err &
            EV=$!
            poll 100 grep -q listening /tmp/events.err || echo "VMKMS_FAIL laminactl events did not listen"
            qmp input-send-event '\(qmpTablet(8192, 16384))'
            qmp input-send-event '\(qmpButton(true))'
            qmp input-send-event '\(qmpButton(false))'
            poll 100 gone $EV
            value events "$(tr '\\n' '|' </tmp/events.txt)"
            "$B/lamina-probe" input-latency 20 100 >/tmp/latency.txt 2>&1 &
            LB=$!
            poll 900 grep -q ready /tmp/latency.txt || echo "VMKMS_FAIL lamina-probe input-latency did not get ready"
            # Tablet moves until it has its 20 events (each move is one; a slow guest takes longer).
            x=4000
            nudge() {
                gone $LB && return 0
                qmp input-send-event "$(printf '{"events":[{"type":"abs","data":{"axis":"x","value":%d}},{"type":"abs","data":{"axis":"y","value":12000}}]}' $x)"
                x=$(( 4000 + (x - 4000 + 300) % 24000 ))
                return 1
            }
            poll 300 nudge || echo "VMKMS_FAIL lamina-probe input-latency did not get its events"
            value latency "$(grep 'input latency' /tmp/latency.txt)"
            stop_laminad
            """)
        #expect(run.failures.isEmpty, "\(run.failures)")
        let events = (run.values["events"] ?? "").split(separator: "|").map(String.init)
        #expect(events.count == 5, "\(events)")
        // The tablet took the pointer to (320, 400): over "bg", in its coordinates the same point.
        let kinds = events.compactMap { e in e.range(of: #""type":""#).map { String(e[$0.upperBound...].prefix { $0 != "\"" }) } }
        #expect(kinds == ["pointerEnter", "pointerMove", "focusIn", "buttonPress", "buttonRelease"])
        #expect(events.filter { !$0.contains("focus") }.allSatisfy {
            $0.contains(#""layer":"bg""#) && $0.contains(#""location":[320,400]"#) && $0.contains(#""deviceTime":"#) && !$0.contains("injected")
        })
        let latency = run.values["latency"] ?? ""
        #expect(latency.contains("20 events over 101 layers: median "), "\(latency)")
    }
}

extension KMSVMTests {
    /// laminad on the VT it holds as root reads the keyboard itself: the console behind it
    /// (a getty, a shell) must not see what is typed on the kiosk, and Ctrl+Alt+Fn switches
    /// VTs through laminad. The control run, with laminad's input off, shows the check can fail:
    /// there the console gets the keys.
    @Test func theConsoleDoesNotSeeKeysLaminadReads() async throws {
        try requireUdev()
        func type(_ keys: [String]) -> String {
            keys.map { "qmp input-send-event '\(qmpKey($0, true))'\nqmp input-send-event '\(qmpKey($0, false))'" }.joined(separator: "\n")
        }
        let ctrlAltF2 = ["ctrl", "alt", "f2"].map { "qmp input-send-event '\(qmpKey($0, true))'" }.joined(separator: "\n")
            + "\n" + ["f2", "alt", "ctrl"].map { "qmp input-send-event '\(qmpKey($0, false))'" }.joined(separator: "\n")
        let run = try await VMHarness.run("input-console", input: true, files: ["off.toml": "[input]\nenabled = false\n"], script: """
            start_udev
            cat /dev/tty1 >/tmp/tty1.txt 2>/dev/null &
            CAT=$!
            start_laminad --config $D/off.toml
            wait_log "first frame on screen" 150
            \(type(["a", "ret"]))
            poll 50 test -s /tmp/tty1.txt
            value control "$(tr -d '\\r\\n' </tmp/tty1.txt)"
            stop_laminad
            : >/tmp/tty1.txt
            start_laminad
            wait_log "input: added 'QEMU Virtio Keyboard'" 150
            wait_log "no longer reads the keyboard" 50
            \(type(["b", "ret"]))
            wait_log 'name: "Return", text: "\\\\r")' 100
            nap 0.5
            value typed "$(tr -d '\\r\\n' </tmp/tty1.txt)x"
            \(ctrlAltF2)
            wait_log "input: session switched away" 100
            # The kernel finishes the switch once laminad has released the VT: look until it shows.
            on_tty2() { [ "$(cat /sys/class/tty/tty0/active)" = tty2 ]; }
            poll 50 on_tty2
            value vt "$(cat /sys/class/tty/tty0/active)"
            busybox chvt 1
            wait_log "input: session back" 100
            stop_laminad
            kill $CAT 2>/dev/null
            """)
        #expect(run.failures.isEmpty, "\(run.failures)")
        let values = run.values
        #expect(values["control"] == "a", "with laminad's input off the console gets the keys: \(values["control"] ?? "?")")
        #expect(values["typed"] == "x", "the console saw '\(values["typed"] ?? "?")' while laminad read the keyboard")
        #expect(run.log.contains("input: Ctrl+Alt+F2: switching to VT 2"))
        #expect(values["vt"] == "tty2")
        #expect(values["laminad_exit"] == "0")
    }
}

extension KMSVMTests {
    /// Input follows a rotation made at run time at once (issue 27): a uinput touchscreen's touch
    /// at the panel's (0.25, 0.5) lands at (320, 400) of the 1280x800 desktop; after
    /// `laminactl output Virtual-1 transform 90` the same touch lands where the finger is on the
    /// turned picture (800x1280): (400, 960), as when laminad starts turned.
    @Test func touchFollowsARotationMadeAtRunTime() async throws {
        try requireUdev()
        let run = try await VMHarness.run("input-turned", script: """
            start_udev
            start_laminad
            wait_log "input: libinput on seat" 100
            mkfifo /tmp/touch1
            "$B/lamina-uinput" --name "Lamina Test Touch" </tmp/touch1 >>$LOG 2>&1 &
            exec 3>/tmp/touch1
            wait_log "input: added 'Lamina Test Touch'" 150
            echo "down 0 0.25 0.5" >&3
            wait_log "touchDown(id: 0" 100
            echo "up 0" >&3
            wait_log "touchUp(id: 0)" 100
            "$L" output Virtual-1 transform 90 >/tmp/out 2>&1 || echo "VMKMS_FAIL output transform: $(cat /tmp/out)"
            echo "down 0 0.25 0.5" >&3
            wait_count "touchDown(id: 0" 2 100
            echo "up 0" >&3
            wait_count "touchUp(id: 0)" 2 100
            exec 3>&-
            wait_log "input: removed 'Lamina Test Touch'" 150
            stop_laminad
            input_log
            """)
        let log = InputLog(run)
        #expect(run.serial.contains("desktop 1280x800 → 800x1280"))
        log.expectActions([
            "touchDown(id: 0, at: (320.0, 400.0))",
            "touchUp(id: 0)",
            "touchDown(id: 0, at: (400.0, 960.0))",
            "touchUp(id: 0)",
        ])
        #expect(run.values["laminad_exit"] == "0")
    }
}
