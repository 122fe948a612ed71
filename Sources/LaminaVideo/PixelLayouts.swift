import CGStreamer
import LaminaCore
import LaminaCompositor

/// The planar YUV 4:2:0 layouts the app sink takes where the renderer converts YUV: I420
/// (three planes, what software decoders give) and NV12 (luma, then Cb and Cr interleaved:
/// what V4L2 hardware decoders give). Both become a `PlanarPicture` with separate planes.
enum PlanarLayout {
    case i420, nv12

    init?(_ format: GstVideoFormat) {
        switch format {
        case GST_VIDEO_FORMAT_I420: self = .i420
        case GST_VIDEO_FORMAT_NV12: self = .nv12
        default: return nil
        }
    }

    var planeCount: Int { self == .i420 ? 3 : 2 }

    /// The DRM fourcc of the layout (I420 is DRM's YU12).
    var fourcc: UInt32 { self == .i420 ? DRMFourCC.yuv420 : DRMFourCC.nv12 }

    /// The picture in `memory`, each plane at its offset with its stride (the decoder's
    /// numbers, checked against the memory before a byte is read: nil where a plane reaches
    /// past it or a stride is shorter than a row), rows packed; NV12's chroma de-interleaved.
    func picture(_ memory: UnsafeRawBufferPointer, width: Int, height: Int, offsets: [Int], strides: [Int],
                 matrix: PlanarPicture.Matrix, fullRange: Bool) -> PlanarPicture? {
        guard let base = memory.baseAddress, width > 0, height > 0, offsets.count >= planeCount, strides.count >= planeCount else { return nil }
        let cw = (width + 1) / 2, ch = (height + 1) / 2
        /// The rows of the plane at `index`: `rowBytes` bytes each, `rows` of them.
        func rows(_ index: Int, rowBytes: Int, rows: Int, _ body: (UnsafeRawPointer, Int) -> Void) -> Bool {
            let start = offsets[index], stride = strides[index]
            guard start >= 0, stride >= rowBytes, start <= memory.count,
                  rows <= 1 || stride <= (memory.count - start) / (rows - 1),
                  start + stride * (rows - 1) + rowBytes <= memory.count else { return false }
            for row in 0..<rows { body(base + start + row * stride, row) }
            return true
        }
        var y = [UInt8](repeating: 0, count: width * height)
        var u = [UInt8](repeating: 0, count: cw * ch), v = [UInt8](repeating: 0, count: cw * ch)
        let lumaCopied = y.withUnsafeMutableBytes { out in
            rows(0, rowBytes: width, rows: height) { row, r in (out.baseAddress! + r * width).copyMemory(from: row, byteCount: width) }
        }
        guard lumaCopied else { return nil }
        switch self {
        case .i420:
            let copied = u.withUnsafeMutableBytes { uo in
                v.withUnsafeMutableBytes { vo in
                    rows(1, rowBytes: cw, rows: ch) { row, r in (uo.baseAddress! + r * cw).copyMemory(from: row, byteCount: cw) }
                        && rows(2, rowBytes: cw, rows: ch) { row, r in (vo.baseAddress! + r * cw).copyMemory(from: row, byteCount: cw) }
                }
            }
            guard copied else { return nil }
        case .nv12:
            let copied = u.withUnsafeMutableBufferPointer { uo in
                v.withUnsafeMutableBufferPointer { vo in
                    rows(1, rowBytes: cw * 2, rows: ch) { row, r in
                        let pairs = row.assumingMemoryBound(to: UInt8.self)
                        for i in 0..<cw {
                            uo[r * cw + i] = pairs[2 * i]
                            vo[r * cw + i] = pairs[2 * i + 1]
                        }
                    }
                }
            }
            guard copied else { return nil }
        }
        return PlanarPicture(width: width, height: height, luma: y, cb: u, cr: v, matrix: matrix, fullRange: fullRange)
    }
}

/// The packed 8-bit RGB layouts the app sink takes: where R, G and B lie in a pixel, whether
/// the fourth byte is alpha, and the DRM fourcc of the layout.
struct PackedLayout {
    var red: Int, blue: Int, hasAlpha: Bool, fourcc: UInt32

    init?(_ format: GstVideoFormat) {
        switch format {
        case GST_VIDEO_FORMAT_RGBA: self.init(red: 0, blue: 2, hasAlpha: true, fourcc: DRMFourCC.abgr8888)
        case GST_VIDEO_FORMAT_RGBx: self.init(red: 0, blue: 2, hasAlpha: false, fourcc: DRMFourCC.xbgr8888)
        case GST_VIDEO_FORMAT_BGRA: self.init(red: 2, blue: 0, hasAlpha: true, fourcc: DRMFourCC.argb8888)
        case GST_VIDEO_FORMAT_BGRx: self.init(red: 2, blue: 0, hasAlpha: false, fourcc: DRMFourCC.xrgb8888)
        default: return nil
        }
    }

    /// The layout with its fourth byte taken as padding (a camera's pictures are opaque: V4L2
    /// fills the alpha byte with a constant, vivid's `alpha_component` control, not image data).
    var opaque: PackedLayout {
        guard hasAlpha else { return self }
        return PackedLayout(red: red, blue: blue, hasAlpha: false, fourcc: red == 0 ? DRMFourCC.xbgr8888 : DRMFourCC.xrgb8888)
    }

    init(red: Int, blue: Int, hasAlpha: Bool, fourcc: UInt32) {
        self.red = red
        self.blue = blue
        self.hasAlpha = hasAlpha
        self.fourcc = fourcc
    }

    /// `height` rows of `width` pixels from `data` (`rowBytes` apart) as premultiplied RGBA,
    /// and whether every one is opaque (`PackedPixels`: decoders give straight alpha).
    func bitmapAndOpacity(_ data: UnsafeRawPointer, width: Int, height: Int, rowBytes: Int) -> (bitmap: Bitmap, opaque: Bool) {
        PackedPixels.bitmap(data, width: width, height: height, rowBytes: rowBytes, fourcc: fourcc, premultiplied: false)
            ?? (Bitmap(width: width, height: height), false)
    }
}
