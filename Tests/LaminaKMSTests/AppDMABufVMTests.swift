import Foundation
import LaminaCore
import LaminaImage
import Testing

/// Wayland apps sharing dma-bufs with laminad (`zwp_linux_dmabuf_v1`, issue 28): composited on
/// virtio-gpu, and scanned out directly on an overlay plane on vkms.
///
/// The app is Tests/WaylandClients/lamina-dmabuf-client.c, built here from the host's
/// libwayland-client, libdrm and wayland-protocols: its buffers are dumb buffers of the
/// kernel's virtual GEM device (vgem, loaded in the guest from the guest kernel's modules)
/// exported as dma-bufs, so no GPU and no authentication with laminad's display device are
/// needed. It shows picture A (left half red, right half blue), then on SIGUSR1 picture B
/// (green, white), and first tries a memory file as a dma-buf, which laminad must refuse.
/// Part of the serialized KMS suite `KMSSystemVMTests` (KMSVMTests.swift).
extension KMSSystemVMTests {
    /// The client, compiled into a folder the guest sees (the host's root is the guest's).
    static func dmabufClient() throws -> String {
        let out = VMHarness.repository + "/.cache/vm/dmabuf-client"
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let source = VMHarness.repository + "/Tests/WaylandClients/lamina-dmabuf-client.c"
        let protocols = "/usr/share/wayland-protocols"
        let script = """
            set -e
            cd '\(out)'
            wayland-scanner client-header \(protocols)/stable/xdg-shell/xdg-shell.xml xdg-shell-client-protocol.h
            wayland-scanner private-code \(protocols)/stable/xdg-shell/xdg-shell.xml xdg-shell.c
            wayland-scanner client-header \(protocols)/unstable/linux-dmabuf/linux-dmabuf-unstable-v1.xml linux-dmabuf-unstable-v1-client-protocol.h
            wayland-scanner private-code \(protocols)/unstable/linux-dmabuf/linux-dmabuf-unstable-v1.xml linux-dmabuf.c
            cc -O1 -Wall -Werror -I. $(pkg-config --cflags libdrm) -o lamina-dmabuf-client '\(source)' xdg-shell.c linux-dmabuf.c \\
               $(pkg-config --libs wayland-client libdrm)
            """
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/sh")
        p.arguments = ["-c", script]
        let pipe = Pipe()
        p.standardOutput = pipe
        p.standardError = pipe
        try p.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        try #require(p.terminationStatus == 0, "the dma-buf test client did not build: \(output)")
        return out + "/lamina-dmabuf-client"
    }

    /// The guest's part both runs share: vgem loaded, laminad up, the client started (A shown),
    /// then B; the client's lines and laminad's stats as values.
    static func dmabufScript(client: String, before: String, after: String) -> String {
        // The guest's kernel and its modules, unpacked by vmkms.py (its cache).
        let vmCache = ProcessInfo.processInfo.environment["LAMINA_VM_CACHE"] ?? VMHarness.repository + "/.cache/vm"
        return """
        busybox insmod \(vmCache)/kernel/lib/modules/$(uname -r)/kernel/drivers/gpu/drm/vgem/vgem.ko || echo "VMKMS_FAIL vgem did not load"
        stats() { "$L" stats > /tmp/stats; for k in $2; do value $1.$k "$(sed -n "s/^$k //p" /tmp/stats)"; done; }
        client_said() { grep -qx "$1" /tmp/client.log; }
        start_laminad --session-journal ""
        WAYLAND_DISPLAY=/run/wayland-lamina-0 \(client) --memfd 400 300 >/tmp/client.log 2>&1 &
        CPID=$!
        poll 300 client_said "shown A again" || echo "VMKMS_FAIL A was not shown: $(cat /tmp/client.log | paste -sd'|')"
        \(before)
        kill -USR1 $CPID
        poll 300 client_said "shown B" || echo "VMKMS_FAIL B was not shown: $(cat /tmp/client.log | paste -sd'|')"
        poll 100 client_said "released A" || echo "VMKMS_FAIL A was not released"
        \(after)
        value client "$(cat /tmp/client.log | paste -sd'|')"
        kill $CPID
        stop_laminad
        """
    }

