import Foundation
import LaminaCore
import Testing

/// Outputs changed at run time on virtio-gpu (issue 27): `laminactl output Virtual-1 mode
/// 1024x768` sets the mode while laminad runs, `transform 90` turns the picture, a mode the
/// display does not offer is refused with the modes it does, and the screen shows each, by
/// QEMU's screendumps. Part of the serialized KMS suite
/// `KMSSystemVMTests`.
extension KMSSystemVMTests {
    @Test func aModeChangeAndARotationAtRunTime() async throws {
        let run = try await VMHarness.run("output-configure", files: ["scene.json": testScene], script: """
            size() { value $1 "$("$L" stats | awk '/^width /{w=$2} /^height /{h=$2} END{print w "x" h}')"; }
            start_laminad
            apply $D/scene.json; settle
            size size_start
            "$L" output Virtual-1 mode 1024x768 >/tmp/out 2>&1 || echo "VMKMS_FAIL output mode: $(cat /tmp/out)"
            value mode_line "$(head -n 1 /tmp/out)"
            nap 0.5; settle
            size size_mode
            shot mode
            "$L" output Virtual-1 transform 90 >/tmp/out 2>&1 || echo "VMKMS_FAIL output transform: $(cat /tmp/out)"
            value turn_line "$(head -n 1 /tmp/out)"
            nap 0.5; settle
            size size_turned
            shot turned
            "$L" output Virtual-1 mode 333x222 >/tmp/out 2>&1 && echo "VMKMS_FAIL a mode the display lacks was taken"
            value refused "$(head -n 1 /tmp/out)"
            "$L" output Virtual-1 disable >/tmp/out 2>&1 && echo "VMKMS_FAIL the only output was disabled"
            value refused_disable "$(head -n 1 /tmp/out)"
            size size_after
            stop_laminad
            """)
        let values = run.values
        #expect(values["size_start"] == "1280x800")
        #expect(values["mode_line"]?.hasPrefix("Virtual-1 mode 1024x768@") == true, "\(values)")
        #expect(values["size_mode"] == "1024x768")
        let mode = try run.shot("mode")
        #expect(mode.width == 1024 && mode.height == 768, "the display shows the new mode")
        expectPixel(mode, 200, 150, (255, 0, 0), "red")
        expectPixel(mode, 1000, 700, (0, 255, 0), "green's part inside 1024x768")
        expectPixel(mode, 600, 450, (0, 0, 0), "background")

        #expect(values["turn_line"]?.contains(" transform 90 scale 1 position 0,0 size 768x1024 ") == true, "\(values)")
        #expect(values["size_turned"] == "768x1024")
        let turned = try run.shot("turned")
        #expect(turned.width == 1024 && turned.height == 768, "the panel keeps its mode; the picture turns")
        // A clockwise quarter turn of the 768×1024 desktop: (x, y) → (1024 − y, x).
        expectPixel(turned, 900, 200, (255, 0, 0), "red, turned to the top right")
        expectPixel(turned, 874, 700, (0, 0, 255), "blue, turned")
        expectPixel(turned, 200, 150, (0, 0, 0), "where red was unturned")

        #expect(values["refused"]?.contains("Virtual-1: the display has no mode 333x222 (it offers ") == true, "\(values)")
        #expect(values["refused_disable"]?.contains("Virtual-1 is the only output") == true, "\(values)")
        #expect(values["size_after"] == "768x1024", "refusals change nothing")
        #expect(values["laminad_exit"] == "0")
    }
}

extension KMSSystemVMTests {
    /// Two heads (issue 27): `laminactl output Virtual-2 disable` takes the second head out of
    /// the desktop and leaves it dark (its connector unbound), `enable` lights it again after the
    /// first, and `position 0 800` puts it under the first: the desktop follows each time.
    @Test func aSecondHeadDisabledEnabledAndMovedAtRunTime() async throws {
        let scene = """
        {"sublayers":[
         {"name":"red","bounds":[0,0,400,300],"position":[200,150],"backgroundColor":"#FF0000FF"},
         {"name":"yellow","bounds":[0,0,400,300],"position":[1580,250],"backgroundColor":"#FFFF00FF"},
         {"name":"cyan","bounds":[0,0,400,300],"position":[300,1000],"backgroundColor":"#00FFFFFF"}
        ]}
        """
        let run = try await VMHarness.run("output-heads", outputs: 2, vncHead: 1, files: ["scene.json": scene], script: """
            size() { value $1 "$("$L" stats | awk '/^width /{w=$2} /^height /{h=$2} END{print w "x" h}')"; }
            names() { value $1 "$("$L" output | cut -d' ' -f1 | paste -sd,)"; }
            start_laminad
            echo "VMKMS_RESIZE 1 1024 768"; read _
            wait_log "Virtual-2 connected" 100
            apply $D/scene.json; nap 1; settle
            size size_two; names names_two
            "$L" output Virtual-2 disable >/tmp/out 2>&1 || echo "VMKMS_FAIL disable: $(cat /tmp/out)"
            nap 0.5; settle
            size size_disabled; names names_disabled
            value enabled_disabled "$(cat /sys/class/drm/card0-Virtual-2/enabled)"
            "$L" output Virtual-2 enable >/tmp/out 2>&1 || echo "VMKMS_FAIL enable: $(cat /tmp/out)"
            nap 0.5; settle
            size size_enabled; names names_enabled
            shot enabled 1
            "$L" output Virtual-2 position 0 800 >/tmp/out 2>&1 || echo "VMKMS_FAIL position: $(cat /tmp/out)"
            value moved_line "$(cat /tmp/out)"
            nap 0.5; settle
            size size_moved
            shot moved 1
            stop_laminad
            """)
        let values = run.values
        #expect(values["size_two"] == "2304x800" && values["names_two"] == "Virtual-1,Virtual-2", "\(values)")
        #expect(values["size_disabled"] == "1280x800" && values["names_disabled"] == "Virtual-1", "\(values)")
        #expect(values["enabled_disabled"] == "disabled", "the dark head's connector is released: \(values)")
        #expect(values["size_enabled"] == "2304x800" && values["names_enabled"] == "Virtual-1,Virtual-2", "\(values)")
        expectPixel(try run.shot("enabled"), 300, 250, (255, 255, 0), "yellow on the second head again")
        #expect(values["moved_line"]?.hasPrefix("Virtual-2 mode 1024x768@") == true && values["moved_line"]?.contains(" position 0,800 size 1024x768 ") == true,
                "\(values)")
        #expect(values["size_moved"] == "1280x1568")
        let moved = try run.shot("moved")
        expectPixel(moved, 300, 200, (0, 255, 255), "cyan at desktop (100…500, 850…1150) on the head under the first")
        expectPixel(moved, 700, 500, (0, 0, 0), "background")
        #expect(values["laminad_exit"] == "0")
    }
}
