import Foundation
import LaminaCore
import LaminaImage
import Testing

/// A camera's video scanned out on an overlay plane (issue 14): the kernel's virtual KMS driver
/// (vkms, with its overlay planes, built for the guest's kernel by scripts/vm/vmkms.py) and its
/// virtual camera (vivid, whose buffers are dma-bufs).
///
/// One boot, three laminad runs of the same scene (a camera tile beside a red square):
/// 1. the whole 1920×1080 picture shrunk into a 640×360 layer: the planner finds it fit, but
///    vkms cannot scale, and the atomic TEST_ONLY commit says so: composited, and logged why;
/// 2. a 640×360 part of the picture at 1:1: on the plane. The kernel's atomic state shows the
///    plane lit with the picture's framebuffer, cropped and placed as the layer says; the
///    renderer never touches a picture (none copied);
/// 3. the same, inside a superlayer that clips: composited (the planner refuses clipped videos).
/// vkms composes its planes in software and checksums each composed frame (its CRC in
/// debugfs): with vivid's on-screen counters off, every camera frame is the same picture, so
/// runs 2 and 3 must give the same checksum: the plane shows, bit for bit, what compositing
/// draws. laminad's screenshots (the primary plane with the plane's picture laid over it) show
/// the camera's colour bars in place in both.
/// Part of the serialized KMS suite `KMSSystemVMTests` (KMSVMTests.swift).
extension KMSSystemVMTests {
    @Test func cameraVideoGoesOnAnOverlayPlaneAndTheScreenIsTheSame() async throws {
        func scene(contentsRect: String, clips: Bool) -> String {
            """
            {"sublayers":[
              {"name":"frame","bounds":[0,0,1024,768],"position":[512,384],"masksToBounds":\(clips),
               "sublayers":[{"name":"camera","bounds":[0,0,640,360],"position":[512,384],"contentsRect":\(contentsRect),
                             "video":"v4l2:///dev/video0","playing":true}]},
              {"name":"tile","bounds":[0,0,100,100],"position":[900,700],"backgroundColor":[1,0,0,1]}]}
            """
        }
        let third = "[0,0,0.3333333333333333,0.3333333333333333]"
        let run = try await VMHarness.run("overlay", device: "vkms", files: [
            "scaled.json": scene(contentsRect: "[0,0,1,1]", clips: false),
            "plane.json": scene(contentsRect: third, clips: false),
            "clipped.json": scene(contentsRect: third, clips: true),
        ], script: """
            mount -t debugfs none /sys/kernel/debug 2>/dev/null
            [ -e /dev/video0 ] || echo "VMKMS_FAIL no /dev/video0 (vivid did not load)"
            value driver "$(cat $DRI/name | cut -d' ' -f1)"
            # vivid's on-screen text (a frame counter and the time) off: every frame the same bars.
            python3 - <<'EOF'
            import fcntl, os, struct
            fd = os.open("/dev/video0", os.O_RDWR)
            control = bytearray(struct.pack("Ii", 0xf0f001, 2))  # VIVID_CID_OSD_TEXT_MODE: None
            fcntl.ioctl(fd, 0xC008561C, control)  # VIDIOC_S_CTRL
            fcntl.ioctl(fd, 0xC008561B, control)  # VIDIOC_G_CTRL
            print("VMKMS_VALUE osd", struct.unpack("Ii", bytes(control))[1])
            EOF
            # frames N: wait until N frames showed the video on a plane or composited.
            video_frames() { "$L" stats | awk -v want="$1" '/^video.overlay(Scanout|Composited)Frames / { n += $2 } END { exit !(n >= want) }'; }
            frames() { poll 600 video_frames $1 || echo "VMKMS_FAIL fewer than $1 video frames"; }
            stats() { "$L" stats > /tmp/stats; for k in $2; do value $1.$k "$(sed -n "s/^video.$k //p" /tmp/stats)"; done; }

            # No session journal: each run starts from its own scene, not the last run's.
            start_laminad --session-journal ""
            apply $D/scaled.json
            wait_log "video on Virtual-1 composited: the driver refused the plane" 300
            frames 5
            crc scaled.crc
            stop_laminad

            start_laminad --session-journal ""
            apply $D/plane.json
            wait_log "video on Virtual-1 scanned out on overlay plane" 300
            # (The first frame is composited: it lights the output with a modeset.)
            stats plane.start "overlayCompositedFrames dmabufCopied"
            frames 20
            overlay plane.state
            crc plane.crc
            "$L" screenshot /tmp/plane.png && pull plane.png /tmp/plane.png
            stats plane "overlayPlanes overlayScanoutFrames overlayCompositedFrames dmabufCopied framesDMABuf"
            stop_laminad

            start_laminad --session-journal ""
            apply $D/clipped.json
            wait_log "video on Virtual-1 composited: the video is clipped, masked or in a group" 300
            # Each composited frame copies the camera's 1920×1080 picture: seconds under TCG.
            frames 5
            overlay clipped.state
            crc clipped.crc
            "$L" screenshot /tmp/clipped.png && pull clipped.png /tmp/clipped.png
            stats clipped "overlayScanoutFrames overlayCompositedFrames dmabufCopied"
            stop_laminad
            """)
        let v = run.values
        #expect(v["driver"] == "vkms", "\(v)")
        #expect(v["osd"] == "2", "vivid's on-screen text is off: \(v)")
        // 1. vkms does not scale: its TEST_ONLY answer keeps the video composited, and says so.
        #expect(run.log.contains("kms: Virtual-1: overlay planes: "), "the planes are listed")
        #expect(run.log.contains("video on Virtual-1 composited: the driver refused the plane"), "the refusal is logged")
        // 2. On the plane: the kernel scans a 1920×1080 framebuffer (the camera's buffer itself),
        // 640×360 of it from the top-left, to 640×360 at (192, 204): the layer's place.
        #expect(Int(v["plane.overlayPlanes"] ?? "") ?? 0 > 0, "\(v)")
        let state = v["plane.state"] ?? ""
        #expect(state.contains("size=1920x1080") && state.contains("crtc-pos=640x360+192+204")
                && state.contains("src-pos=640.000000x360.000000+0.000000+0.000000"), "the overlay plane's state: \(state)")
        #expect(!state.contains("fb=0 ") && !state.contains("|"), "one overlay plane lit, with a framebuffer: \(state)")
        #expect(Int(v["plane.overlayScanoutFrames"] ?? "") ?? 0 >= 20, "\(v)")
        #expect(v["plane.overlayCompositedFrames"] != nil && v["plane.overlayCompositedFrames"] == v["plane.start.overlayCompositedFrames"],
                "no frame composited the video once it was on the plane: \(v)")
        #expect(v["plane.dmabufCopied"] != nil && v["plane.dmabufCopied"] == v["plane.start.dmabufCopied"],
                "the renderer copied no picture: the plane showed them: \(v)")
        #expect(run.log.contains("video on Virtual-1 scanned out on overlay plane"))
        // 3. Clipped: composited, the plane off.
        #expect(v["clipped.state"] == "none", "no overlay plane lit while composited: \(v["clipped.state"] ?? "")")
        #expect(Int(v["clipped.overlayCompositedFrames"] ?? "") ?? 0 >= 5 && v["clipped.overlayScanoutFrames"] == "0", "\(v)")
        #expect(Int(v["clipped.dmabufCopied"] ?? "") ?? 0 > 0, "\(v)")
        // The display composed the same frame, bit for bit, either way (and the checksum tells
        // frames apart: the whole picture shrunk into the layer gives another).
        #expect(v["scaled.crc"] != nil && v["scaled.crc"] != v["plane.crc"], "\(v)")
        #expect(v["plane.crc"] != nil && v["plane.crc"] != "" && v["plane.crc"] == v["clipped.crc"],
                "vkms's CRC on the plane \(v["plane.crc"] ?? "-") and composited \(v["clipped.crc"] ?? "-")")
        // laminad's screenshots: the plane's picture over the primary plane is the composited frame.
        let plane = try PNG.decode(try #require(run.file("plane.png"), "the screenshot came back"))
        let clipped = try PNG.decode(try #require(run.file("clipped.png"), "the screenshot came back"))
        #expect(plane.width == 1024 && plane.height == 768)
        // vivid's 75 % bars are 240 pixels wide in the 1920-pixel picture: white, yellow, cyan
        // in its left third; channels clearly on (about 191) or off.
        let bars: [(String, Int, (Bool, Bool, Bool))] = [("white", 80, (true, true, true)), ("yellow", 320, (true, true, false)),
                                                         ("cyan", 560, (false, true, true))]
        for shot in [plane, clipped] {
            for (name, x, rgb) in bars {
                let p = shot.pixel(x: 192 + x, y: 204 + 180)
                func on(_ v: UInt8, _ expected: Bool) -> Bool { expected ? (170...215).contains(v) : v <= 60 }
                #expect(on(p.r, rgb.0) && on(p.g, rgb.1) && on(p.b, rgb.2), "the \(name) bar is \(p.r),\(p.g),\(p.b)")
            }
            expectPixel(shot, 900, 700, (255, 0, 0), "the red tile beside the video")
            expectPixel(shot, 100, 100, (0, 0, 0), "the background")
        }
        var differing = 0
        for i in stride(from: 0, to: plane.bytes.count, by: 4) where plane.bytes[i..<(i + 3)] != clipped.bytes[i..<(i + 3)] { differing += 1 }
        #expect(differing == 0, "\(differing) pixels differ between the screenshot with the plane and the composited one")
        #expect(v["laminad_exit"] == "0")
    }
}
