import LaminaCore

/// Packed 32-bit RGB pixels (`DRMFourCC.packedRGB`) as the renderer's premultiplied RGBA: a
/// decoder's picture (straight alpha) or a Wayland app's buffer (premultiplied already), copied
/// out of the memory they were mapped from. One conversion for both.
public enum PackedPixels {
    /// `height` rows of `width` pixels of `fourcc` from `data` (`rowBytes` apart) as
    /// premultiplied RGBA, and whether every one is opaque; nil for a fourcc that is not packed
    /// RGB. An X format's fourth byte is padding: opaque. `premultiplied`: the colour is
    /// already multiplied by alpha (nothing to do but reorder).
    public static func bitmap(_ data: UnsafeRawPointer, width: Int, height: Int, rowBytes: Int, fourcc: UInt32,
                              premultiplied: Bool) -> (bitmap: Bitmap, opaque: Bool)? {
        guard DRMFourCC.packedRGB.contains(fourcc) else { return nil }
        // ABGR/XBGR8888 are R, G, B, A in memory (as RGBA); ARGB/XRGB8888 are B, G, R, A.
        let inOrder = fourcc == DRMFourCC.abgr8888 || fourcc == DRMFourCC.xbgr8888
        let hasAlpha = fourcc == DRMFourCC.abgr8888 || fourcc == DRMFourCC.argb8888
        var bytes = [UInt8](repeating: 0, count: width * height * 4)
        var translucent = false
        bytes.withUnsafeMutableBytes { out in
            if inOrder {
                for row in 0..<height {
                    (out.baseAddress! + row * width * 4).copyMemory(from: data + row * rowBytes, byteCount: width * 4)
                }
            } else {
                for row in 0..<height {
                    let source = data + row * rowBytes
                    var o = row * width * 4
                    for col in 0..<width {
                        out[o] = source.load(fromByteOffset: col * 4 + 2, as: UInt8.self)
                        out[o + 1] = source.load(fromByteOffset: col * 4 + 1, as: UInt8.self)
                        out[o + 2] = source.load(fromByteOffset: col * 4, as: UInt8.self)
                        out[o + 3] = source.load(fromByteOffset: col * 4 + 3, as: UInt8.self)
                        o += 4
                    }
                }
            }
            if !hasAlpha {
                for i in stride(from: 3, to: out.count, by: 4) { out[i] = 255 }
                return
            }
            translucent = !allOpaque(UnsafeRawBufferPointer(out))
            if translucent, !premultiplied {
                for i in stride(from: 0, to: out.count, by: 4) where out[i + 3] != 255 {
                    let a = UInt32(out[i + 3])
                    for c in 0..<3 { out[i + c] = UInt8((UInt32(out[i + c]) * a + 127) / 255) }
                }
            }
        }
        var bitmap = Bitmap(width: 0, height: 0)
        bitmap.width = width
        bitmap.height = height
        bitmap.bytes = bytes
        return (bitmap, !translucent)
    }

    /// Whether every RGBA pixel's alpha is 255: two pixels a load (a byte loop cost a 720p
    /// video's decoding thread a tenth of laminad's time).
    public static func allOpaque(_ pixels: UnsafeRawBufferPointer) -> Bool {
        let alphas: UInt64 = 0xFF00_0000_FF00_0000
        let pairs = pixels.count / 8
        var i = 0
        while i < pairs {
            if pixels.loadUnaligned(fromByteOffset: i * 8, as: UInt64.self) & alphas != alphas { return false }
            i += 1
        }
        var k = pairs * 8 + 3
        while k < pixels.count {
            if pixels[k] != 255 { return false }
            k += 4
        }
        return true
    }
}
