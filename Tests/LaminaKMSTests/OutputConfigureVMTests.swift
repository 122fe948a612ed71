import Foundation
import LaminaCore
import Testing

/// Outputs changed at run time on virtio-gpu (issue 27): `laminactl output Virtual-1 mode
/// 1024x768` sets the mode while laminad runs, `transform 90` turns the picture, a mode the
/// display does not offer is refused with the modes it does, and the screen shows each, by
/// QEMU's screendumps. Part of the serialized KMS suite.
extension KMSVMTests {
    @Test func aModeChangeAndARotationAtRunTime() throws {
        let run = try VMHarness.run("output-configure", files: ["scene.json": testScene], script: """
            size() { value $1 "$("$B/laminactl" stats | awk '/^width /{w=$2} /^height /{h=$2} END{print w "x" h}')"; }
            start_laminad
            apply $D/scene.json; settle
            size size_start
            "$B/laminactl" output Virtual-1 mode 1024x768 >/tmp/out 2>&1 || echo "VMKMS_FAIL output mode: $(cat /tmp/out)"
            value mode_line "$(head -n 1 /tmp/out)"
            nap 0.5; settle
            size size_mode
            shot mode
            "$B/laminactl" output Virtual-1 transform 90 >/tmp/out 2>&1 || echo "VMKMS_FAIL output transform: $(cat /tmp/out)"
            value turn_line "$(head -n 1 /tmp/out)"
            nap 0.5; settle
            size size_turned
            shot turned
            "$B/laminactl" output Virtual-1 mode 333x222 >/tmp/out 2>&1 && echo "VMKMS_FAIL a mode the display lacks was taken"
            value refused "$(head -n 1 /tmp/out)"
            "$B/laminactl" output Virtual-1 disable >/tmp/out 2>&1 && echo "VMKMS_FAIL the only output was disabled"
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
