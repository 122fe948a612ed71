import CPNG
import Glibc
import LaminaCore

/// Encodes and decodes 8-bit RGBA PNG files with libpng's simplified API.
///
/// Reference images for pixel tests and screenshots from `laminactl` go through here.
/// Colour values are stored as they are, with no gamma or colour-space conversion.
public enum PNG {
    /// Encodes `bitmap` as an 8-bit RGBA PNG.
    /// The corresponding C function is `png_image_write_to_memory`.
    public static func encode(_ bitmap: Bitmap) throws(PNGError) -> [UInt8] {
        try encode(bitmap, path: nil)
    }

    /// Decodes a PNG of any colour type into an 8-bit RGBA bitmap.
    /// The corresponding C functions are `png_image_begin_read_from_memory` and
    /// `png_image_finish_read`.
    public static func decode(_ bytes: [UInt8]) throws(PNGError) -> Bitmap {
        try decode(bytes, path: nil)
    }

    /// Encodes `bitmap` and writes it to `path`, replacing any file there.
    public static func write(_ bitmap: Bitmap, toFile path: String) throws(PNGError) {
        let bytes = try encode(bitmap, path: path)
        var file = try OwnedFileDescriptor(path: path, flags: O_WRONLY | O_CREAT | O_TRUNC, mode: 0o644)
        try file.writeAll(bytes)
        try file.close()
    }

    /// Reads and decodes the PNG file at `path`.
    public static func read(fromFile path: String) throws(PNGError) -> Bitmap {
        var file = try OwnedFileDescriptor(path: path, flags: O_RDONLY)
        let bytes = try file.readAll()
        try file.close()
        return try decode(bytes, path: path)
    }

    // MARK: - libpng

    /// `PNG_FORMAT_RGBA`, which Swift does not import because it is a macro built from other macros.
    private static let formatRGBA = UInt32(PNG_FORMAT_FLAG_COLOR | PNG_FORMAT_FLAG_ALPHA)

    /// 2^28 pixels (1 GiB of RGBA): far above any display, far below what would exhaust memory.
    private static let maximumPixelCount = 1 << 28

    private static func newImage() -> png_image {
        var image = png_image()
        image.version = UInt32(PNG_IMAGE_VERSION)
        return image
    }

    private static func encode(_ bitmap: Bitmap, path: String?) throws(PNGError) -> [UInt8] {
        guard bitmap.width > 0, bitmap.height > 0,
              bitmap.bytes.count == bitmap.width * bitmap.height * 4,
              let width = UInt32(exactly: bitmap.width), let height = UInt32(exactly: bitmap.height)
        else {
            throw .malformedBitmap(width: bitmap.width, height: bitmap.height, byteCount: bitmap.bytes.count)
        }
        func configured() -> png_image {
            var image = newImage()
            image.width = width
            image.height = height
            image.format = formatRGBA
            return image
        }
        let stride = Int32(clamping: bitmap.width * 4)
        // First pass with no buffer asks for the encoded size; the second pass encodes.
        var image = configured()
        var size = 0
        let measured = bitmap.bytes.withUnsafeBytes { pixels in
            png_image_write_to_memory(&image, nil, &size, 0, pixels.baseAddress, stride, nil)
        }
        guard measured != 0 else { throw .encodingFailed(path: path, libpngMessage: message(of: &image)) }
        var encoded = [UInt8](repeating: 0, count: size)
        image = configured()
        let written = bitmap.bytes.withUnsafeBytes { pixels in
            encoded.withUnsafeMutableBytes { out in
                png_image_write_to_memory(&image, out.baseAddress, &size, 0, pixels.baseAddress, stride, nil)
            }
        }
        guard written != 0 else { throw .encodingFailed(path: path, libpngMessage: message(of: &image)) }
        encoded.removeLast(encoded.count - size)
        return encoded
    }

    private static func decode(_ bytes: [UInt8], path: String?) throws(PNGError) -> Bitmap {
        var image = newImage()
        defer { png_image_free(&image) }
        let begun = bytes.withUnsafeBytes { input in
            png_image_begin_read_from_memory(&image, input.baseAddress, input.count)
        }
        guard begun != 0 else { throw .decodingFailed(path: path, libpngMessage: message(of: &image)) }
        image.format = formatRGBA
        let width = Int(image.width), height = Int(image.height)
        // The header alone sets the allocation below; refuse sizes no screenshot reaches.
        guard width * height <= maximumPixelCount else {
            throw .decodingFailed(path: path, libpngMessage: "\(width)×\(height) is larger than Lamina decodes")
        }
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        let finished = pixels.withUnsafeMutableBytes { out in
            png_image_finish_read(&image, nil, out.baseAddress, 0, nil)
        }
        guard finished != 0 else { throw .decodingFailed(path: path, libpngMessage: message(of: &image)) }
        guard let bitmap = Bitmap(width: width, height: height, bytes: pixels) else {
            throw .decodingFailed(path: path, libpngMessage: "decoded a \(width)×\(height) image of the wrong size")
        }
        return bitmap
    }

    /// The NUL-terminated message libpng left in `image.message` (a fixed 64-byte array).
    private static func message(of image: inout png_image) -> String {
        withUnsafeBytes(of: &image.message) { raw in
            let text = raw.prefix { $0 != 0 }
            return text.isEmpty ? "unknown error" : String(decoding: text, as: UTF8.self)
        }
    }
}
