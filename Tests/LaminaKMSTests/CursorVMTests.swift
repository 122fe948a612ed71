import Foundation
import LaminaCore
import Testing

/// Shell functions for reading the cursor plane from the kernel's atomic state (debugfs): QEMU's
/// screendump leaves virtio-gpu's cursor out, so the plane is checked instead of pixels.
private let cursorState = """
    mount -t debugfs none /sys/kernel/debug 2>/dev/null
    # cursor_pos: the 64x64 cursor plane's place on the CRTC, or nothing while it has no framebuffer.
    cursor_pos() { grep -o 'crtc-pos=64x64[-+][0-9]*[-+][0-9]*' /sys/kernel/debug/dri/0/state; }
    planes_with_fb() { grep -c 'fb=[1-9]' /sys/kernel/debug/dri/0/state; }
    # move X Y: inject pointer motion and wait until laminad has placed the cursor (the Nth
    # debug line, counted by the caller's MOVES).
    move() { "$L" input pointer move -- "$1" "$2" || echo "VMKMS_FAIL pointer move"; MOVES=$((MOVES+1)); wait_count "kms: cursor at" $MOVES 50; }
    MOVES=0

    """

extension KMSVMTests {
    /// `[display] cursor = true` on virtio-gpu (atomic): the cursor starts at the first output's
    /// centre; `laminactl input pointer move` moves the cursor plane at once (no modeset), to
    /// the pixel under the point (the arrow's tip at its buffer's top-left, so the plane's
    /// place is that pixel); a point outside the desktop is clamped into it; a touch hides the
    /// plane (no framebuffer) until the pointer moves again. Then with `cursor_hide_after` 2 s
    /// (times the guest's speed factor) the cursor shows after a motion (laminad's line placing
    /// the plane: the plane itself may hide before a slow guest reads it) and, once that time
    /// passed, hides (after that line, and the plane has no framebuffer). Then on an output turned 90°
    /// (`transform=90`, an 800x1280 desktop on the 1280x800 panel) the point (100, 200) lands
    /// on panel pixel (1280 − 200.5, 100.5) → (1079, 100), and the turned arrow's tip is at
    /// (16, 0) of its buffer, so the plane goes to (1063, 100). Last, the same moves with legacy
    /// modesetting.
    @Test func cursorFollowsThePointerHidesAndTurns() async throws {
        let run = try await VMHarness.run("cursor", files: [
            "cursor.toml": "[display]\ncursor = true\ncursor_hide_after = 0\n",
        ], script: cursorState + """
            start_laminad --config $D/cursor.toml --log-level trace
            wait_count "first frame on screen" 1 150
            value start_pos "$(cursor_pos)"
            value start_fbs "$(planes_with_fb)"
            modesets_before=$(grep -c 'modeset in' $LOG)
            move 100 200
            value moved_pos "$(cursor_pos)"
            move 1279 799
            value corner_pos "$(cursor_pos)"
            move 5000 -30
            value clamped_pos "$(cursor_pos)"
            value modesets_for_moves $(( $(grep -c 'modeset in' $LOG) - modesets_before ))
            "$L" input touch down 1 50 50 || echo "VMKMS_FAIL touch down"
            "$L" input touch up 1 || echo "VMKMS_FAIL touch up"
            wait_log "cursor: hidden (touch)" 50
            wait_log "kms: cursor hidden" 50
            value touched_pos "$(cursor_pos)"
            value touched_fbs "$(planes_with_fb)"
            move 640 400
            value again_pos "$(cursor_pos)"
            stop_laminad
            value after_exit_pos "$(cursor_pos)"

            printf '[display]\\ncursor = true\\ncursor_hide_after = %s\\n' "$(scaled 2)" >/tmp/hide.toml
            start_laminad --config /tmp/hide.toml
            wait_count "first frame on screen" 2 150
            hidden_before=$(grep -c "kms: cursor hidden" $LOG)
            move 300 300
            wait_log "s without pointer motion)" 300
            wait_count "kms: cursor hidden" $((hidden_before+1)) 300
            value shown_then_hidden "$(awk '/kms: cursor at 300,300 on Virtual-1: plane at 300,300,/ { s = NR }
                /cursor: hidden \\([0-9.]* s without pointer motion\\)/ && s { h = NR } END { print (s && h > s) ? "yes" : "no" }' $LOG)"
            value idle_pos "$(cursor_pos)"
            value idle_fbs "$(planes_with_fb)"
            stop_laminad

            start_laminad --config $D/cursor.toml --output Virtual-1:transform=90
            wait_count "first frame on screen" 3 150
            value turned_start_pos "$(cursor_pos)"
            move 100 200
            value turned_pos "$(cursor_pos)"
            value turned_line "$(grep -c 'kms: cursor at 1079,100 on Virtual-1: plane at 1063,100, hot spot 16,0 (90)' $LOG)"
            stop_laminad

            export LAMINA_KMS_NO_ATOMIC=1
            start_laminad --config $D/cursor.toml
            wait_count "first frame on screen" 4 150
            value legacy_start_pos "$(cursor_pos)"
            move 100 200
            value legacy_pos "$(cursor_pos)"
            "$L" input touch down 1 50 50 || echo "VMKMS_FAIL touch down"
            wait_count "kms: cursor hidden" 2 50
            value legacy_touched_pos "$(cursor_pos)"
            stop_laminad
            """)
        let v = run.values
        #expect(run.serial.contains("kms: cursor on Virtual-1 at 640,400 (cursor plane"), "the first output's centre")
        #expect(v["start_pos"] == "crtc-pos=64x64+640+400")
        #expect(v["start_fbs"] == "2", "primary and cursor planes scan out")
        #expect(v["moved_pos"] == "crtc-pos=64x64+100+200")
        #expect(v["corner_pos"] == "crtc-pos=64x64+1279+799")
        #expect(v["clamped_pos"] == "crtc-pos=64x64+1279+0", "(5000, −30) is clamped to the desktop's top-right pixel")
        #expect(v["modesets_for_moves"] == "0", "moving the cursor needs no modeset")
        #expect((v["touched_pos"] ?? "") == "", "a touch hides the cursor plane: \(v["touched_pos"] ?? "?")")
        #expect(v["touched_fbs"] == "1", "only the primary plane scans out after a touch")
        #expect(v["again_pos"] == "crtc-pos=64x64+640+400", "pointer motion shows it again")
        #expect((v["after_exit_pos"] ?? "") == "", "the console gets its CRTC back without our cursor: \(v["after_exit_pos"] ?? "?")")
        #expect(v["shown_then_hidden"] == "yes", "the plane placed at (300, 300), then hidden for want of motion")
        #expect((v["idle_pos"] ?? "") == "", "hidden after the time without motion: \(v["idle_pos"] ?? "?")")
        #expect(v["idle_fbs"] == "1")
        // 800x1280 desktop: its centre (400, 640) → (1280 − 640.5, 400.5) → (639, 400), less the hot spot (16, 0).
        #expect(run.serial.contains("desktop 800x1280"))
        #expect(v["turned_start_pos"] == "crtc-pos=64x64+623+400")
        #expect(v["turned_pos"] == "crtc-pos=64x64+1063+100")
        #expect(v["turned_line"] == "1", "the debug line naming the panel pixel, the plane's place and the turned hot spot")
        // Legacy modesetting (LAMINA_KMS_NO_ATOMIC=1): SetCursor2 after SetCrtc, then the same moves.
        #expect(v["legacy_start_pos"] == "crtc-pos=64x64+640+400")
        #expect(v["legacy_pos"] == "crtc-pos=64x64+100+200")
        #expect((v["legacy_touched_pos"] ?? "") == "", "hidden on legacy too: \(v["legacy_touched_pos"] ?? "?")")
        #expect(v["laminad_exit"] == "0")
    }
}

