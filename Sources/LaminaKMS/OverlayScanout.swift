import CDRM
import LaminaCore
import LaminaCompositor

extension DRMDevice {
    /// Takes `plane` off `crtc` outside an atomic commit (the legacy path, and giving the CRTC
    /// back to the console: SetCrtc leaves planes alone). Best effort: a plane already off stays
    /// so. The corresponding C function is `drmModeSetPlane` with no framebuffer.
    func turnOff(plane: UInt32, crtc: UInt32) {
        _ = drmModeSetPlane(fd, plane, crtc, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    }
}

/// What an overlay plane shows with a commit: the picture's framebuffer, the part of it, and
/// where on the CRTC (only ids and numbers, for the committer).
public struct OverlayState: Sendable, Equatable {
    public var plane: DRMPlane
    public var framebuffer: UInt32
    /// SRC_X, SRC_Y, SRC_W, SRC_H: 16.16 fixed point, in the framebuffer's pixels.
    public var source: (x: UInt64, y: UInt64, width: UInt64, height: UInt64)
    /// CRTC_X, CRTC_Y, CRTC_W, CRTC_H: whole pixels of the mode.
    public var destination: (x: Int32, y: Int32, width: UInt32, height: UInt32)

    public static func == (a: OverlayState, b: OverlayState) -> Bool {
        a.plane == b.plane && a.framebuffer == b.framebuffer && a.source == b.source && a.destination == b.destination
    }

    /// nil where the source does not lie inside the picture or the destination is not whole,
    /// positive pixels (no conversion traps on what a client's layer put there).
    init?(plane: DRMPlane, framebuffer: UInt32, scanout: PlaneScanout) {
        let s = scanout.source, d = scanout.destination
        let w = Double(scanout.picture.width), h = Double(scanout.picture.height)
        guard s.minX >= 0, s.minY >= 0, s.width > 0, s.height > 0, s.maxX <= w, s.maxY <= h else { return nil }
        func fixed(_ v: Double) -> UInt64? { UInt64(exactly: (v * 65536).rounded()) }
        guard let sx = fixed(s.minX), let sy = fixed(s.minY), let sw = fixed(s.width), let sh = fixed(s.height),
              let dx = Int32(exactly: d.x0), let dy = Int32(exactly: d.y0),
              let dw = UInt32(exactly: d.x1 - d.x0), let dh = UInt32(exactly: d.y1 - d.y0), dw > 0, dh > 0
        else { return nil }
        self.plane = plane
        self.framebuffer = framebuffer
        source = (sx, sy, sw, sh)
        destination = (dx, dy, dw, dh)
    }
}

/// A video picture an output puts on an overlay plane: the plane's state for the commit, the
/// framebuffer it holds, and the scan-out (for screenshots).
struct PlaneContent {
    var state: OverlayState
    var buffer: DRMFramebuffer
    var scanout: PlaneScanout
}

/// What the driver said to one plane configuration (TEST_ONLY): the plane, the picture's
/// format and size, and its placement. Framebuffers come and go with every picture; the answer
/// holds for all pictures of the same configuration.
struct PlaneConfiguration: Hashable {
    var plane: UInt32
    var fourcc: UInt32
    var modifier: UInt64?
    var width: Int
    var height: Int
    var sourceX: UInt64, sourceY: UInt64, sourceWidth: UInt64, sourceHeight: UInt64
    var x: Int32, y: Int32, destinationWidth: UInt32, destinationHeight: UInt32

    init(_ state: OverlayState, picture: DMABufPicture) {
        plane = state.plane.id
        fourcc = picture.fourcc
        modifier = picture.modifier
        width = picture.width
        height = picture.height
        (sourceX, sourceY, sourceWidth, sourceHeight) = state.source
        (x, y, destinationWidth, destinationHeight) = state.destination
    }
}
