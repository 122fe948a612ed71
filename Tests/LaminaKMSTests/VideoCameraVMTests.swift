import Foundation
import LaminaCore
import Testing

/// A video from a V4L2 camera on real KMS: the kernel's virtual camera (vivid) in the guest,
/// whose buffers GStreamer's v4l2src exports as dma-bufs (issue 14's zero-copy path).
///
/// What the VM can show: the frames arrive in dma-buf memory, laminad decides at run time
/// whether its renderer imports them (here llvmpipe, a software rasteriser: it copies them, and
/// says why in its log and `stats`), and the screen shows the camera's colour bars in the
/// right order (a swapped red and blue would swap yellow with cyan and red with blue); and the
/// overlay planner finds the video fit for a plane but the device without one. An import in
/// place needs a GPU's driver, and a plane a device with overlay planes; this VM has neither.
/// Part of the serialized KMS suite `KMSSystemVMTests` (KMSVMTests.swift).
extension KMSSystemVMTests {
    @Test func cameraFramesComeAsDMABufsAndShowTheBars() async throws {
        let scene = """
            {"sublayers":[{"name":"camera","bounds":[0,0,640,360],"position":[320,180],
              "video":"v4l2:///dev/video0","playing":true}]}
            """
        let run = try await VMHarness.run("camera", files: ["scene.json": scene], script: """
            [ -e /dev/video0 ] || echo "VMKMS_FAIL no /dev/video0 (vivid did not load)"
            start_laminad
            apply $D/scene.json
            wait_log "video 1 of session"
            # The camera keeps streaming while its buffers are held for the screen (a pool it
            # could run out of would stop it after a few frames): wait for 10 (slow under TCG).
            streamed() { n=$("$L" stats | sed -n 's/^video.framesDMABuf //p'); [ "${n:-0}" -ge 10 ]; }
            poll 600 streamed
            settle
            shot camera
            "$L" stats > /tmp/stats
            for k in video.framesDMABuf video.framesSystemMemory video.dmabufImport video.dmabufImported video.dmabufCopied \
                     video.overlayPlanes video.overlayEligibleFrames video.overlayCompositedFrames; do
              value $k "$(sed -n "s/^$k //p" /tmp/stats)"
            done
            stop_laminad
            """)
        // Each frame was a dma-buf, none came through system memory.
        #expect(Int(run.values["video.framesDMABuf"] ?? "") ?? 0 >= 10, "the camera keeps streaming: \(run.values)")
        #expect(run.values["video.framesSystemMemory"] == "0")
        // llvmpipe does not import: every picture shown was mapped and copied, and laminad said why.
        #expect(run.values["video.dmabufImport"] == "0")
        #expect(run.values["video.dmabufImported"] == "0")
        #expect(Int(run.values["video.dmabufCopied"] ?? "") ?? 0 > 0, "\(run.values)")
        #expect(run.log.contains("dma-buf pictures: copied: the renderer is llvmpipe, a software rasteriser"), "the choice is logged")
        // The video is opaque, straight, whole-pixel and top-most, so only the device keeps it
        // off an overlay plane: virtio-gpu offers primary and cursor planes only.
        #expect(run.log.contains("kms: Virtual-1: overlay planes: none"))
        #expect(run.values["video.overlayPlanes"] == "0")
        #expect(Int(run.values["video.overlayCompositedFrames"] ?? "") ?? 0 > 0 && run.values["video.overlayEligibleFrames"] == "0", "\(run.values)")
        #expect(run.log.contains("video on Virtual-1 composited: the output has no free overlay plane"))
        // vivid's 75 % colour bars, eight across the 640-pixel layer: each channel clearly on
        // (about 191) or off (0, or 48 where vivid picks limited range), in this order.
        let shot = try run.shot("camera")
        let bars: [(String, (Bool, Bool, Bool))] = [
            ("white", (true, true, true)), ("yellow", (true, true, false)), ("cyan", (false, true, true)),
            ("green", (false, true, false)), ("magenta", (true, false, true)), ("red", (true, false, false)),
            ("blue", (false, false, true)), ("black", (false, false, false)),
        ]
        for (i, bar) in bars.enumerated() {
            let p = shot.pixel(x: 40 + 80 * i, y: 100)
            func on(_ v: UInt8, _ expected: Bool) -> Bool { expected ? (170...215).contains(v) : v <= 60 }
            #expect(on(p.r, bar.1.0) && on(p.g, bar.1.1) && on(p.b, bar.1.2), "the \(bar.0) bar is \(p.r),\(p.g),\(p.b)")
        }
        expectPixel(shot, 900, 500, (0, 0, 0), "the background beside the video")
        #expect(run.values["laminad_exit"] == "0")
    }
}
