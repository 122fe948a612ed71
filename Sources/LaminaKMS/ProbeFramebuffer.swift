#if canImport(Glibc)
import Glibc
#endif
import CDRM

/// A dumb buffer of a mode's size with an XRGB8888 framebuffer over it, never drawn or shown:
/// what a TEST_ONLY modeset puts on the primary plane to ask the driver whether it would take a
/// mode (`KMSBackend.configure`), before the output's own buffers exist.
final class ProbeFramebuffer {
    private let drm: DRMDevice
    private let handle: UInt32
    /// nil only once deinit has removed it, before it destroys the dumb buffer under it.
    private var framebuffer: DRMFramebuffer?
    var id: UInt32 { framebuffer?.id ?? 0 }

    /// The corresponding C function is `drmModeCreateDumbBuffer`.
    init(drm: DRMDevice, width: Int, height: Int) throws(DRMError) {
        self.drm = drm
        var handle: UInt32 = 0, pitch: UInt32 = 0, size: UInt64 = 0
        guard let w = UInt32(exactly: width), let h = UInt32(exactly: height), w > 0, h > 0 else {
            throw DRMError("a probe buffer of \(width)x\(height)", errno: EINVAL)
        }
        try drmCheck("drmModeCreateDumbBuffer(\(width)x\(height) probe)", drmModeCreateDumbBuffer(drm.fd, w, h, 32, 0, &handle, &pitch, &size))
        self.handle = handle
        do throws(DRMError) {
            framebuffer = try DRMFramebuffer(width: w, height: h, fourcc: DRMFormat.xrgb8888, handle: handle, pitch: pitch,
                                             on: drm, what: "probe dumb buffer")
        } catch {
            drmModeDestroyDumbBuffer(drm.fd, handle)
            throw error
        }
    }

    deinit {
        framebuffer = nil  // drmModeRmFB, while the buffer it scans out still exists
        drmModeDestroyDumbBuffer(drm.fd, handle)
    }
}
