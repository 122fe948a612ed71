import CCairo

/// Reference pictures drawn by cairo alone, and how far a raster is from one: what the drawing
/// and SVG tests compare LaminaRaster's output with.
enum CairoReference {
    /// A `width` × `height` point picture drawn by `body` on a cairo context scaled by `scale`,
    /// as premultiplied RGBA bytes (rows top to bottom).
    static func draw(width: Double, height: Double, scale: Double, _ body: (OpaquePointer) -> Void) -> [UInt8] {
        let w = Int((width * scale).rounded(.up)), h = Int((height * scale).rounded(.up))
        let s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(w), Int32(h))!
        let cr = cairo_create(s)!
        defer { cairo_destroy(cr); cairo_surface_destroy(s) }
        cairo_scale(cr, scale, scale)
        body(cr)
        cairo_surface_flush(s)
        let stride = Int(cairo_image_surface_get_stride(s))
        let data = cairo_image_surface_get_data(s)!
        var out: [UInt8] = []
        out.reserveCapacity(w * h * 4)
        for y in 0..<h {
            let row = UnsafeRawPointer(data + y * stride).assumingMemoryBound(to: UInt32.self)
            for x in 0..<w {
                let p = row[x]
                out += [UInt8(truncatingIfNeeded: p >> 16), UInt8(truncatingIfNeeded: p >> 8), UInt8(truncatingIfNeeded: p),
                        UInt8(truncatingIfNeeded: p >> 24)]
            }
        }
        return out
    }

    /// The channels of `a` and `b` that differ by more than `tolerance`, and the largest difference.
    static func difference(_ a: [UInt8], _ b: [UInt8], tolerance: Int) -> (differing: Int, worst: Int) {
        var worst = 0, differing = 0
        for (x, y) in zip(a, b) {
            let d = abs(Int(x) - Int(y))
            worst = max(worst, d)
            if d > tolerance { differing += 1 }
        }
        return (differing, worst)
    }
}