extension KMSVMTests {
    /// bochs has no cursor plane: the renderer draws the arrow, so pointer motion schedules a
    /// frame that draws it at the new place (and damage repaints the old one), and a touch
    /// schedules one without it.
    @Test func drawnCursorFollowsThePointer() async throws {
        let run = try await VMHarness.run("cursor-drawn", device: "bochs", files: [
            "scene.json": testScene, "cursor.toml": "[display]\ncursor = true\ncursor_hide_after = 0\n",
        ], script: """
            start_laminad --config $D/cursor.toml
            apply $D/scene.json; settle
            shot start
            "$L" input pointer move 900 300 || echo "VMKMS_FAIL pointer move"
            settle
            shot moved
            "$L" input touch down 1 50 50 || echo "VMKMS_FAIL touch down"
            "$L" input touch up 1 || echo "VMKMS_FAIL touch up"
            wait_log "kms: cursor hidden" 50
            settle
            shot touched
            stop_laminad
            """)
        let start = try run.shot("start"), moved = try run.shot("moved"), touched = try run.shot("touched")
        expectPixel(start, 641, 403, (255, 255, 255), "the arrow's fill at the output's centre")
        expectPixel(moved, 900, 300, (0, 0, 0), "the arrow's outlined tip at the pointer")
        expectPixel(moved, 901, 303, (255, 255, 255), "the arrow's fill at the pointer")
        expectPixel(moved, 903, 305, (255, 255, 255), "the arrow's fill at the pointer")
        expectPixel(moved, 641, 403, (0, 0, 0), "the old arrow is gone")
        expectPixel(moved, 200, 150, (255, 0, 0), "red kept")
        expectPixel(touched, 901, 303, (0, 0, 0), "hidden after a touch")
        expectPixel(touched, 200, 150, (255, 0, 0), "red kept")
        #expect(run.values["laminad_exit"] == "0")
    }
}

extension KMSVMTests {
    /// Two heads (Virtual-2 connected by the host, at desktop x 1280): pointer motion across
    /// the edge takes the cursor off Virtual-1's CRTC and puts it on Virtual-2's, and back.
    @Test func cursorCrossesOutputs() async throws {
        let run = try await VMHarness.run("cursor-heads", outputs: 2, vncHead: 1, files: [
            "cursor.toml": "[display]\ncursor = true\ncursor_hide_after = 0\n",
        ], script: cursorState + """
            # cursor_crtcs: each CRTC showing a 64x64 cursor plane, and where.
            cursor_crtcs() { awk '/^plane/{c=""} /crtc=crtc/{c=$1} /crtc-pos=64x64/{printf "%s %s;", c, $1}' /sys/kernel/debug/dri/0/state; }
            start_laminad --config $D/cursor.toml
            wait_log "first frame on screen" 150
            echo "VMKMS_RESIZE 1 1024 768"; read _
            wait_log "Virtual-2 connected" 100
            settle
            move 1380 100
            value second "$(cursor_crtcs)"
            move 1200 700
            value first "$(cursor_crtcs)"
            stop_laminad
            """)
        let v = run.values
        #expect(v["second"] == "crtc=crtc-1 crtc-pos=64x64+100+100;", "only Virtual-2's CRTC shows it: \(v["second"] ?? "?")")
        #expect(v["first"] == "crtc=crtc-0 crtc-pos=64x64+1200+700;", "back on Virtual-1 only: \(v["first"] ?? "?")")
        #expect(run.log.contains("kms: cursor on Virtual-2 at 100,100 (cursor plane"))
        #expect(v["laminad_exit"] == "0")
    }
}
