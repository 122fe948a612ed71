import CJPEG
import Glibc
import LaminaCore

/// Decodes JPEG files with libjpeg (libjpeg-turbo) into 8-bit RGBA bitmaps (alpha 255).
public enum JPEG {
    /// The most pixels decoded, as for PNG: 2^28 (1 GiB of RGBA), refused from the header.
    public static let maximumPixelCount = 1 << 28

    /// Decodes JPEG bytes. The corresponding C functions are libjpeg's `jpeg_read_header`,
    /// `jpeg_start_decompress` and `jpeg_read_scanlines` (in `lamina_jpeg_decode`).
    public static func decode(_ bytes: [UInt8], path: String? = nil) throws(PNGError) -> Bitmap {
        var width: Int32 = 0, height: Int32 = 0, tooLarge: Int32 = 0
        var message = [CChar](repeating: 0, count: 256)
        let pixels = bytes.withUnsafeBufferPointer { b in
            message.withUnsafeMutableBufferPointer { m in
                lamina_jpeg_decode(b.baseAddress, UInt(b.count), UInt64(maximumPixelCount), &width, &height, &tooLarge, m.baseAddress, Int32(m.count))
            }
        }
        guard let pixels else {
            let text = message.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            if tooLarge != 0 { throw .undecodable(format: "JPEG", path: path, reason: text) }
            throw .decodingFailed(path: path, libpngMessage: "libjpeg: " + text)
        }
        defer { free(pixels) }
        let count = Int(width) * Int(height) * 4
        return Bitmap(width: Int(width), height: Int(height), bytes: Array(UnsafeBufferPointer(start: pixels, count: count)))!
    }

    /// Reads and decodes the JPEG file at `path`.
    public static func read(fromFile path: String) throws(PNGError) -> Bitmap {
        var file = try OwnedFileDescriptor(path: path, flags: O_RDONLY)
        let bytes = try file.readAll()
        try file.close()
        return try decode(bytes, path: path)
    }
}

/// PNG, JPEG, WebP or GIF by the file's first bytes, not its name.
public enum ImageFile {
    /// Reads a PNG, JPEG, WebP or GIF file into a straight-alpha RGBA bitmap. An animated WebP
    /// or GIF gives its first frame (`AnimatedImage.decode` gives them all); WebP and GIF are
    /// bounded as `WebP.maximumBytes` says, checked from the header before decoding.
    public static func read(_ path: String) throws(PNGError) -> Bitmap {
        let bytes = try contents(of: path)
        if bytes.starts(with: [0xFF, 0xD8, 0xFF]) { return try JPEG.decode(bytes, path: path) }
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]) { return try PNG.decode(bytes) }
        if WebP.hasSignature(bytes) { return try WebP.decode(bytes, path: path) }
        if GIF.hasSignature(bytes) {
            let limits = DecodingLimits(maximumBytes: WebP.maximumBytes, framesWanted: 1)
            return try GIF.decode(bytes, limits: limits, path: path).frames[0]
        }
        throw .undecodable(format: "image", path: path, reason: "not a PNG, JPEG, WebP or GIF file (unknown signature)")
    }

    /// The whole file at `path`. The corresponding C functions are `open` and `read`.
    static func contents(of path: String) throws(PNGError) -> [UInt8] {
        var file = try OwnedFileDescriptor(path: path, flags: O_RDONLY)
        let bytes = try file.readAll()
        try file.close()
        return bytes
    }
}
