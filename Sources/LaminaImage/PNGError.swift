import Glibc

/// Why an image file (PNG, JPEG, WebP, GIF) could not be encoded, decoded, read or written.
public enum PNGError: Error, Equatable, Sendable, CustomStringConvertible {
    /// libpng refused to encode the bitmap. `path` is the file being written, or nil in memory.
    case encodingFailed(path: String?, libpngMessage: String)
    /// libpng could not decode the bytes. `path` is the file they came from, or nil in memory.
    case decodingFailed(path: String?, libpngMessage: String)
    /// A WebP or GIF file was malformed, truncated, or larger than Lamina decodes (checked from
    /// its header, before anything is allocated for its pixels), a JPEG was too large, or a
    /// file was no image Lamina knows. `format` is "WebP", "GIF", "JPEG", "animated image" or
    /// "image" (unknown signatures);
    /// `reason` names what was wrong, with the number and its limit where one was exceeded.
    case undecodable(format: String, path: String?, reason: String)
    /// The bitmap's byte count is not `width × height × 4`, or a dimension is not positive.
    case malformedBitmap(width: Int, height: Int, byteCount: Int)
    /// A system call on `path` failed with `errno`.
    case systemCallFailed(call: String, path: String, errno: Int32)

    public var description: String {
        switch self {
        case let .encodingFailed(path, message):
            "cannot encode PNG\(Self.naming(path)): libpng says \"\(message)\""
        case let .decodingFailed(path, message):
            "cannot decode PNG\(Self.naming(path)): libpng says \"\(message)\""
        case let .undecodable(format, path, reason):
            "cannot decode \(format)\(Self.naming(path)): \(reason)"
        case let .malformedBitmap(width, height, byteCount):
            "cannot encode a \(width)×\(height) bitmap holding \(byteCount) bytes as PNG: "
                + "it needs positive dimensions and exactly \(width * height * 4) bytes"
        case let .systemCallFailed(call, path, code):
            "\(call)(\"\(path)\") failed: \(String(cString: strerror(code))) (errno \(code))"
        }
    }

    private static func naming(_ path: String?) -> String {
        path.map { " \"\($0)\"" } ?? " in memory"
    }
}
