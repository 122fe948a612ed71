/// How a client's image pixels are laid out in its shared memory (protocol op `create-image`).
public struct ImageFormat: Hashable, Sendable {
    /// The byte order of a pixel's four 8-bit channels.
    public enum PixelOrder: UInt8, Hashable, Sendable, CaseIterable, CustomStringConvertible {
        /// B, G, R, A in memory (little-endian `0xAARRGGBB`; cairo's and Wayland's ARGB32).
        case bgra = 0
        /// R, G, B, A in memory (PNG's order, and `Bitmap`'s).
        case rgba = 1
        public var description: String { self == .bgra ? "BGRA" : "RGBA" }
    }

    /// Whether the colour channels are already multiplied by alpha.
    public enum AlphaMode: UInt8, Hashable, Sendable, CaseIterable, CustomStringConvertible {
        case premultiplied = 0
        case straight = 1
        public var description: String { self == .premultiplied ? "premultiplied" : "straight" }
    }

    /// The largest width or height accepted (the renderer's texture limit is checked separately).
    public static let maximumDimension: UInt32 = 16384

    public var width: UInt32
    public var height: UInt32
    /// Bytes from one row's start to the next; at least `width * 4`.
    public var stride: UInt32
    public var order: PixelOrder
    public var alpha: AlphaMode
    /// Where row 0 starts in the memory file.
    public var offset: UInt64

    public init(width: UInt32, height: UInt32, stride: UInt32? = nil, order: PixelOrder = .rgba,
                alpha: AlphaMode = .premultiplied, offset: UInt64 = 0) {
        self.width = width
        self.height = height
        self.stride = stride ?? width &* 4
        self.order = order
        self.alpha = alpha
        self.offset = offset
    }

    /// The bytes the pixels span from `offset`: `stride × (height − 1) + width × 4`.
    public var byteSpan: UInt64 {
        height == 0 ? 0 : UInt64(stride) * UInt64(height - 1) + UInt64(width) * 4
    }

    /// What is wrong with this layout for a memory file of `fileSize` bytes, or nil.
    public func problem(fileSize: Int) -> String? {
        if width == 0 || height == 0 { return "an image needs a width and height ≥ 1, got \(width)×\(height)" }
        if width > Self.maximumDimension || height > Self.maximumDimension {
            return "\(width)×\(height) is larger than the largest image, \(Self.maximumDimension)×\(Self.maximumDimension)"
        }
        if UInt64(stride) < UInt64(width) * 4 { return "stride \(stride) is less than width × 4 = \(UInt64(width) * 4)" }
        let (end, overflow) = offset.addingReportingOverflow(byteSpan)
        if overflow || end > UInt64(fileSize) {
            return "the pixels need \(byteSpan) bytes from offset \(offset), past the end of the \(fileSize)-byte memory file"
        }
        return nil
    }
}

/// A rectangle of whole pixels, x right and y down from the top-left.
public struct PixelRect: Hashable, Sendable, CustomStringConvertible {
    public var x: UInt32
    public var y: UInt32
    public var width: UInt32
    public var height: UInt32
    public init(x: UInt32, y: UInt32, width: UInt32, height: UInt32) {
        self.x = x; self.y = y; self.width = width; self.height = height
    }
    public var description: String { "(\(x), \(y), \(width)×\(height))" }
    /// Whether it lies inside a `width × height` image and is not empty.
    public func fits(width w: UInt32, height h: UInt32) -> Bool {
        width > 0 && height > 0 && UInt64(x) + UInt64(width) <= UInt64(w) && UInt64(y) + UInt64(height) <= UInt64(h)
    }
    /// The smallest rectangle holding both.
    public func union(_ o: PixelRect) -> PixelRect {
        let x0 = min(x, o.x), y0 = min(y, o.y)
        let x1 = max(x + width, o.x + o.width), y1 = max(y + height, o.y + o.height)
        return PixelRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }
}
