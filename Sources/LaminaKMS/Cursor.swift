#if canImport(Glibc)
import Glibc
#endif
import CDRM

/// The cursor's picture: a small arrow, black outline and white fill, with its hot spot (the
/// tip) at the top-left pixel. Generated here, so no image file is needed.
public enum CursorSprite {
    /// The arrow, one string per row: "X" outline, "." fill, " " transparent.
    static let rows = [
        "X",
        "XX",
        "X.X",
        "X..X",
        "X...X",
        "X....X",
        "X.....X",
        "X......X",
        "X.......X",
        "X........X",
        "X.....XXXXX",
        "X..X..X",
        "X.X X..X",
        "XX  X..X",
        "X    X..X",
        "     X..X",
        "      XX",
    ]
    /// The arrow's size in pixels.
    public static var width: Int { rows.map(\.count).max()! }
    public static var height: Int { rows.count }

    /// The arrow's pixels in a `width`×`height` image (at least the arrow's size), premultiplied
    /// ARGB8888 as 32-bit words (DRM_FORMAT_ARGB8888), row by row; transparent elsewhere.
    public static func argb8888(width: Int, height: Int) -> [UInt32] {
        var pixels = [UInt32](repeating: 0, count: width * height)
        for (y, row) in rows.enumerated() where y < height {
            for (x, c) in row.enumerated() where x < width {
                switch c {
                case "X": pixels[y * width + x] = 0xFF00_0000
                case ".": pixels[y * width + x] = 0xFFFF_FFFF
                default: break
                }
            }
        }
        return pixels
    }
}

/// Where the cursor shows on one output's CRTC: the plane (atomic) and the buffer, at a CRTC
/// position in pixels.
public struct CursorPlacement: Sendable {
    /// The CURSOR plane for the CRTC (atomic), or nil where legacy SetCursor2 is used.
    public var plane: DRMPlane?
    public var framebuffer: UInt32
    /// The dumb buffer's GEM handle (legacy `drmModeSetCursor2`).
    public var handle: UInt32
    public var width: Int
    public var height: Int
    public var x: Int
    public var y: Int
}

/// The cursor's buffer on a card: a dumb buffer of the device's cursor size holding the arrow,
/// with a framebuffer (ARGB8888) for the cursor plane.
final class CursorBuffer {
    let drm: DRMDevice
    let handle: UInt32
    let framebuffer: UInt32
    let width: Int
    let height: Int

    /// The corresponding C functions are `drmGetCap(DRM_CAP_CURSOR_WIDTH/HEIGHT)`,
    /// `drmModeCreateDumbBuffer`, `drmModeMapDumbBuffer`, `mmap` and `drmModeAddFB2`.
    init(drm: DRMDevice) throws(DRMError) {
        self.drm = drm
        var w: UInt64 = 64, h: UInt64 = 64
        if drmGetCap(drm.fd, UInt64(DRM_CAP_CURSOR_WIDTH), &w) != 0 || w == 0 { w = 64 }
        if drmGetCap(drm.fd, UInt64(DRM_CAP_CURSOR_HEIGHT), &h) != 0 || h == 0 { h = 64 }
        let width = max(Int(w), CursorSprite.width), height = max(Int(h), CursorSprite.height)
        self.width = width
        self.height = height
        var handle: UInt32 = 0, pitch: UInt32 = 0, size: UInt64 = 0
        try drmCheck("drmModeCreateDumbBuffer(\(width)x\(height) cursor)",
                     drmModeCreateDumbBuffer(drm.fd, UInt32(width), UInt32(height), 32, 0, &handle, &pitch, &size))
        self.handle = handle
        do throws(DRMError) {
            var offset: UInt64 = 0
            try drmCheck("drmModeMapDumbBuffer(cursor)", drmModeMapDumbBuffer(drm.fd, handle, &offset))
            guard let map = mmap(nil, Int(size), PROT_READ | PROT_WRITE, MAP_SHARED, drm.fd, off_t(offset)), map != MAP_FAILED else {
                throw DRMError("mmap of the cursor buffer", errno: errno)
            }
            let pixels = CursorSprite.argb8888(width: width, height: height)
            for y in 0..<height {
                pixels.withUnsafeBytes { p in
                    (map + y * Int(pitch)).copyMemory(from: p.baseAddress! + y * width * 4, byteCount: width * 4)
                }
            }
            munmap(map, Int(size))
            var handles: [UInt32] = [handle, 0, 0, 0], pitches: [UInt32] = [pitch, 0, 0, 0], offsets: [UInt32] = [0, 0, 0, 0]
            var fb: UInt32 = 0
            try drmCheck("drmModeAddFB2(cursor, ARGB8888)",
                         drmModeAddFB2(drm.fd, UInt32(width), UInt32(height), DRMFormat.argb8888, &handles, &pitches, &offsets, &fb, 0))
            framebuffer = fb
        } catch {
            drmModeDestroyDumbBuffer(drm.fd, handle)
            throw error
        }
    }

    deinit {
        drmModeRmFB(drm.fd, framebuffer)
        drmModeDestroyDumbBuffer(drm.fd, handle)
    }
}
