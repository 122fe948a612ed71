#if canImport(Glibc)
import Glibc
#endif
import CWlroots
import LaminaCore

/// One `wl_surface` of a window's tree while it is shown (a part of the window): its part, the
/// listener on its commits, and whether a frame callback waits for a frame.
final class SurfaceView {
    let surface: UnsafeMutablePointer<wlr_surface>
    let part: AppSurfacePart
    var commit: Listener?
    /// Frame callbacks: committed since the last frame started / in the frame being shown.
    var frameState = FrameState.idle
    enum FrameState { case idle, committed, inFrame }
    /// The `wp_presentation` feedback of the commit in the frame being shown, if the app asked.
    var feedback: UnsafeMutablePointer<wlr_presentation_feedback>?
    /// The client buffer (wlroots' wrapper of an attached buffer) the part's dma-buf picture was
    /// made from: a commit that attached nothing keeps it.
    private var dmabufClientBuffer: UnsafeMutableRawPointer?

    init(surface: UnsafeMutablePointer<wlr_surface>, part: AppSurfacePart) {
        self.surface = surface
        self.part = part
    }

    func detach() {
        commit?.detach()
        commit = nil
        if let feedback { wlr_presentation_feedback_destroy(feedback) }
        feedback = nil
    }

    enum CopyResult {
        case none
        case damaged(PixelRect, resized: Bool)
        case refused(String)
    }

    /// The `wp_viewport` source rectangle in unit coordinates of the `width` × `height` buffer
    /// (wlroots maps it through the scale and transform to buffer pixels; it refused a rectangle
    /// outside the buffer at commit), cut to the buffer; the whole buffer without one.
    static func unitSourceRect(_ surface: UnsafeMutablePointer<wlr_surface>, width: Int, height: Int) -> Rect {
        let whole = Rect(x: 0, y: 0, width: 1, height: 1)
        guard surface.pointee.current.viewport.has_src else { return whole }
        var box = wlr_fbox()
        wlr_surface_get_buffer_source_box(surface, &box)
        let w = Double(width), h = Double(height)
        let x0 = min(max(box.x, 0), w), y0 = min(max(box.y, 0), h)
        let x1 = min(max(box.x + box.width, x0), w), y1 = min(max(box.y + box.height, y0), h)
        guard x0.isFinite, y0.isFinite, x1.isFinite, y1.isFinite, x1 > x0, y1 > y0 else { return whole }
        return Rect(x: x0 / w, y: y0 / h, width: (x1 - x0) / w, height: (y1 - y0) / h)
    }

    /// Takes the committed buffer's damaged pixels (all of them when `whole`) into the part; a
    /// dma-buf becomes the part's picture instead (`AppBufferDMABuf`).
    func copyCommittedPixels(maxPixels: Int, whole: Bool = false) -> CopyResult {
        let w = Int(surface.pointee.current.buffer_width), h = Int(surface.pointee.current.buffer_height)
        guard w > 0, h > 0, let clientBuffer = surface.pointee.buffer else { return .none }
        part.pointWidth = max(1, Int(surface.pointee.current.width))
        part.pointHeight = max(1, Int(surface.pointee.current.height))
        part.bufferTransform = Int(surface.pointee.current.transform.rawValue & 7)
        part.sourceRect = Self.unitSourceRect(surface, width: w, height: h)
        guard w * h <= maxPixels else {
            return .refused("a \(w) × \(h) buffer is over [wayland] max_buffer_pixels (\(maxPixels))")
        }
        guard let source = clientBuffer.pointee.source else { return .none }
        // A dma-buf: a new picture each commit that attached a buffer, shown whole (the renderer
        // imports it in place); a commit without one (a frame callback, an input region) keeps
        // it. wlroots wraps each attached buffer in a new client buffer, made while the last one
        // still lives, so an unchanged address means no new buffer.
        if part.dmabuf != nil, !whole, UnsafeMutableRawPointer(clientBuffer) == dmabufClientBuffer { return .none }
        dmabufClientBuffer = nil
        switch AppBufferDMABuf.picture(of: source) {
        case .failure(let refusal)?:
            return .refused(refusal.message)
        case .success(let picture)?:
            dmabufClientBuffer = UnsafeMutableRawPointer(clientBuffer)
            part.pixels = nil
            part.dmabuf = picture
            part.width = w
            part.height = h
            part.isOpaque = !picture.hasAlpha
            return .damaged(PixelRect(x: 0, y: 0, width: UInt32(w), height: UInt32(h)), resized: true)
        case nil:
            part.dmabuf = nil
        }
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
        if part.pixels == nil || part.width != w || part.height != h {
            part.pixels = AppSurfacePixels(width: w, height: h)
            part.width = w
            part.height = h
            resized = true
        }
        part.isOpaque = format == xrgb
        let all = PixelRect(x: 0, y: 0, width: UInt32(w), height: UInt32(h))
        var rect = all
        if !resized && !whole {
            guard pixman_region32_not_empty(&surface.pointee.buffer_damage) != 0 else { return .none }
            let box = pixman_region32_extents(&surface.pointee.buffer_damage)!.pointee
            let x1 = max(0, min(w, Int(box.x1))), y1 = max(0, min(h, Int(box.y1)))
            let x2 = max(x1, min(w, Int(box.x2))), y2 = max(y1, min(h, Int(box.y2)))
            guard x2 > x1, y2 > y1 else { return .none }
            rect = PixelRect(x: UInt32(x1), y: UInt32(y1), width: UInt32(x2 - x1), height: UInt32(y2 - y1))
        }
        part.pixels!.copy(from: UnsafeRawPointer(data), stride: stride, rect: rect, opaque: format == xrgb)
        return .damaged(rect, resized: resized)
    }
}