    @Test func anAppsDMABufIsShownAndReleasedOnVirtioGPU() async throws {
        let client = try Self.dmabufClient()
        let keys = "wayland.dmabufFormats wayland.dmabufRefused video.dmabufCopied images"
        let run = try await VMHarness.run("dmabuf-virtio", device: "virtio", script: Self.dmabufScript(client: client, before: """
            settle
            shot a
            stats a "\(keys)"
            """, after: """
            settle
            shot b
            stats b "\(keys)"
            """))
        let v = run.values
        let said = (v["client"] ?? "").split(separator: "|").map(String.init)
        #expect(said.first.flatMap { Int($0.dropFirst("formats ".count)) } ?? 0 > 0, "XRGB8888 offered with a modifier: \(said)")
        #expect(said.contains("memfd refused"), "a memory file passed as a dma-buf is refused: \(said)")
        #expect(said.contains("shown A") && said.contains("shown B") && said.contains("released A"), "\(said)")
        #expect(v["a.wayland.dmabufFormats"] == "4" && v["a.wayland.dmabufRefused"] == "1", "\(v)")
        #expect(run.log.contains("wayland: apps may share dma-bufs: AR24"), "the offer is logged")
        #expect(run.log.contains("wayland: a dma-buf refused: the buffer's descriptor is not a dma-buf"), "the refusal is logged")
        // llvmpipe does not import: each buffer is mapped and copied once; a commit attaching
        // nothing takes nothing again.
        #expect(said.contains("shown A again"), "\(said)")
        #expect(v["a.video.dmabufCopied"] == "1" && v["b.video.dmabufCopied"] == "2", "\(v)")
        // Kiosk mode: the window at the desktop's top left, 400 × 300, as the app drew it.
        let a = try run.shot("a"), b = try run.shot("b")
        expectPixel(a, 100, 150, (255, 0, 0), "A's left half")
        expectPixel(a, 300, 150, (0, 0, 255), "A's right half")
        expectPixel(a, 600, 500, (0, 0, 0), "the desktop beside the window")
        expectPixel(b, 100, 150, (0, 255, 0), "B's left half")
        expectPixel(b, 300, 150, (255, 255, 255), "B's right half")
        expectPixel(b, 398, 298, (255, 255, 255), "B's last pixel")
        expectPixel(b, 402, 150, (0, 0, 0), "past the window's right edge")
    }

    /// Direct scan-out: the kiosk's opaque window, drawn straight and on top, goes on an overlay
    /// plane: the kernel's atomic state shows the plane lit with a 400 × 300 framebuffer (the
    /// app's buffer) at the window's place, and the renderer copies nothing once it is there.
    @Test func anOpaqueAppWindowIsScannedOutOnAnOverlayPlane() async throws {
        let client = try Self.dmabufClient()
        let keys = "video.overlayScanoutFrames video.overlayCompositedFrames video.dmabufCopied"
        let run = try await VMHarness.run("dmabuf-vkms", device: "vkms", script: """
            mount -t debugfs none /sys/kernel/debug 2>/dev/null
            \(Self.dmabufScript(client: client, before: """
            wait_log "app window on Virtual-1 scanned out on overlay plane" 300
            settle
            overlay a.state
            stats a "\(keys)"
            """, after: """
            settle
            overlay b.state
            stats b "\(keys)"
            "$L" screenshot /tmp/b.png && pull b.png /tmp/b.png
            """))
            """)
        let v = run.values
        let said = (v["client"] ?? "").split(separator: "|").map(String.init)
        #expect(said.contains("shown A") && said.contains("shown B") && said.contains("released A"), "\(said)")
        for state in [v["a.state"] ?? "", v["b.state"] ?? ""] {
            #expect(state.contains("size=400x300") && state.contains("crtc-pos=400x300+0+0")
                    && state.contains("src-pos=400.000000x300.000000+0.000000+0.000000") && !state.contains("|"),
                    "one overlay plane lit with the app's buffer: \(state)")
        }
        #expect(Int(v["b.video.overlayScanoutFrames"] ?? "") ?? 0 > Int(v["a.video.overlayScanoutFrames"] ?? "") ?? 0, "\(v)")
        #expect(v["b.video.dmabufCopied"] != nil && v["b.video.dmabufCopied"] == v["a.video.dmabufCopied"],
                "B went to the plane without the renderer copying it: \(v)")
        // laminad's screenshot lays the plane's picture over the primary plane.
        let shot = try PNG.decode(try #require(run.file("b.png"), "the screenshot came back"))
        expectPixel(shot, 100, 150, (0, 255, 0), "B's left half")
        expectPixel(shot, 300, 150, (255, 255, 255), "B's right half")
        expectPixel(shot, 600, 500, (0, 0, 0), "the desktop beside the window")
    }
}
