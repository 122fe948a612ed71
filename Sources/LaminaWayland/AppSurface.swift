import LaminaCore
import LaminaCompositor

/// An app's toplevel window as laminad shows it: who it is, and its parts, one for each
/// `wl_surface` of its tree shown now (the window's own surface, its subsurfaces, its popups),
/// bottom to top, each with laminad's copy of its pixels, which the host shows as an image.
///
/// The copies are laminad's own, refreshed only where an app's buffer damage says they changed,
/// while the client's shm pages are held under libwayland's SIGBUS guard: a client that shrinks
/// its pool cannot crash laminad, and its `wl_buffer` is released at its next commit as usual.
public final class AppSurface {
    /// laminad's number for it, unique for the process (never 0; parts share the numbering).
    public let id: UInt32
    public internal(set) var appID = ""
    public internal(set) var title = ""
    public let pid: Int32
    /// The window's own surface's buffer size in pixels (0 × 0 until its first buffer).
    public internal(set) var width = 0
    public internal(set) var height = 0
    /// The window's size in points: its xdg window geometry's (the app's shadow margins
    /// outside it), or its own surface's where it sets none.
    public internal(set) var pointWidth = 0
    public internal(set) var pointHeight = 0
    /// Why it went, once it has: the app closed it, its connection ended with it up (it exited
    /// or crashed), or laminad dropped the app.
    public internal(set) var ending: Ending = .closed
    public enum Ending: Sendable { case closed, exited, dropped }
    /// What it shows, bottom to top: the window's surface and its subsurfaces in their stacking
    /// order, then its popups (menus), each above its parent.
    public internal(set) var parts: [AppSurfacePart] = []

    init(id: UInt32, pid: Int32) {
        self.id = id
        self.pid = pid
    }
}

/// One `wl_surface` of a window: where it lies from the window's top-left corner (its xdg window
/// geometry's, so a client's shadow margins fall outside) and its size, in points, and its pixels.
public final class AppSurfacePart {
    /// laminad's number for it, unique for the process.
    public let id: UInt32
    public internal(set) var x = 0
    public internal(set) var y = 0
    /// The buffer's size in pixels (0 × 0 until its first buffer).
    public internal(set) var width = 0
    public internal(set) var height = 0
    /// Its size on the desktop, in points: the buffer's over its scale (`wl_surface.set_buffer_scale`),
    /// or the `wp_viewport` destination's: a scale-2 buffer is shown at half its pixel size.
    public internal(set) var pointWidth = 0
    public internal(set) var pointHeight = 0
    /// `wl_surface.set_buffer_transform`: how the app turned its pixels in the buffer (a
    /// `wl_output.transform`, 0 normal, 1-3 turned 90°, 180°, 270° counter-clockwise, 4-7 the
    /// same flipped about the vertical axis first), which are shown turned back. The point size
    /// is already the turned one (a 90° buffer of 100 × 200 pixels is 200 × 100 points).
    public internal(set) var bufferTransform = 0
    /// The part of the buffer shown (`wp_viewport.set_source`), in unit coordinates of the
    /// buffer as stored (before the transform is undone), stretched to the point size; the
    /// whole buffer (0, 0, 1, 1) without a source rectangle.
    public internal(set) var sourceRect = Rect(x: 0, y: 0, width: 1, height: 1)
    /// The pixels, premultiplied BGRA, `width` × 4 bytes a row; a new object when the size
    /// changes. nil while the app's buffer is a dma-buf (`dmabuf`).
    public internal(set) var pixels: AppSurfacePixels?
    /// The app's buffer in dma-buf memory, a new picture each commit (the renderer imports it
    /// in place, or maps and copies it); nil for a shared-memory buffer (`pixels`).
    public internal(set) var dmabuf: DMABufPicture?
    /// The picture shown now, `pixels` or `dmabuf`: a new object means a new image.
    public var shownPicture: AnyObject? { dmabuf ?? pixels }
    /// Whether every pixel is opaque (an XRGB8888 buffer).
    public internal(set) var isOpaque = false

    init(id: UInt32) { self.id = id }

