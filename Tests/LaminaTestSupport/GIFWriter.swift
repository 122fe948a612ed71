/// Writes GIF files byte by byte for the tests and the fuzzer's seeds, independently of giflib: every record the
/// decoder reads (logical screen, colour tables, the NETSCAPE2.0 loop, graphic control blocks,
/// frame rectangles, interlacing) is set by hand, and the pixels are LZW-coded without
/// compression (a clear code before the code width would grow), which any decoder reads.
public struct GIFWriter {
    public typealias RGB = (UInt8, UInt8, UInt8)
    private(set) var bytes: [UInt8] = []

    /// The header and logical screen; `colors` is the global table (padded to a power of two).
    public init(width: Int, height: Int, colors: [RGB]?, loop: Int? = nil) {
        bytes = Array("GIF89a".utf8) + Self.little(width) + Self.little(height)
        if let colors {
            let bits = Self.tableBits(colors.count)
            bytes += [0x80 | UInt8(bits - 1), 0, 0] + Self.table(colors, bits: bits)
        } else {
            bytes += [0, 0, 0]
        }
        if let loop {
            bytes += [0x21, 0xFF, 11] + Array("NETSCAPE2.0".utf8) + [3, 1] + Self.little(loop) + [0]
        }
    }

    /// One frame: a graphic control block (when any of its fields is given) and an image
    /// whose `indices` are its rows top to bottom (`width × height` of them).
    public mutating func frame(x: Int = 0, y: Int = 0, width: Int, height: Int, indices: [UInt8],
                        delay centiseconds: Int? = nil, disposal: Int = 0, transparent: UInt8? = nil,
                        colors: [RGB]? = nil, interlaced: Bool = false) {
        precondition(indices.count == width * height)
        if centiseconds != nil || disposal != 0 || transparent != nil {
            bytes += [0x21, 0xF9, 4, UInt8(disposal << 2) | (transparent == nil ? 0 : 1)]
                + Self.little(centiseconds ?? 0) + [transparent ?? 0, 0]
        }
        bytes += [0x2C] + Self.little(x) + Self.little(y) + Self.little(width) + Self.little(height)
        var packed: UInt8 = interlaced ? 0x40 : 0
        var bits = 2
        if let colors {
            bits = Self.tableBits(colors.count)
            packed |= 0x80 | UInt8(bits - 1)
        }
        bytes.append(packed)
        if let colors { bytes += Self.table(colors, bits: bits) }
        var rows: [Int] = Array(0..<height)
        if interlaced {
            rows = [(0, 8), (4, 8), (2, 4), (1, 2)].flatMap { stride(from: $0.0, to: height, by: $0.1) }
        }
        let ordered = rows.flatMap { indices[($0 * width)..<($0 * width + width)] }
        // 8-bit codes whatever the table's size, so any index can be written (even past the table).
        bytes += Self.lzw(ordered, minimumCodeSize: 8)
    }

    /// The file, ending with the trailer (or cut off without it).
    public func finished(trailer: Bool = true) -> [UInt8] { trailer ? bytes + [0x3B] : bytes }

    private static func little(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }

    private static func tableBits(_ count: Int) -> Int {
        var bits = 1
        while 1 << bits < count { bits += 1 }
        return bits
    }

    private static func table(_ colors: [RGB], bits: Int) -> [UInt8] {
        (0..<(1 << bits)).flatMap { i -> [UInt8] in i < colors.count ? [colors[i].0, colors[i].1, colors[i].2] : [0, 0, 0] }
    }

    /// Literal codes only, `minimumCodeSize + 1` bits each, a clear code every few literals so
    /// the decoder's table never widens the codes; then end-of-information and sub-blocks.
    private static func lzw(_ indices: [UInt8], minimumCodeSize m: Int) -> [UInt8] {
        let clear = 1 << m, end = clear + 1, width = m + 1
        var codes: [Int] = []
        for (n, index) in indices.enumerated() {
            if n % ((1 << m) - 2) == 0 { codes.append(clear) }
            codes.append(Int(index))
        }
        codes.append(end)
        var packed: [UInt8] = [], accumulator = 0, count = 0
        for code in codes {
            accumulator |= code << count
            count += width
            while count >= 8 {
                packed.append(UInt8(accumulator & 0xFF))
                accumulator >>= 8
                count -= 8
            }
        }
        if count > 0 { packed.append(UInt8(accumulator & 0xFF)) }
        var out: [UInt8] = [UInt8(m)]
        var rest = packed[...]
        while !rest.isEmpty {
            let block = rest.prefix(255)
            out += [UInt8(block.count)] + block
            rest = rest.dropFirst(block.count)
        }
        return out + [0]
    }
}
