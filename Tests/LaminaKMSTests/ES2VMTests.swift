import Foundation
import LaminaCore
import Testing

/// laminad on real KMS in its ES 2 mode (issue 29 §1): the GLSL ES 1.00 renderer path with the
/// extensions Raspberry Pi's VC4 lacks hidden (`--gles vc4`) and an ES 2.0 context
/// (`MESA_GLES_VERSION_OVERRIDE=2.0`), drawing into GBM buffers that virtio-gpu scans out with
/// atomic modesetting: what a Pi 0–3 runs, as near as a guest without a VC4 gets.
///
/// The headless ES 2 suites (every render test run a second time with `LAMINA_GLES=vc4`) check
/// the path's pixels; this checks what only KMS has: the scan-out buffers, buffer-age damage
/// (partial redraws kept between GBM buffers) and a page-flipped animation, on that path.
@Suite("KMS in a QEMU guest, ES 2 mode", .serialized)
struct ES2VMTests {
    /// The scene (solid rectangles, a rounded and bordered panel with a shadow), then a small
    /// change drawn with damage, then an implicit animation, all on the VC4 profile.
    @Test func vc4ProfileShowsTheSceneOnKMS() async throws {
        let panel = ",\n {\"name\":\"panel\",\"bounds\":[0,0,300,200],\"position\":[640,450],\"backgroundColor\":\"#FFFFFFFF\","
            + "\"cornerRadius\":40,\"borderWidth\":6,\"borderColor\":\"#FFFF00FF\",\"shadowOpacity\":1,\"shadowRadius\":0,"
            + "\"shadowOffset\":[0,30],\"shadowColor\":\"#FF00FFFF\"}"
        let dot = ",\n {\"name\":\"dot\",\"bounds\":[0,0,40,40],\"position\":[640,100],\"backgroundColor\":\"#FFFFFFFF\"}"
        let scene = testScene.replacingOccurrences(of: "\n]}", with: panel + dot + "\n]}")
        let yellow = scene.replacingOccurrences(of: "\"backgroundColor\":\"#FFFFFFFF\"}\n]}", with: "\"backgroundColor\":\"#FFFF00FF\"}\n]}")
        let changed = scene.replacingOccurrences(of: "\"backgroundColor\":\"#FFFFFFFF\"}\n]}", with: "\"backgroundColor\":\"#00FFFFFF\"}\n]}")
        let moved = changed.replacingOccurrences(of: #""position":[200,150]"#, with: #""position":[200,550]"#)
        let run = try await VMHarness.run("es2", files: ["scene.json": scene, "yellow.json": yellow, "changed.json": changed, "moved.json": moved], script: """
            export MESA_GLES_VERSION_OVERRIDE=2.0
            start_laminad --gles vc4
            apply $D/scene.json; settle
            shot scene
            "$L" stats >/tmp/stats
            value gles "$(sed -n 's/^renderer.gles //p' /tmp/stats)"
            value context "$(sed -n 's/^renderer.contextVersion //p' /tmp/stats)"
            value hidden "$(sed -n 's/^renderer.extensionsHidden //p' /tmp/stats)"
            # Two changes of the dot: each GBM buffer then holds the scene, so the last frame
            # redraws only the dot (buffer age), as in KMSVMTests.smallChangeFlipsWithDamageClips.
            apply $D/yellow.json; settle
            apply $D/changed.json; settle
            shot changed
            value fraction "$("$L" stats | sed -n 's/^damage.lastFraction //p')"
            animations_done() { "$L" stats | grep -qx 'animations 0'; }
            "$L" apply --duration $(scaled 4) --timing-function linear $D/moved.json >/dev/null || echo "VMKMS_FAIL apply"
            poll 200 animations_done || echo "VMKMS_FAIL the animation did not end"
            settle
            shot moved
            value frames "$("$L" stats | sed -n 's/^display.framesPresented //p')"
            stop_laminad
            """)
        let values = run.values
        #expect(values["gles"] == "2", "renderer.gles: \(values["gles"] ?? "?")")
        #expect(values["context"] == "2" || values["context"] == "2.0", "an ES 2.0 context: renderer.contextVersion \(values["context"] ?? "?")")
        #expect((Int(values["hidden"] ?? "") ?? 0) > 0, "the VC4 profile hid extensions: \(values["hidden"] ?? "?")")
        #expect(run.serial.contains("(virtio_gpu, atomic)"), "the atomic path")
        let shot = try run.shot("scene")
        expectPixel(shot, 200, 150, (255, 0, 0), "red")
        expectPixel(shot, 700, 150, (0, 0, 255), "blue")
        expectPixel(shot, 1080, 650, (0, 255, 0), "green")
        expectPixel(shot, 640, 450, (255, 255, 255), "the panel's middle")
        expectPixel(shot, 640, 353, (255, 255, 0), "the panel's top border")
        // The corner: (490, 350) is outside a 40-point radius, so the background shows there;
        // the shadow (offset 30 down, magenta) shows below the panel's bottom edge.
        expectPixel(shot, 492, 352, (0, 0, 0), "outside the rounded corner")
        expectPixel(shot, 640, 570, (255, 0, 255), "the shadow below the panel")
        expectPixel(shot, 640, 100, (255, 255, 255), "the dot")
        let changedShot = try run.shot("changed")
        expectPixel(changedShot, 640, 100, (0, 255, 255), "the dot changed twice, to cyan")
        expectPixel(changedShot, 200, 150, (255, 0, 0), "red kept outside the damage")
        expectPixel(changedShot, 492, 352, (0, 0, 0), "the corner kept")
        expectPixel(changedShot, 640, 570, (255, 0, 255), "the shadow kept")
        if let fraction = values["fraction"].flatMap(Double.init) {
            #expect(fraction < 0.01, "the change redrew \(fraction) of the output")
        } else {
            Issue.record("no damage.lastFraction in stats")
        }
        let movedShot = try run.shot("moved")
        expectPixel(movedShot, 200, 650, (255, 0, 0), "red moved down")
        expectPixel(movedShot, 200, 100, (0, 0, 0), "nothing left behind")
        #expect((Int(values["frames"] ?? "") ?? 0) > 3, "the animation flipped frames: \(values["frames"] ?? "?")")
        #expect(values["laminad_exit"] == "0")
        print("KMS ES 2: renderer.gles \(values["gles"] ?? "?"), context \(values["context"] ?? "?"), \(values["hidden"] ?? "?") extensions hidden, \(values["frames"] ?? "?") frames presented")
    }
}
