#if canImport(Glibc)
import Glibc
#endif
import CDRM
import LaminaCore
import LaminaCompositor

/// Why the picture on a CRTC was not imported (logged, and shown by `stats` as boot.handoff).
struct PictureNotImported: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// The pixels of a framebuffer another client (a boot splash, the kernel's fbdev console) put
/// on a CRTC, copied once into a bitmap: `drmModeGetFB2` for its layout and GEM handle (the
/// kernel gives handles only to a master or CAP_SYS_ADMIN; 0 otherwise), `MAP_DUMB` and mmap
/// of the buffer, a copy of the visible `width × height` pixels, then the handles closed.
/// Everything about the buffer is the driver's data and is checked: linear XRGB8888 or
/// ARGB8888 only (others are refused), a pitch that holds a row, and a mapping the kernel
/// agreed to of offset + pitch × height bytes (mmap past the GEM object fails).
enum ScannedOutPicture {
    /// The largest side read (a display larger than 16384 pixels is not one we scan out).
    static let maximumSide = 16384

    /// The picture of framebuffer `id`, `width × height` pixels from its top-left (the mode's
    /// size), opaque RGBA. The corresponding C functions are `drmModeGetFB2`,
    /// `drmModeMapDumbBuffer`, `mmap` and `drmCloseBufferHandle`.
    static func read(framebuffer id: UInt32, drm: DRMDevice, width: Int, height: Int) throws(PictureNotImported) -> Bitmap {
        try withPixels(of: id, drm: drm, width: width, height: height, writable: false) { source, pitch in
            var bytes = [UInt8](repeating: 255, count: width * height * 4)
            bytes.withUnsafeMutableBufferPointer { out in
                for y in 0..<height {
                    let row = UnsafeRawPointer(source) + y * pitch
                    var o = y * width * 4
                    for x in 0..<width {
                        // XRGB8888 little-endian: B, G, R, X in memory. Opaque either way: the
                        // splash was what the display showed, alpha or not.
                        out[o] = row.load(fromByteOffset: x * 4 + 2, as: UInt8.self)
                        out[o + 1] = row.load(fromByteOffset: x * 4 + 1, as: UInt8.self)
                        out[o + 2] = row.load(fromByteOffset: x * 4, as: UInt8.self)
                        o += 4
                    }
                }
            }
            return Bitmap(width: width, height: height, bytes: bytes)!
        }
    }

    /// Writes `picture` (RGBA, its size the mode's) into framebuffer `id`'s buffer as opaque
    /// XRGB8888: laminad's last frame into the console's framebuffer at exit.
    static func write(_ picture: Bitmap, framebuffer id: UInt32, drm: DRMDevice) throws(PictureNotImported) {
        let width = picture.width, height = picture.height
        try withPixels(of: id, drm: drm, width: width, height: height, writable: true) { target, pitch in
            picture.bytes.withUnsafeBufferPointer { rgba in
                for y in 0..<height {
                    let row = target + y * pitch
                    for x in 0..<width {
                        let i = (y * width + x) * 4
                        row.storeBytes(of: UInt32(rgba[i]) << 16 | UInt32(rgba[i + 1]) << 8 | UInt32(rgba[i + 2]) | 0xFF00_0000,
                                       toByteOffset: x * 4, as: UInt32.self)
                    }
                }
            }
        }
    }

    /// Maps framebuffer `id`'s buffer (checked as above) and hands `body` its first visible
    /// pixel and pitch.
    private static func withPixels<R>(of id: UInt32, drm: DRMDevice, width: Int, height: Int, writable: Bool,
                                      _ body: (UnsafeMutableRawPointer, Int) -> R) throws(PictureNotImported) -> R {
        guard width > 0, height > 0, width <= maximumSide, height <= maximumSide else {
            throw PictureNotImported("a \(width)x\(height) mode is not read")
        }
        guard let fb = drmModeGetFB2(drm.fd, id) else {
            throw PictureNotImported("drmModeGetFB2(\(id)) failed (errno \(errno))")
        }
        defer { drmModeFreeFB2(fb) }
        let info = fb.pointee
        let handles = [info.handles.0, info.handles.1, info.handles.2, info.handles.3]
        defer {
            // GetFB2 opened a handle per plane (the same buffer may appear more than once).
            for handle in Set(handles) where handle != 0 { _ = drmCloseBufferHandle(drm.fd, handle) }
        }
        let format = info.pixel_format
        guard format == DRMFormat.xrgb8888 || format == DRMFormat.argb8888 else {
            throw PictureNotImported("framebuffer \(id) is \(DRMFourCC.name(format)); only XR24 and AR24 are imported")
        }
        if info.flags & UInt32(DRM_MODE_FB_MODIFIERS) != 0, info.modifier != 0 {
            throw PictureNotImported("framebuffer \(id) is tiled (modifier 0x\(String(info.modifier, radix: 16))); only linear buffers are imported")
        }
        guard handles[0] != 0 else {
            throw PictureNotImported("the kernel gave no handle for framebuffer \(id) (not DRM master, or no CAP_SYS_ADMIN)")
        }
        guard Int(info.width) >= width, Int(info.height) >= height else {
            throw PictureNotImported("framebuffer \(id) is \(info.width)x\(info.height), smaller than the \(width)x\(height) mode")
        }
        let pitch = Int(info.pitches.0), offset = Int(info.offsets.0)
        guard pitch >= width * 4, pitch <= maximumSide * 4 * 2, offset >= 0, offset % 4 == 0 else {
            throw PictureNotImported("framebuffer \(id) has pitch \(pitch) and offset \(offset) for \(width) pixels a row")
        }
        var mapOffset: UInt64 = 0
        let r = drmModeMapDumbBuffer(drm.fd, handles[0], &mapOffset)
        guard r == 0 else {
            throw PictureNotImported("MAP_DUMB of framebuffer \(id)'s buffer failed (errno \(r < -1 ? -r : errno)): not a buffer this driver maps")
        }
        // The rows read, from the buffer's start: the kernel refuses a mapping longer than the
        // buffer, so a pitch or offset that lies cannot make us read past it.
        let length = offset + pitch * (height - 1) + width * 4
        guard let map = mmap(nil, length, writable ? PROT_READ | PROT_WRITE : PROT_READ, MAP_SHARED, drm.fd, off_t(truncatingIfNeeded: mapOffset)), map != MAP_FAILED else {
            throw PictureNotImported("mmap of \(length) bytes of framebuffer \(id)'s buffer failed (errno \(errno))")
        }
        defer { munmap(map, length) }
        return body(map + offset, pitch)
    }
}
