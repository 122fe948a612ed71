/// An 8-bit RGBA image, rows top to bottom, 4 bytes a pixel, no padding.
///
/// Screenshots are `Bitmap`s; so are decoded PNG files in tests.
public struct Bitmap: Hashable, Sendable {
    public var width: Int
    public var height: Int
    /// `width * height * 4` bytes: R, G, B, A for each pixel, row 0 at the top.
    public var bytes: [UInt8]

    /// A bitmap of the given size filled with one colour (8-bit components).
    public init(width: Int, height: Int, fill: (UInt8, UInt8, UInt8, UInt8) = (0, 0, 0, 0)) {
        self.width = width
        self.height = height
        var b = [UInt8](repeating: 0, count: width * height * 4)
        if fill != (0, 0, 0, 0) {
            for i in stride(from: 0, to: b.count, by: 4) { b[i] = fill.0; b[i + 1] = fill.1; b[i + 2] = fill.2; b[i + 3] = fill.3 }
        }
        bytes = b
    }

    /// Wraps existing bytes; returns nil unless there are exactly `width * height * 4`.
    public init?(width: Int, height: Int, bytes: [UInt8]) {
        guard width >= 0, height >= 0, bytes.count == width * height * 4 else { return nil }
        self.width = width
        self.height = height
        self.bytes = bytes
    }

    /// The pixel at (x, y), x rightwards and y downwards from the top-left.
    public func pixel(x: Int, y: Int) -> (r: UInt8, g: UInt8, b: UInt8, a: UInt8) {
        let i = (y * width + x) * 4
        return (bytes[i], bytes[i + 1], bytes[i + 2], bytes[i + 3])
    }

    /// How two bitmaps of the same size differ: the largest per-channel difference and
    /// how many pixels differ by more than `tolerance` in any channel.
    /// Returns nil when the sizes differ.
    public func difference(from other: Bitmap, tolerance: Int) -> (maxChannelDelta: Int, pixelsOverTolerance: Int)? {
        guard width == other.width, height == other.height else { return nil }
        var maxDelta = 0, over = 0
        bytes.withUnsafeBufferPointer { a in
            other.bytes.withUnsafeBufferPointer { b in
                var i = 0
                while i < a.count {
                    var pixelMax = 0
                    for c in 0..<4 {
                        let d = abs(Int(a[i + c]) - Int(b[i + c]))
                        if d > pixelMax { pixelMax = d }
                    }
                    if pixelMax > maxDelta { maxDelta = pixelMax }
                    if pixelMax > tolerance { over += 1 }
                    i += 4
                }
            }
        }
        return (maxDelta, over)
    }
}
