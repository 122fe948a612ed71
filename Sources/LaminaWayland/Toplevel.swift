#if canImport(Glibc)
import Glibc
#endif
import CWlroots
import LaminaCore

/// One xdg toplevel: its wlroots objects, the listeners on them, and the `AppSurface` the host
/// shows. Kiosk mode: configured to the desktop's size as soon as it exists.
final class Toplevel {
    let xdgSurface: UnsafeMutablePointer<wlr_xdg_surface>
    let surface: UnsafeMutablePointer<wlr_surface>
    let app: AppSurface
    let owner: WaylandClient
    var map: Listener!
    var unmap: Listener!
    var destroy: Listener!
    var commit: Listener!
    var setTitle: Listener!
    private(set) var isMapped = false
    /// When it was mapped, in the server's order (the newest is on top).
    var mappedSerial: UInt64 = 0
    /// Frame callbacks: committed since the last frame started / in the frame being shown.
    var frameState = FrameState.idle
    enum FrameState { case idle, committed, inFrame }

    init(xdgSurface: UnsafeMutablePointer<wlr_xdg_surface>, app: AppSurface, owner: WaylandClient) {
        self.xdgSurface = xdgSurface
        surface = xdgSurface.pointee.surface
        self.app = app
        self.owner = owner
    }

    func detachAll() {
        for l in [map, unmap, destroy, commit, setTitle] { l?.detach() }
    }

    var toplevel: UnsafeMutablePointer<wlr_xdg_toplevel> { xdgSurface.pointee.toplevel }

    /// Reads the title and app id (wlroots keeps them as C strings).
    func readNames() -> Bool {
        let title = toplevel.pointee.title.map { String(cString: $0) } ?? ""
        let appID = toplevel.pointee.app_id.map { String(cString: $0) } ?? ""
        defer { app.title = title; app.appID = appID }
        return title != app.title || appID != app.appID
    }

    enum CopyResult {
        case none
        case damaged(PixelRect, resized: Bool)
        case refused(String)
    }

    /// Takes the committed buffer's damaged pixels into `app.pixels`.
    func copyCommittedPixels(maxPixels: Int) -> CopyResult {
        let w = Int(surface.pointee.current.buffer_width), h = Int(surface.pointee.current.buffer_height)
        guard w > 0, h > 0, let clientBuffer = surface.pointee.buffer else { return .none }
        guard w * h <= maxPixels else {
            return .refused("a \(w) × \(h) buffer is over [wayland] max_buffer_pixels (\(maxPixels))")
        }
        guard let source = clientBuffer.pointee.source else { return .none }
        var data: UnsafeMutableRawPointer?
        var format: UInt32 = 0
        var stride = 0
        // For a wl_shm buffer this is wl_shm_buffer_begin_access: a client that truncates its
        // pool gets zero pages (and an error) instead of laminad a SIGBUS.
        guard wlr_buffer_begin_data_ptr_access(source, UInt32(WLR_BUFFER_DATA_PTR_ACCESS_READ.rawValue), &data, &format, &stride),
              let data else { return .none }
        defer { wlr_buffer_end_data_ptr_access(source) }
        // DRM_FORMAT_ARGB8888 'AR24', DRM_FORMAT_XRGB8888 'XR24'.
        let argb: UInt32 = 0x3432_5241, xrgb: UInt32 = 0x3432_5258
        guard format == argb || format == xrgb else {
            return .refused("buffer format 0x\(String(format, radix: 16)) is not ARGB8888 or XRGB8888")
        }
        guard stride >= w * 4 else { return .refused("a buffer's stride \(stride) is under its width × 4") }
        var resized = false
        if app.pixels == nil || app.width != w || app.height != h {
            app.pixels = AppSurfacePixels(width: w, height: h)
            app.width = w
            app.height = h
            resized = true
        }
        app.isOpaque = format == xrgb
        let all = PixelRect(x: 0, y: 0, width: UInt32(w), height: UInt32(h))
        var rect = all
        if !resized {
            guard pixman_region32_not_empty(&surface.pointee.buffer_damage) != 0 else { return .none }
            let box = pixman_region32_extents(&surface.pointee.buffer_damage)!.pointee
            let x1 = max(0, min(w, Int(box.x1))), y1 = max(0, min(h, Int(box.y1)))
            let x2 = max(x1, min(w, Int(box.x2))), y2 = max(y1, min(h, Int(box.y2)))
            guard x2 > x1, y2 > y1 else { return .none }
            rect = PixelRect(x: UInt32(x1), y: UInt32(y1), width: UInt32(x2 - x1), height: UInt32(y2 - y1))
        }
        app.pixels!.copy(from: UnsafeRawPointer(data), stride: stride, rect: rect, opaque: format == xrgb)
        return .damaged(rect, resized: resized)
    }

    func markMapped(_ mapped: Bool) { isMapped = mapped }
}
