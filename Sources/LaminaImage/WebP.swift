import CWebP
import LaminaCore

/// Decodes still WebP files (lossy, lossless, with or without alpha) with libwebp into
/// straight-alpha RGBA bitmaps, as `PNG` and `JPEG` do. The header is read first
/// (`WebPGetFeatures`) and a canvas over `AnimatedImage.maximumSide` a side or over
/// `maximumBytes` of RGBA is refused before any pixel is allocated. An animated WebP decodes
/// to its first frame, composited on the canvas, as `UIImage(contentsOfFile:)` shows an
/// animated image; `AnimatedImage.decode` gives all its frames.
public enum WebP {
    /// The most RGBA bytes a still image decodes to (256 MiB: 8192×8192 pixels).
    public static let maximumBytes = 256 << 20

    /// Decodes WebP bytes. `path` only names the file in errors.
    /// The corresponding C functions are libwebp's `WebPGetFeatures` and `WebPDecode`.
    public static func decode(_ bytes: [UInt8], path: String? = nil) throws(PNGError) -> Bitmap {
        let features = try readFeatures(bytes, path: path)
        let width = Int(features.width), height = Int(features.height)
        let limits = DecodingLimits(maximumBytes: maximumBytes, framesWanted: 1)
        try limits.checkCanvas(width: width, height: height, format: "WebP", path: path)
        try limits.checkFrame(1, width: width, height: height, format: "WebP", path: path)
        if features.has_animation != 0 {
            return try WebPAnimation.decode(bytes, limits: limits, path: path).frames[0]
        }
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        var config = WebPDecoderConfig()
        guard WebPInitDecoderConfig(&config) != 0 else {
            throw .undecodable(format: "WebP", path: path, reason: "this libwebp does not match the headers Lamina was built with")
        }
        let status = pixels.withUnsafeMutableBufferPointer { out in
            bytes.withUnsafeBufferPointer { input in
                config.output.colorspace = MODE_RGBA
                config.output.is_external_memory = 1
                config.output.u.RGBA = WebPRGBABuffer(rgba: out.baseAddress, stride: Int32(width * 4), size: out.count)
                defer { WebPFreeDecBuffer(&config.output) }
                return WebPDecode(input.baseAddress, input.count, &config)
            }
        }
        guard status == VP8_STATUS_OK else {
            throw .undecodable(format: "WebP", path: path, reason: describe(status, at: "its pixels"))
        }
        return Bitmap(width: width, height: height, bytes: pixels)!
    }

    /// Reads and decodes the WebP file at `path`.
    public static func read(fromFile path: String) throws(PNGError) -> Bitmap {
        try decode(ImageFile.contents(of: path), path: path)
    }

    /// Whether WebP bytes are an animation (by their header; false when it cannot be read).
    public static func isAnimated(_ bytes: [UInt8]) -> Bool {
        (try? readFeatures(bytes, path: nil))?.has_animation ?? 0 != 0
    }

    /// The canvas a WebP header declares (nil when it cannot be read). Nothing is decoded.
    public static func canvasSize(_ bytes: [UInt8]) -> (width: Int, height: Int)? {
        (try? readFeatures(bytes, path: nil)).map { (Int($0.width), Int($0.height)) }
    }

    /// "RIFF", a 32-bit size, "WEBP".
    static func hasSignature(_ bytes: [UInt8]) -> Bool {
        bytes.count >= 12 && bytes[0..<4].elementsEqual("RIFF".utf8) && bytes[8..<12].elementsEqual("WEBP".utf8)
    }

    /// The header: canvas size, alpha, animation. Nothing is allocated for pixels.
    static func readFeatures(_ bytes: [UInt8], path: String?) throws(PNGError) -> WebPBitstreamFeatures {
        var features = WebPBitstreamFeatures()
        let status = bytes.withUnsafeBufferPointer { WebPGetFeatures($0.baseAddress, $0.count, &features) }
        guard status == VP8_STATUS_OK else {
            throw .undecodable(format: "WebP", path: path, reason: describe(status, at: "its header"))
        }
        return features
    }

    /// libwebp's status in words.
    static func describe(_ status: VP8StatusCode, at place: String) -> String {
        let what = switch status {
        case VP8_STATUS_NOT_ENOUGH_DATA: "the file ends early (truncated)"
        case VP8_STATUS_BITSTREAM_ERROR: "malformed data (bitstream error)"
        case VP8_STATUS_UNSUPPORTED_FEATURE: "a feature libwebp does not support"
        case VP8_STATUS_OUT_OF_MEMORY: "out of memory"
        case VP8_STATUS_INVALID_PARAM: "invalid data"
        default: "status \(status.rawValue)"
        }
        return "libwebp failed reading \(place): \(what)"
    }
}
