import Glibc
import LaminaCore

/// An image file as a client library takes it: pixels it decodes itself (PNG, JPEG), or a file
/// it sends laminad as it is (SVG, GIF, WebP: protocol 1.7's create-encoded-image), told by
/// its first bytes.
public enum LoadedImageFile: Sendable {
    case bitmap(Bitmap)
    case encoded([UInt8], ImageFile.EncodedKind)
}

extension ImageFile {
    /// The encoded files laminad decodes itself.
    public enum EncodedKind: Sendable, Equatable {
        case svg, gif, webp
    }

    /// The kind of an encoded file by its first bytes: GIF87a/GIF89a, RIFF…WEBP, or an XML or
    /// `<svg` start (after an optional byte-order mark and white space). nil for anything else.
    public static func encodedKind(of bytes: [UInt8]) -> EncodedKind? {
        if bytes.starts(with: Array("GIF87a".utf8)) || bytes.starts(with: Array("GIF89a".utf8)) { return .gif }
        if bytes.count >= 12, bytes.starts(with: Array("RIFF".utf8)), Array(bytes[8..<12]) == Array("WEBP".utf8) { return .webp }
        var start = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        while start < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[start]) { start += 1 }
        let head = bytes[start...]
        if head.starts(with: Array("<?xml".utf8)) || head.starts(with: Array("<svg".utf8)) || head.starts(with: Array("<!--".utf8))
            || head.starts(with: Array("<!DOCTYPE svg".utf8)) { return .svg }
        return nil
    }

    /// Reads the file at `path`: PNG, JPEG and still WebP decoded here; SVG, GIF and animated
    /// WebP as their bytes, for laminad to draw or play.
    public static func load(_ path: String) throws(PNGError) -> LoadedImageFile {
        var file = try OwnedFileDescriptor(path: path, flags: O_RDONLY)
        let bytes = try file.readAll()
        try file.close()
        if let kind = encodedKind(of: bytes) {
            if kind == .webp, !WebP.isAnimated(bytes) { return .bitmap(try WebP.decode(bytes, path: path)) }
            return .encoded(bytes, kind)
        }
        if bytes.starts(with: [0xFF, 0xD8, 0xFF]) { return .bitmap(try JPEG.decode(bytes, path: path)) }
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]) { return .bitmap(try PNG.decode(bytes)) }
        throw .decodingFailed(path: path, libpngMessage: "not a PNG, JPEG, SVG, GIF or WebP file (unknown signature)")
    }
}

/// The canvas size an encoded file declares in its header, without decoding it.
public enum EncodedImageHeader {
    /// A GIF's logical screen, a WebP's canvas; nil for an SVG (its intrinsic size is in
    /// points, measured by laminad) or a header too short to say.
    public static func canvasSize(_ bytes: [UInt8], kind: ImageFile.EncodedKind) -> (width: Int, height: Int)? {
        func le16(_ i: Int) -> Int { Int(bytes[i]) | Int(bytes[i + 1]) << 8 }
        switch kind {
        case .svg: return nil
        case .gif:
            guard bytes.count >= 10 else { return nil }
            return (le16(6), le16(8))
        case .webp:
            return WebP.canvasSize(bytes)
        }
    }
}
