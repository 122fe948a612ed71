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
    /// The pixels, premultiplied BGRA, `width` × 4 bytes a row; a new object when the size changes.
    public internal(set) var pixels: AppSurfacePixels?
    /// Whether every pixel is opaque (an XRGB8888 buffer).
    public internal(set) var isOpaque = false

    init(id: UInt32) { self.id = id }
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
