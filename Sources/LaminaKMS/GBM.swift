#if canImport(Glibc)
import Glibc
#endif
import CGBM
import LaminaCore

/// A GBM device on a DRM card: where scan-out buffers come from. Destroyed when released;
/// it must not outlive the `DRMDevice` it was made on, which it keeps alive.
public final class GBMDevice {
    public let handle: OpaquePointer
    public let drm: DRMDevice

    /// The corresponding C function is `gbm_create_device`.
    public init(drm: DRMDevice) throws(DRMError) {
        guard let device = gbm_create_device(drm.fd) else { throw DRMError("gbm_create_device on \(drm.path)", errno: errno) }
        handle = device
        self.drm = drm
    }

    deinit { gbm_device_destroy(handle) }
}

/// A GBM window surface: the buffers EGL renders an output's frames into.
public final class GBMSurface {
    public let handle: OpaquePointer
    public let device: GBMDevice
    public let width: Int
    public let height: Int
    public let format: UInt32

    /// The corresponding C function is `gbm_surface_create`.
    public init(device: GBMDevice, width: Int, height: Int, format: UInt32) throws(DRMError) {
        let flags = GBM_BO_USE_SCANOUT.rawValue | GBM_BO_USE_RENDERING.rawValue
        guard let surface = gbm_surface_create(device.handle, UInt32(width), UInt32(height), format, flags) else {
            throw DRMError("gbm_surface_create(\(width)x\(height))", errno: errno)
        }
        handle = surface
        self.device = device
        self.width = width
        self.height = height
        self.format = format
    }

    /// The buffer EGL just finished (after `eglSwapBuffers`), locked until `release(_:)`.
    /// The corresponding C function is `gbm_surface_lock_front_buffer`.
    public func lockFrontBuffer() throws(DRMError) -> OpaquePointer {
        guard let bo = gbm_surface_lock_front_buffer(handle) else {
            throw DRMError("gbm_surface_lock_front_buffer", errno: errno)
        }
        return bo
    }

    /// Gives a locked buffer back to EGL for a later frame.
    /// The corresponding C function is `gbm_surface_release_buffer`.
    public func release(_ bo: OpaquePointer) { gbm_surface_release_buffer(handle, bo) }

    /// The pixels of buffer `bo` of this surface (XRGB8888), top row first, as RGBA with alpha
    /// 255; nil where the buffer cannot be mapped for reading.
    /// The corresponding C functions are `gbm_bo_map` and `gbm_bo_unmap`.
    public func read(_ bo: OpaquePointer) -> Bitmap? {
        var stride: UInt32 = 0
        var mapping: UnsafeMutableRawPointer?
        guard width > 0, height > 0,
              let base = gbm_bo_map(bo, 0, 0, UInt32(width), UInt32(height), UInt32(GBM_BO_TRANSFER_READ.rawValue), &stride, &mapping)
        else { return nil }
        defer { gbm_bo_unmap(bo, mapping) }
        let rowBytes = Int(stride)
        guard rowBytes >= width * 4 else { return nil }
        var bytes = [UInt8](repeating: 255, count: width * height * 4)
        bytes.withUnsafeMutableBufferPointer { out in
            for y in 0..<height {
                let row = base.advanced(by: y * rowBytes).assumingMemoryBound(to: UInt8.self)
                for x in 0..<width {
                    // XRGB8888 is a little-endian word: B, G, R, X in memory.
                    let o = (y * width + x) * 4
                    out[o] = row[x * 4 + 2]
                    out[o + 1] = row[x * 4 + 1]
                    out[o + 2] = row[x * 4]
                }
            }
        }
        return Bitmap(width: width, height: height, bytes: bytes)
    }

    deinit { gbm_surface_destroy(handle) }
}
