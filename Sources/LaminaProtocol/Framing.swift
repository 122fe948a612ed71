/// The frame around every message: a u32 body length, a u16 message type and a u16 that must be
/// zero, then the body (docs/protocol.md, "Frames").
public enum Frame {
    public static let headerSize = 8

    /// Starts a frame whose length is patched in by `end`.
    static func begin(type: UInt16, capacity: Int = 64) -> ByteWriter {
        var w = ByteWriter(capacity: capacity + headerSize)
        w.u32(0)
        w.u16(type)
        w.u16(0)
        return w
    }

    static func end(_ w: ByteWriter) -> [UInt8] {
        var w = w
        w.patchU32(UInt32(w.bytes.count - headerSize), at: 0)
        return w.bytes
    }
}

/// Why a byte stream cannot be split into frames. After one of these the stream cannot be
/// trusted, so the connection is closed.
public enum FrameError: Error, Equatable, Sendable, CustomStringConvertible {
    case tooLarge(length: Int, limit: Int)
    case reservedBitsSet(UInt16)

    public var description: String {
        switch self {
        case let .tooLarge(length, limit): "frame body of \(length) bytes is over the limit of \(limit) bytes"
        case let .reservedBitsSet(v): "frame header's reserved field must be 0, got 0x\(String(v, radix: 16))"
        }
    }
}

/// Splits a byte stream into frames, however the bytes arrive.
///
/// Bytes are appended as they are read from the socket; `next()` returns whole frames. A length
/// over `limit` is refused before any body byte is buffered.
public struct FrameDecoder: Sendable {
    /// The largest frame body accepted; laminad keeps it small until a client has said hello.
    public var limit: Int
    private var buffer: [UInt8] = []
    private var start = 0

    public init(limit: Int) { self.limit = limit }

    /// Bytes held that are not yet a whole frame.
    public var bufferedCount: Int { buffer.count - start }

    public mutating func append(_ bytes: UnsafeRawBufferPointer) {
        compactIfNeeded()
        buffer.append(contentsOf: bytes)
    }
    public mutating func append(_ bytes: [UInt8]) {
        compactIfNeeded()
        buffer.append(contentsOf: bytes)
    }

    /// Whether `next()` would return a frame or throw (a whole frame, or a header it refuses).
    public var hasWholeFrame: Bool {
        guard buffer.count - start >= Frame.headerSize else { return false }
        let b = buffer[start..<(start + Frame.headerSize)]
        let length = Int(b[b.startIndex]) | Int(b[b.startIndex + 1]) << 8 | Int(b[b.startIndex + 2]) << 16 | Int(b[b.startIndex + 3]) << 24
        let reserved = Int(b[b.startIndex + 6]) | Int(b[b.startIndex + 7]) << 8
        return reserved != 0 || length > limit || buffer.count - start - Frame.headerSize >= length
    }

    /// The next whole frame, or nil when more bytes are needed.
    public mutating func next() throws(FrameError) -> (type: UInt16, body: ArraySlice<UInt8>)? {
        guard buffer.count - start >= Frame.headerSize else { return nil }
        var r = ByteReader(buffer[start..<(start + Frame.headerSize)])
        // These reads cannot fail: 8 bytes are there.
        let length = Int((try? r.u32("")) ?? 0)
        let type = (try? r.u16("")) ?? 0
        let reserved = (try? r.u16("")) ?? 0
        guard reserved == 0 else { throw .reservedBitsSet(reserved) }
        guard length <= limit else { throw .tooLarge(length: length, limit: limit) }
        guard buffer.count - start - Frame.headerSize >= length else { return nil }
        let bodyStart = start + Frame.headerSize
        let body = buffer[bodyStart..<(bodyStart + length)]
        start = bodyStart + length
        return (type, body)
    }

    private mutating func compactIfNeeded() {
        if start > 0 && (start == buffer.count || start > 65536) {
            buffer.removeSubrange(0..<start)
            start = 0
        }
    }
}
