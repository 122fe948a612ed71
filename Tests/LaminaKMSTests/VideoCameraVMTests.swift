import Foundation
import LaminaCore
import Testing

/// A video from a V4L2 camera on real KMS: the kernel's virtual camera (vivid) in the guest,
/// whose buffers GStreamer's v4l2src exports as dma-bufs (issue 14's zero-copy path).
///
/// What the VM can show: the frames arrive in dma-buf memory, laminad decides at run time
/// whether its renderer imports them (here llvmpipe, a software rasteriser: it copies them, and
/// says why in its log and `stats`), and the screen shows the camera's colour bars in the
/// right order (a swapped red and blue would swap yellow with cyan and red with blue). An import
/// in place needs a GPU's driver; no device in this VM has one.
@Suite("Camera video in a QEMU guest", .serialized)
struct VideoCameraVMTests {
    @Test func cameraFramesComeAsDMABufsAndShowTheBars() throws {
        let scene = """
            {"sublayers":[{"name":"camera","bounds":[0,0,640,360],"position":[320,180],
              "video":"v4l2:///dev/video0","playing":true}]}
            """
        let run = try VMHarness.run("camera", files: ["scene.json": scene], script: """
            [ -e /dev/video0 ] || echo "VMKMS_FAIL no /dev/video0 (vivid did not load)"
            start_laminad
            apply $D/scene.json
            wait_log "video 1 of session"
            # The first pictures take a while to reach the screen under TCG (4K frames).
            i=0
            while [ "$("$B/laminactl" stats | sed -n 's/^video.framesDMABuf //p')" = "0" ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i+1)); done
            settle
            shot camera
            "$B/laminactl" stats > /tmp/stats
            for k in video.framesDMABuf video.framesSystemMemory video.dmabufImport video.dmabufImported video.dmabufCopied; do
              value $k "$(sed -n "s/^$k //p" /tmp/stats)"
            done
            stop_laminad
            """)
        // Each frame was a dma-buf, none came through system memory.
        #expect(Int(run.values["video.framesDMABuf"] ?? "") ?? 0 > 0, "\(run.values)")
        #expect(run.values["video.framesSystemMemory"] == "0")
        // llvmpipe does not import: every picture shown was mapped and copied, and laminad said why.
        #expect(run.values["video.dmabufImport"] == "0")
        #expect(run.values["video.dmabufImported"] == "0")
        #expect(Int(run.values["video.dmabufCopied"] ?? "") ?? 0 > 0, "\(run.values)")
        #expect(run.log.contains("dma-buf pictures: copied: the renderer is llvmpipe, a software rasteriser"), "the choice is logged")
        // vivid's 75 % colour bars, eight across the 640-pixel layer.
        let shot = try run.shot("camera")
        let bars: [(String, (Int, Int, Int))] = [
            ("white", (191, 191, 191)), ("yellow", (191, 191, 48)), ("cyan", (48, 191, 191)), ("green", (48, 191, 48)),
            ("magenta", (191, 48, 191)), ("red", (191, 48, 48)), ("blue", (48, 48, 191)), ("black", (48, 48, 48)),
        ]
        for (i, bar) in bars.enumerated() {
            expectPixel(shot, 40 + 80 * i, 100, bar.1, tolerance: 12, "the \(bar.0) bar")
        }
        expectPixel(shot, 900, 500, (0, 0, 0), "the background beside the video")
        #expect(run.values["laminad_exit"] == "0")
    }
}
