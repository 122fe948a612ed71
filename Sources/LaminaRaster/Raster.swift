import CCairo
import LaminaCore

/// A layer's drawing rasterised on the CPU: premultiplied RGBA pixels and where they sit in the
/// layer's bounds coordinates.
public struct RasterImage: Sendable, Equatable {
    /// Premultiplied RGBA, row 0 at the top.
    public var bitmap: Bitmap
    /// The rectangle the bitmap covers, in the layer's bounds coordinates (y down). A shape's
    /// stroke may reach outside the bounds, so this is not always the bounds.
    public var frame: Rect
    /// Pixels per point the bitmap was drawn at.
    public var scale: Double

    public init(bitmap: Bitmap, frame: Rect, scale: Double) {
        self.bitmap = bitmap
        self.frame = frame
        self.scale = scale
    }
}

/// The largest side of a rasterised image in pixels; a layer that would need more is drawn at a
/// lower scale (and looks softer) rather than allocating without limit.
public let rasterMaximumSide = 4096

/// An ARGB32 cairo image surface of `width` × `height` pixels, cleared to transparent, with a
/// context drawing into it. Owns both.
final class CairoCanvas {
    let surface: OpaquePointer
    let context: OpaquePointer
    let width: Int
    let height: Int

    init?(width: Int, height: Int) {
        guard width > 0, height > 0, width <= rasterMaximumSide, height <= rasterMaximumSide else { return nil }
        guard let s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(width), Int32(height)) else { return nil }
        guard cairo_surface_status(s) == CAIRO_STATUS_SUCCESS, let c = cairo_create(s) else {
            cairo_surface_destroy(s)
            return nil
        }
        surface = s
        context = c
        self.width = width
        self.height = height
    }

    deinit {
        cairo_destroy(context)
        cairo_surface_destroy(surface)
    }

    /// The pixels as a premultiplied RGBA `Bitmap`. cairo's ARGB32 is premultiplied too, a
    /// native-endian 32-bit word a pixel: B, G, R, A in memory on little-endian machines.
    func bitmap() -> Bitmap {
        cairo_surface_flush(surface)
        let stride = Int(cairo_image_surface_get_stride(surface))
        guard let data = cairo_image_surface_get_data(surface) else { return Bitmap(width: width, height: height) }
        var bytes = [UInt8](repeating: 0, count: width * height * 4)
        let w = width, h = height
        bytes.withUnsafeMutableBufferPointer { out in
            for y in 0..<h {
                let row = UnsafeRawPointer(data + y * stride).assumingMemoryBound(to: UInt32.self)
                var o = y * w * 4
                for x in 0..<w {
                    let p = row[x]
                    out[o] = UInt8(truncatingIfNeeded: p >> 16)
                    out[o + 1] = UInt8(truncatingIfNeeded: p >> 8)
                    out[o + 2] = UInt8(truncatingIfNeeded: p)
                    out[o + 3] = UInt8(truncatingIfNeeded: p >> 24)
                    o += 4
                }
            }
        }
        return Bitmap(width: w, height: h, bytes: bytes) ?? Bitmap(width: w, height: h)
    }
}

extension Color {
    /// Sets the colour as the context's source (cairo premultiplies it).
    func setSource(_ cr: OpaquePointer) {
        cairo_set_source_rgba(cr, red, green, blue, alpha)
    }
}
