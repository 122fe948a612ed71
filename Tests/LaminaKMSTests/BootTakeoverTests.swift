import CDRM
import Testing
import LaminaCompositor
@testable import LaminaKMS

/// Which outputs laminad takes over at start without a modeset (`BootTakeover`), decided from
/// what the CRTC shows; no KMS device needed.
@Suite("boot takeover")
struct BootTakeoverTests {
    static func mode(_ w: UInt16, _ h: UInt16, clock: UInt32 = 71000, name: String = "", type: UInt32 = 0) -> drmModeModeInfo {
        var m = drmModeModeInfo()
        m.clock = clock
        m.hdisplay = w; m.hsync_start = w + 48; m.hsync_end = w + 80; m.htotal = w + 160
        m.vdisplay = h; m.vsync_start = h + 3; m.vsync_end = h + 9; m.vtotal = h + 23
        m.vrefresh = 60
        m.type = type
        withUnsafeMutableBytes(of: &m.name) { raw in
            for (i, b) in name.utf8.prefix(raw.count - 1).enumerated() { raw[i] = b }
        }
        return m
    }

    @Test("the same timings are taken over with a page flip; the picture is imported where the output is not turned")
    func sameMode() {
        let picked = DRMMode(Self.mode(1280, 800, name: "1280x800", type: UInt32(DRM_MODE_TYPE_PREFERRED)))
        let shown = Self.mode(1280, 800, name: "", type: UInt32(DRM_MODE_TYPE_USERDEF))
        guard case .flip(true, _) = BootTakeover.decide(handoff: .fade, shownFramebuffer: 42, shownMode: shown, mode: picked, transform: .normal) else {
            Issue.record("not taken over"); return
        }
        guard case .flip(false, let why) = BootTakeover.decide(handoff: .keep, shownFramebuffer: 42, shownMode: shown, mode: picked, transform: .rotate90) else {
            Issue.record("a turned output is still flipped onto"); return
        }
        #expect(why.contains("turned"))
    }

    @Test("off, a dark CRTC, no framebuffer or other timings modeset, saying why")
    func modesets() {
        let picked = DRMMode(Self.mode(1280, 800))
        let cases: [(BootSettings.Handoff, UInt32, drmModeModeInfo?, String)] = [
            (.off, 42, Self.mode(1280, 800), "handoff = \"off\""),
            (.fade, 42, nil, "the CRTC is off"),
            (.fade, 0, Self.mode(1280, 800), "no framebuffer"),
            (.fade, 42, Self.mode(1024, 768), "the CRTC shows 1024x768"),
            (.keep, 42, Self.mode(1280, 800, clock: 83500), "laminad picks 1280x800"),
        ]
        for (handoff, fb, shown, reason) in cases {
            let d = BootTakeover.decide(handoff: handoff, shownFramebuffer: fb, shownMode: shown, mode: picked, transform: .normal)
            guard case .modeset(let why) = d else { Issue.record("\(reason): \(d)"); continue }
            #expect(why.contains(reason), "\(why)")
        }
    }
}
