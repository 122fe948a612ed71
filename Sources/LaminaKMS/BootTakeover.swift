import CDRM
import LaminaCompositor

/// Whether an output's first frame can take over what its CRTC shows at start without a
/// modeset (mutter's and Mir's smooth boot, weston's reuse of the current CRTC): the CRTC is
/// lit with a framebuffer in exactly the mode laminad picked (the same timings; the mode's
/// name and type flags do not matter), so the first frame is an ordinary page flip and the
/// display never goes dark; and whether the picture it shows is imported as the background
/// (`BootHandoff`). Pure: no device calls, so it is tested without KMS.
enum BootTakeover: Equatable {
    /// Flip onto the CRTC as it is; `importPicture` says whether the picture on it is read.
    case flip(importPicture: Bool, why: String)
    /// Modeset as usual, for this reason.
    case modeset(String)

    /// The decision for one output: `handoff` from `[boot]`, what the CRTC shows now
    /// (`shownFramebuffer` 0: nothing; `shownMode` nil: the CRTC is off), the mode laminad
    /// picked and the output's transform (a turned output's framebuffer is in panel
    /// orientation: it still flips, but the picture is not imported).
    static func decide(handoff: BootSettings.Handoff, shownFramebuffer: UInt32, shownMode: drmModeModeInfo?,
                       mode: DRMMode, transform: OutputTransform) -> BootTakeover {
        guard handoff != .off else { return .modeset("[boot] handoff = \"off\"") }
        guard let shown = shownMode else { return .modeset("the CRTC is off") }
        guard shownFramebuffer != 0 else { return .modeset("the CRTC shows no framebuffer") }
        guard sameTimings(shown, mode.info) else {
            return .modeset("the CRTC shows \(DRMMode(shown)), laminad picks \(mode)")
        }
        guard transform == .normal else {
            return .flip(importPicture: false, why: "the output is turned (\(transform)): the picture is not imported")
        }
        return .flip(importPicture: true, why: "the CRTC shows framebuffer \(shownFramebuffer) in \(mode)")
    }

    /// Whether two modes drive the display alike: the same pixel clock, sizes, sync positions,
    /// totals and flags.
    static func sameTimings(_ a: drmModeModeInfo, _ b: drmModeModeInfo) -> Bool {
        a.clock == b.clock && a.hdisplay == b.hdisplay && a.hsync_start == b.hsync_start && a.hsync_end == b.hsync_end
            && a.htotal == b.htotal && a.hskew == b.hskew && a.vdisplay == b.vdisplay && a.vsync_start == b.vsync_start
            && a.vsync_end == b.vsync_end && a.vtotal == b.vtotal && a.vscan == b.vscan && a.flags == b.flags
    }
}
