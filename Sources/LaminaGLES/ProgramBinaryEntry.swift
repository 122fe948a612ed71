/// One entry of the program cache (`ProgramBinaryCache`), as stored:
///
///     "LMPB" u32 version (1)
///     u32 length + bytes: identity (driver and laminad build), vertex source, fragment source
///     u32 binary format, u32 length + bytes: the driver's binary
///     u64 FNV-1a of everything before it
///
/// little-endian. Sources and identity are kept whole, so an entry is used only for exactly the
/// program and driver it was made for, whatever its file is called.
struct ProgramBinaryEntry: Equatable {
    var identity: String
    var vertex: String
    var fragment: String
    var format: UInt32
    var binary: [UInt8]

    static let magic: [UInt8] = Array("LMPB".utf8)
    static let version: UInt32 = 1
    /// The largest entry read: a program binary is tens of kilobytes.
    static let limit = 64 << 20

    /// Why bytes are not an entry.
    struct Problem: Error, CustomStringConvertible {
        var description: String
    }

    /// The entry's file name: a hash of what it depends on, in hex.
    static func name(identity: String, vertex: String, fragment: String) -> String {
        var h = FNV1a()
        for var part in [identity, vertex, fragment] {
            h.add(UInt64(part.utf8.count))
            part.withUTF8 { h.add(UnsafeRawBufferPointer($0)) }
        }
        return String(h.value, radix: 16) + ".program"
    }

    func encoded() -> [UInt8] {
        var out = Self.magic
        func u32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { out += $0 } }
        func bytes<C: Collection>(_ b: C) where C.Element == UInt8 { u32(UInt32(b.count)); out += b }
        u32(Self.version)
        bytes(identity.utf8)
        bytes(vertex.utf8)
        bytes(fragment.utf8)
        u32(format)
        bytes(binary)
        var h = FNV1a()
        out.withUnsafeBytes { h.add($0) }
        withUnsafeBytes(of: h.value.littleEndian) { out += $0 }
        return out
    }

    static func decode(_ data: [UInt8]) throws(Problem) -> ProgramBinaryEntry {
        guard data.count >= 16, Array(data[0..<4]) == magic else { throw Problem(description: "not a program cache entry") }
        var h = FNV1a()
        data.withUnsafeBytes { h.add(UnsafeRawBufferPointer(rebasing: $0[..<(data.count - 8)])) }
        let stored = data[(data.count - 8)...].reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        guard stored == h.value else { throw Problem(description: "torn or corrupt (checksum)") }
        var at = 4
        let end = data.count - 8
        func u32() throws(Problem) -> UInt32 {
            guard end - at >= 4 else { throw Problem(description: "short") }
            defer { at += 4 }
            return data[at..<at + 4].reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        }
        func bytes() throws(Problem) -> [UInt8] {
            let n = Int(try u32())
            guard end - at >= n else { throw Problem(description: "short") }
            defer { at += n }
            return Array(data[at..<at + n])
        }
        func text() throws(Problem) -> String {
            let b = try bytes()
            guard let s = String(validating: b, as: UTF8.self) else { throw Problem(description: "text that is not UTF-8") }
            return s
        }
        guard try u32() == version else { throw Problem(description: "another version") }
        let entry = ProgramBinaryEntry(identity: try text(), vertex: try text(), fragment: try text(), format: try u32(), binary: try bytes())
        guard at == end else { throw Problem(description: "bytes after the binary") }
        guard !entry.binary.isEmpty else { throw Problem(description: "an empty binary") }
        return entry
    }
}

/// FNV-1a, 64 bits: names and checksums of program cache entries (not a defence against
/// a forger, who would need to write laminad's cache folder; the entry's contents are compared
/// in full and the driver checks the binary).
struct FNV1a {
    private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325
    mutating func add(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress else { return }
        let p = base.assumingMemoryBound(to: UInt8.self)
        var v = value
        for i in 0..<bytes.count { v = (v ^ UInt64(p[i])) &* 0x100_0000_01b3 }
        value = v
    }
    mutating func add(_ v: UInt64) { withUnsafeBytes(of: v.littleEndian) { add($0) } }
}
