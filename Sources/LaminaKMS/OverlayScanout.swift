#if canImport(Glibc)
import Glibc
#endif
import CDRM
import LaminaCore
import LaminaServer

/// A DRM framebuffer over a video picture's dma-buf, for an overlay plane (wlroots'
/// `drm_fb_import`, weston's `drm_fb_get_from_dmabuf`), removed when released. It holds the
/// picture, so the decoder does not reuse the buffer while a plane may still scan it out.
final class PictureFramebuffer {
    let picture: DMABufPicture
    let id: UInt32
    private let fd: Int32

    /// Imports each plane's descriptor as a GEM handle, makes the framebuffer (with the
    /// picture's modifier where it has one and the device takes them), then closes the handles
    /// (the framebuffer keeps its own reference to the buffer).
    /// The corresponding C functions are `drmPrimeFDToHandle`, `drmModeAddFB2WithModifiers`,
    /// `drmModeAddFB2` and `drmCloseBufferHandle`.
    init(_ picture: DMABufPicture, drm: DRMDevice) throws(DRMError) {
        let planes = picture.planes
        guard (1...4).contains(planes.count) else {
            throw DRMError("a framebuffer of \(planes.count) planes", errno: EINVAL)
        }
        guard let width = UInt32(exactly: picture.width), let height = UInt32(exactly: picture.height), width > 0, height > 0 else {
            throw DRMError("a \(picture.width)x\(picture.height) framebuffer", errno: EINVAL)
        }
        var handles = [UInt32](repeating: 0, count: 4), pitches = [UInt32](repeating: 0, count: 4)
        var offsets = [UInt32](repeating: 0, count: 4), modifiers = [UInt64](repeating: 0, count: 4)
        var imported: Set<UInt32> = []
        defer { for h in imported { _ = drmCloseBufferHandle(drm.fd, h) } }
        for (i, plane) in planes.enumerated() {
            guard let pitch = UInt32(exactly: plane.pitch), let offset = UInt32(exactly: plane.offset) else {
                throw DRMError("a framebuffer plane at offset \(plane.offset), pitch \(plane.pitch)", errno: EINVAL)
            }
            var handle: UInt32 = 0
            try drmCheck("drmPrimeFDToHandle(dma-buf \(plane.fd))", drmPrimeFDToHandle(drm.fd, plane.fd, &handle))
            imported.insert(handle)
            handles[i] = handle
            pitches[i] = pitch
            offsets[i] = offset
            modifiers[i] = picture.modifier ?? 0
        }
        var id: UInt32 = 0
        let size = "\(picture.width)x\(picture.height) \(DRMFourCC.name(picture.fourcc))"
        if let modifier = picture.modifier, modifier != DRMFormat.invalidModifier, drm.supportsModifiers {
            try drmCheck("drmModeAddFB2WithModifiers(\(size) dma-buf)",
                         drmModeAddFB2WithModifiers(drm.fd, width, height, picture.fourcc, handles, pitches, offsets, modifiers,
                                                    &id, UInt32(DRM_MODE_FB_MODIFIERS)))
        } else {
            try drmCheck("drmModeAddFB2(\(size) dma-buf)",
                         drmModeAddFB2(drm.fd, width, height, picture.fourcc, handles, pitches, offsets, &id, 0))
        }
        self.picture = picture
        self.id = id
        self.fd = drm.fd
    }

    deinit { drmModeRmFB(fd, id) }
}

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
    var buffer: PictureFramebuffer
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
