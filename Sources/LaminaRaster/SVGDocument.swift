import CCairo
import CRsvg
import LaminaCore
import Synchronization

/// An SVG document a client sent (create-svg-image, protocol 1.7), parsed with librsvg and
/// checked: its intrinsic size in points and what it draws at any scale. No external
/// reference is ever loaded: the handle has no base URL, so librsvg resolves no file or
/// network address (only `data:` URLs inside the document itself).
public final class SVGDocument: @unchecked Sendable {
    /// Why a document was refused, said to the client as an invalid-image reason.
    public enum Failure: Error, Equatable, CustomStringConvertible {
        case empty
        case tooManyBytes(Int, limit: Int)
        case compressed
        case malformed(String)
        case noSize
        case sizeTooLarge(width: Double, height: Double, limit: Double)

        public var description: String {
            switch self {
            case .empty: "the SVG document is empty"
            case .compressed: "the SVG document is gzip-compressed (SVGZ): send it uncompressed, so its size is what laminad parses"
            case .tooManyBytes(let n, let limit): "the SVG document is \(n) bytes; the limit is \(limit) (max_svg_bytes)"
            case .malformed(let why): "the SVG document could not be parsed: \(why)"
            case .noSize: "the SVG document has no size: give its <svg> element a width and height or a viewBox"
            case .sizeTooLarge(let w, let h, let limit): "the SVG document is \(w) × \(h) points; neither side may exceed \(limit)"
            }
        }
    }

    /// The largest side of a document's intrinsic size in points.
    public static let maximumSide = 16384.0

    /// The intrinsic size in points (CSS pixels: one SVG px is one point).
    public let size: Size
    // librsvg's handle is not thread-safe: the document is only drawn under `lock`.
    private let handle: UnsafeMutablePointer<RsvgHandle>
    private let lock = Mutex<Void>(())

    /// Parses `data`; refuses it when over `maximumBytes`, not well-formed SVG, without a size or
    /// larger than `maximumSide` on either side.
    public init(data: [UInt8], maximumBytes: Int) throws(Failure) {
        guard !data.isEmpty else { throw .empty }
        guard data.count <= maximumBytes else { throw .tooManyBytes(data.count, limit: maximumBytes) }
        // librsvg inflates SVGZ itself, past any limit on the bytes sent: a decompression bomb.
        guard !data.starts(with: [0x1F, 0x8B]) else { throw .compressed }
        var error: UnsafeMutablePointer<GError>?
        let h = data.withUnsafeBufferPointer { rsvg_handle_new_from_data($0.baseAddress, gsize($0.count), &error) }
        guard let h else {
            let why = error.flatMap { $0.pointee.message.map { String(cString: $0) } } ?? "unknown error"
            if let error { g_error_free(error) }
            throw .malformed(why)
        }
        var w = 0.0, ht = 0.0
        if rsvg_handle_get_intrinsic_size_in_pixels(h, &w, &ht) == 0 {
            var hasW: gboolean = 0, hasH: gboolean = 0, hasVB: gboolean = 0
            var lw = RsvgLength(), lh = RsvgLength(), vb = RsvgRectangle()
            rsvg_handle_get_intrinsic_dimensions(h, &hasW, &lw, &hasH, &lh, &hasVB, &vb)
            if hasVB != 0 { w = vb.width; ht = vb.height } else { w = 0; ht = 0 }
        }
        guard w.isFinite, ht.isFinite, w > 0, ht > 0 else { g_object_unref(h); throw .noSize }
        guard w <= Self.maximumSide, ht <= Self.maximumSide else {
            g_object_unref(h)
            throw .sizeTooLarge(width: w, height: ht, limit: Self.maximumSide)
        }
        handle = h
        size = Size(width: w, height: ht)
    }

    deinit { g_object_unref(handle) }

    /// The document drawn at `requested` pixels per point, lowered so no side passes
    /// `maximumPixels` per side (rasterMaximumSide); nil when librsvg fails to draw it.
    public func rasterize(scale requested: Double, maximumSide maximumPixels: Int = rasterMaximumSide) -> RasterImage? {
        guard requested.isFinite, requested > 0 else { return nil }
        var scale = requested
        let longest = Swift.max(size.width, size.height) * scale
        if longest > Double(maximumPixels) { scale *= Double(maximumPixels) / longest }
        let pw = Swift.max(1, Int((size.width * scale).rounded(.up))), ph = Swift.max(1, Int((size.height * scale).rounded(.up)))
        guard let canvas = CairoCanvas(width: pw, height: ph) else { return nil }
        var viewport = RsvgRectangle(x: 0, y: 0, width: size.width * scale, height: size.height * scale)
        var error: UnsafeMutablePointer<GError>?
        let ok = lock.withLock { _ in rsvg_handle_render_document(handle, canvas.context, &viewport, &error) }
        if let error { g_error_free(error) }
        guard ok != 0, cairo_status(canvas.context) == CAIRO_STATUS_SUCCESS else { return nil }
        return RasterImage(bitmap: canvas.bitmap(),
                           frame: Rect(x: 0, y: 0, width: Double(pw) / scale, height: Double(ph) / scale), scale: scale)
    }
}