    /// The buffer's pixels as drawn in a layer of `bufferOrientedSize`, mapped onto the surface
    /// by this transform about the layer's centre (a layer `transform`, y down, row vectors):
    /// `wl_output.transform`'s inverse, so a buffer turned 90° counter-clockwise by the app
    /// is shown turned 90° clockwise, upright again. Identity for a normal buffer.
    public var contentsTransform: Transform3D {
        // Each row: where the buffer's x axis and y axis go on the surface.
        let (xx, xy, yx, yy): (Double, Double, Double, Double)
        switch bufferTransform {
        case 1: (xx, xy, yx, yy) = (0, 1, -1, 0)     // 90
        case 2: (xx, xy, yx, yy) = (-1, 0, 0, -1)    // 180
        case 3: (xx, xy, yx, yy) = (0, -1, 1, 0)     // 270
        case 4: (xx, xy, yx, yy) = (-1, 0, 0, 1)     // flipped
        case 5: (xx, xy, yx, yy) = (0, 1, 1, 0)      // flipped 90
        case 6: (xx, xy, yx, yy) = (1, 0, 0, -1)     // flipped 180
        case 7: (xx, xy, yx, yy) = (0, -1, -1, 0)    // flipped 270
        default: return .identity
        }
        return Transform3D(m11: xx, m12: xy, m13: 0, m14: 0, m21: yx, m22: yy, m23: 0, m24: 0,
                           m31: 0, m32: 0, m33: 1, m34: 0, m41: 0, m42: 0, m43: 0, m44: 1)
    }

    /// Whether the transform turns the buffer a quarter (its sides swap on the surface).
    public var bufferTurnsSideways: Bool { bufferTransform % 2 == 1 }
}

/// An app surface's pixels, as the image memory the compositor reads (`PixelMemory`).
/// Single-threaded like the compositor; `@unchecked Sendable` as `ImageSource` is.
public final class AppSurfacePixels: PixelMemory, @unchecked Sendable {
    let storage: UnsafeMutableRawPointer
    public let byteCount: Int
    public let width: Int
    public let height: Int
    public var base: UnsafeRawPointer { UnsafeRawPointer(storage) }

    init(width: Int, height: Int) {
        self.width = width
        self.height = height
        byteCount = width * height * 4
        storage = UnsafeMutableRawPointer.allocate(byteCount: max(4, byteCount), alignment: 16)
        storage.initializeMemory(as: UInt8.self, repeating: 0, count: max(4, byteCount))
    }

    /// The image layout the compositor reads them with.
    public var format: ImageFormat {
        ImageFormat(width: UInt32(width), height: UInt32(height), order: .bgra, alpha: .premultiplied)
    }

    /// Copies `rect` from a client buffer (`stride` bytes a row, 32-bit ARGB or XRGB in little
    /// endian: B, G, R, A bytes); `opaque` sets every alpha byte to 255 (XRGB's is undefined).
    func copy(from source: UnsafeRawPointer, stride: Int, rect: PixelRect, opaque: Bool) {
        let x = Int(rect.x), w = Int(rect.width)
        for row in Int(rect.y)..<Int(rect.y + rect.height) {
            let from = source + row * stride + x * 4
            let to = storage + (row * width + x) * 4
            to.copyMemory(from: from, byteCount: w * 4)
            if opaque {
                for i in 0..<w { to.storeBytes(of: 255, toByteOffset: i * 4 + 3, as: UInt8.self) }
            }
        }
    }

    deinit { storage.deallocate() }
}

/// What the Wayland server tells its host (laminad's WaylandHost): app windows coming, changing
/// and going. One protocol, as `CompositorHost` is the compositor's one seam.
public protocol WaylandServerDelegate: AnyObject {
    /// A toplevel mapped (its parts hold their first buffers).
    func appSurfaceAppeared(_ surface: AppSurface)
    /// Its parts changed: `damage` holds, by part number, what a commit changed of a part's
    /// pixels (a part that is new, or whose `pixels` is a new object, is to be taken whole);
    /// parts may also have come, gone, moved or been restacked, or the title changed.
    func appSurfaceChanged(_ surface: AppSurface, damage: [UInt32: PixelRect])
    /// A surface committed nothing new but waits for a frame callback: a frame is wanted.
    func appSurfaceWantsFrame()
    /// It unmapped or was destroyed (its client left, or was dropped).
    func appSurfaceGone(_ surface: AppSurface)
}
