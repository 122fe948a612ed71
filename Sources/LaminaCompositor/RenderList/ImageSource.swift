import LaminaCore

/// Read-only pixel memory that outlives the message that brought it: a client's memory file
/// mapped by the platform (`ReadOnlyMapping` in LaminaPlatform), or bytes in a test.
public protocol PixelMemory: AnyObject, Sendable {
    /// The first byte of the memory.
    var base: UnsafeRawPointer { get }
    /// Its length in bytes (for a memory file: its size by fstat, sealed against shrinking).
    var byteCount: Int { get }
}

/// Pixels in a heap array, as `PixelMemory` (tests; clients of the compositor without sockets).
public final class HeapPixelMemory: PixelMemory, @unchecked Sendable {
    private let storage: UnsafeMutableRawPointer
    public let byteCount: Int
    public var base: UnsafeRawPointer { UnsafeRawPointer(storage) }
    public init(_ bytes: [UInt8]) {
        byteCount = bytes.count
        storage = UnsafeMutableRawPointer.allocate(byteCount: max(1, bytes.count), alignment: 16)
        bytes.withUnsafeBytes { storage.copyMemory(from: $0.baseAddress!, byteCount: bytes.count) }
    }
    /// Overwrites bytes (a test's stand-in for a client writing its shared memory).
    public func write(_ bytes: [UInt8], at offset: Int) {
        precondition(offset >= 0 && offset + bytes.count <= byteCount)
        bytes.withUnsafeBytes { (storage + offset).copyMemory(from: $0.baseAddress!, byteCount: bytes.count) }
    }
    deinit { storage.deallocate() }
}

/// A descriptor that came with a frame, as the platform handed it over: mapped, or the reason
/// it could not be (which the commit that takes it reports).
public enum MemoryAttachment: Sendable {
    case memory(any PixelMemory)
    case unusable(String)
    /// An app's buffer in dma-buf memory, made an image by laminad's own Wayland session
    /// (never from a client's socket, whose descriptors are memory files).
    case dmabuf(DMABufPicture)
}

/// Pixels the renderer can draw as a layer's contents, with a generation that counts changes.
///
/// The one source of textures for the renderer: a client's shared-memory image (protocol ops
/// create-image, update-image, destroy-image), or a bitmap the server made itself (a shape or
/// text layer's CPU raster) registered in an `ImageStore`. The renderer's texture cache keys on
/// `id`, uploads the whole image the first time, then only the regions changed since the
/// generation it holds (`changedRegion(since:)`), and frees the texture once the source is
/// destroyed and no layer draws it.
///
/// Single-threaded like the compositor; `@unchecked Sendable` so trees holding it stay Sendable.
public final class ImageSource: @unchecked Sendable {
    /// Whose texture bytes the image counts towards.
    public enum Owner: Hashable, Sendable, CustomStringConvertible {
        /// A client session: `ModelTree.Entry.serial`.
        case session(EntrySerial)
        /// The server itself (rasters of shape and text layers).
        case server
        public var description: String {
            switch self {
            case .session(let s): "session \(s.rawValue)"
            case .server: "server"
            }
        }
    }

    private enum Storage {
        case memory(any PixelMemory, ImageFormat)
        case bitmap(Bitmap, ImageFormat.AlphaMode)
        /// A video picture in dma-buf memory: a renderer imports it (zero-copy) or copies it.
        case dmabuf(DMABufPicture)
        /// A video picture as planar YUV: a renderer converts it (in a shader) or takes `rgba()`.
        case planar(PlanarPicture)
    }

    nonisolated(unsafe) private static var nextID: UInt64 = 1

    /// Unique for the life of the process: the texture cache's key.
    public let id: UInt64
    public let owner: Owner
    /// The client's image number (0 for server images).
    public let number: UInt32
    public let width: Int
    public let height: Int
    /// Starts at 1; every change adds 1.
    public private(set) var generation: UInt64 = 1
    /// Set when the client destroyed the image, or its session ended, or a server source
    /// unregistered it: the renderer frees its texture.
    public private(set) var isDestroyed = false
    private var storage: Storage
    /// The region changed at each generation after the first, oldest first; at most 16 kept.
    private var changes: [(generation: UInt64, rect: PixelRect)] = []

    /// A client image over shared memory; `format` must have been checked against `memory`.
    public init(owner: Owner, number: UInt32, memory: any PixelMemory, format: ImageFormat) {
        precondition(format.problem(fileSize: memory.byteCount) == nil, "unchecked image layout")
        id = Self.takeID()
        self.owner = owner
        self.number = number
        width = Int(format.width)
        height = Int(format.height)
        storage = .memory(memory, format)
        pixelsReadOpaque = Self.alphaIsOne(memory, format, PixelRect(x: 0, y: 0, width: format.width, height: format.height))
    }

    /// A server-side bitmap (RGBA, `alpha` as declared).
    public init(owner: Owner = .server, number: UInt32 = 0, bitmap: Bitmap, alpha: ImageFormat.AlphaMode = .premultiplied) {
        id = Self.takeID()
        self.owner = owner
        self.number = number
        width = bitmap.width
        height = bitmap.height
        storage = .bitmap(bitmap, alpha)
    }

    /// A video's picture (in system memory as RGBA or planar YUV, or in dma-buf memory), marked
    /// as a video's and opaque where the frame is.
    public init(owner: Owner, number: UInt32, frame: VideoFrame) {
        id = Self.takeID()
        self.owner = owner
        self.number = number
        width = frame.width
        height = frame.height
        storage = Self.storage(of: frame)
        isVideo = true
        pixelsAreOpaque = frame.isOpaque
    }

    /// An app's buffer in dma-buf memory (`MemoryAttachment.dmabuf`), opaque where its format
    /// has no alpha.
    public init(owner: Owner, number: UInt32, dmabuf: DMABufPicture) {
        id = Self.takeID()
        self.owner = owner
        self.number = number
        width = dmabuf.width
        height = dmabuf.height
        storage = .dmabuf(dmabuf)
        pixelsAreOpaque = !dmabuf.hasAlpha
    }

    /// Where a video frame's picture is.
    private static func storage(of frame: VideoFrame) -> Storage {
        if let p = frame.dmabuf { return .dmabuf(p) }
        if let p = frame.planar { return .planar(p) }
        return .bitmap(frame.bitmap, .premultiplied)
    }

    /// The frames of a video (`VideoSurface`).
    public var isVideo = false
    /// What the overlay planner weighs for a plane: a video's frames (in dma-buf memory or not:
    /// the planner says why not) or an app's buffer in dma-buf memory.
    public var isScanoutCandidate: Bool { isVideo || dmabuf != nil }
    /// Every pixel's alpha is 1 (a video frame without alpha, an XRGB app buffer): drawn at
    /// full opacity, it needs no blending.
    public var pixelsAreOpaque = false
    /// A client's picture whose alpha was read as 255 throughout when it was made and in every
    /// rectangle it changed since.
    public private(set) var pixelsReadOpaque = false
    /// Every pixel is opaque, by the picture's kind (`pixelsAreOpaque`) or as read
    /// (`pixelsReadOpaque`): drawn at full opacity it needs no blending, hides what lies below
    /// (`Occlusion`) and casts its rectangle's shadow (`appendShadow`).
    public var isOpaqueThroughout: Bool { pixelsAreOpaque || pixelsReadOpaque }

    /// The picture in dma-buf memory, for a source that holds one.
    public var dmabuf: DMABufPicture? {
        if case .dmabuf(let p) = storage { return p }
        return nil
    }

    /// The picture as planar YUV, for a source that holds one.
    public var planar: PlanarPicture? {
        if case .planar(let p) = storage { return p }
        return nil
    }

    /// Shows another video picture of the same size, in system memory or in dma-buf memory: a
    /// new generation, all of it changed.
    public func replace(with frame: VideoFrame) {
        precondition(frame.width == width && frame.height == height, "replace needs a picture of the same size")
        storage = Self.storage(of: frame)
        pixelsAreOpaque = frame.isOpaque
        markChanged(PixelRect(x: 0, y: 0, width: UInt32(width), height: UInt32(height)))
    }

    /// Whether every pixel of `rect` (clamped to the picture) in client memory has alpha 255:
    /// both pixel orders keep alpha in a pixel's fourth byte. Reads the rows in place (the
    /// memory's size was checked against the layout when the image was made).
    static func alphaIsOne(_ memory: any PixelMemory, _ format: ImageFormat, _ rect: PixelRect) -> Bool {
        let x0 = min(Int(rect.x), Int(format.width)), y0 = min(Int(rect.y), Int(format.height))
        let x1 = min(x0 + Int(rect.width), Int(format.width)), y1 = min(y0 + Int(rect.height), Int(format.height))
        guard x1 > x0, y1 > y0 else { return true }
        let stride = Int(format.stride), first = memory.base + Int(format.offset)
        for row in y0..<y1 {
            let pixels = UnsafeRawBufferPointer(start: first + row * stride + x0 * 4, count: (x1 - x0) * 4)
            if !PackedPixels.allOpaque(pixels) { return false }
        }
        return true
    }

    private static func takeID() -> UInt64 {
        let i = nextID
        nextID += 1
        return i
    }

    /// Bytes one full-size copy of the pixels takes (4 a pixel).
    public var byteCount: Int { width * height * 4 }

    /// The memory's pixels in `rect` changed: a new generation.
    public func markChanged(_ rect: PixelRect) {
        // A client's picture stays opaque while every rectangle it changes is (what it did not
        // name is as it was: the protocol's promise). Only client memory is ever read opaque.
        if pixelsReadOpaque, case let .memory(memory, format) = storage {
            pixelsReadOpaque = Self.alphaIsOne(memory, format, rect)
        }
        generation += 1
        changes.append((generation, rect))
        if changes.count > 16 { changes.removeFirst(changes.count - 16) }
    }

    /// Replaces a server bitmap's pixels (same size; `rect` nil: all of it changed).
    public func replace(_ bitmap: Bitmap, changed rect: PixelRect? = nil) {
        guard case .bitmap(_, let alpha) = storage, bitmap.width == width, bitmap.height == height else {
            preconditionFailure("replace needs a bitmap source of the same size")
        }
        storage = .bitmap(bitmap, alpha)
        markChanged(rect ?? PixelRect(x: 0, y: 0, width: UInt32(width), height: UInt32(height)))
    }

    /// The image is gone; its texture goes once no layer draws it.
    public func destroy() { isDestroyed = true }

    /// What changed after `generation`: nil when nothing did, the whole image when the log does
    /// not reach back that far.
    public func changedRegion(since old: UInt64) -> PixelRect? {
        guard old < generation else { return nil }
        let all = PixelRect(x: 0, y: 0, width: UInt32(width), height: UInt32(height))
        guard let first = changes.first, first.generation <= old + 1 else { return all }
        var region: PixelRect?
        for c in changes where c.generation > old { region = region.map { $0.union(c.rect) } ?? c.rect }
        return region ?? all
    }

    /// Calls `body` with the pixels of `rect` as premultiplied RGBA rows, and the distance
    /// between rows in pixels. Memory already in that layout is passed in place; anything else
    /// is converted into `scratch` (the only per-pixel work on upload).
    public func withPremultipliedRGBA<R>(_ rect: PixelRect, scratch: inout [UInt8],
                                         _ body: (UnsafeRawPointer, _ rowLength: Int) -> R) -> R {
        let x = Int(rect.x), y = Int(rect.y), w = Int(rect.width), h = Int(rect.height)
        let source: UnsafeRawPointer, stride: Int, order: ImageFormat.PixelOrder, alpha: ImageFormat.AlphaMode
        switch storage {
        case let .memory(memory, format):
            stride = Int(format.stride)
            source = memory.base + Int(format.offset) + y * stride + x * 4
            order = format.order
            alpha = format.alpha
            if order == .rgba, alpha == .premultiplied, stride % 4 == 0 { return body(source, stride / 4) }
        case let .dmabuf(picture):
            // The renderer could not import it: the decoder's buffer is mapped and copied.
            let bitmap = picture.copy() ?? Bitmap(width: width, height: height)
            return bitmap.bytes.withUnsafeBytes { p in body(p.baseAddress! + (y * width + x) * 4, width) }
        case let .planar(picture):
            // A renderer without the conversion shader: converted on the CPU.
            let bitmap = picture.rgba()
            return bitmap.bytes.withUnsafeBytes { p in body(p.baseAddress! + (y * width + x) * 4, width) }
        case let .bitmap(bitmap, a):
            return bitmap.bytes.withUnsafeBytes { p in
                if a == .premultiplied { return body(p.baseAddress! + (y * width + x) * 4, width) }
                var s = scratch
                Self.convert(p.baseAddress! + (y * width + x) * 4, stride: width * 4, width: w, height: h,
                             order: .rgba, alpha: a, into: &s)
                defer { scratch = s }
                return s.withUnsafeBytes { body($0.baseAddress!, w) }
            }
        }
        Self.convert(source, stride: stride, width: w, height: h, order: order, alpha: alpha, into: &scratch)
        return scratch.withUnsafeBytes { body($0.baseAddress!, w) }
    }

    private static func convert(_ source: UnsafeRawPointer, stride: Int, width w: Int, height h: Int,
                                order: ImageFormat.PixelOrder, alpha: ImageFormat.AlphaMode, into out: inout [UInt8]) {
        if out.count < w * h * 4 { out = [UInt8](repeating: 0, count: w * h * 4) }
        let (ri, bi) = order == .rgba ? (0, 2) : (2, 0)
        out.withUnsafeMutableBytes { o in
            for row in 0..<h {
                let s = source + row * stride
                var d = row * w * 4
                for col in 0..<w {
                    let p = s + col * 4
                    let r = p.load(fromByteOffset: ri, as: UInt8.self), g = p.load(fromByteOffset: 1, as: UInt8.self)
                    let b = p.load(fromByteOffset: bi, as: UInt8.self), a = p.load(fromByteOffset: 3, as: UInt8.self)
                    if alpha == .straight && a != 255 {
                        let a32 = UInt32(a)
                        o[d] = UInt8((UInt32(r) * a32 + 127) / 255)
                        o[d + 1] = UInt8((UInt32(g) * a32 + 127) / 255)
                        o[d + 2] = UInt8((UInt32(b) * a32 + 127) / 255)
                    } else {
                        o[d] = r; o[d + 1] = g; o[d + 2] = b
                    }
                    o[d + 3] = a
                    d += 4
                }
            }
        }
    }
}

/// Server-side images that are not a client's: the rasters of shape and text layers (and
/// anything else the server draws on the CPU). A producer registers a `Bitmap` under a key of
/// its own and gets an `ImageSource` it can put in a `DrawContents`; `update` replaces the
/// pixels with a new generation (the renderer re-uploads), `remove` lets the texture go.
public final class ImageStore: @unchecked Sendable {
    private var sources: [AnyHashable: ImageSource] = [:]
    public init() {}

    /// The source under `key`, if one is registered.
    public subscript(key: AnyHashable) -> ImageSource? { sources[key] }

    /// Registers `bitmap` under `key`, replacing (and destroying) any source there of another
    /// size; a source of the same size gets the pixels as a new generation.
    @discardableResult
    public func register(_ key: AnyHashable, bitmap: Bitmap, alpha: ImageFormat.AlphaMode = .premultiplied) -> ImageSource {
        if let s = sources[key], s.width == bitmap.width, s.height == bitmap.height {
            s.replace(bitmap)
            return s
        }
        sources[key]?.destroy()
        let s = ImageSource(owner: .server, bitmap: bitmap, alpha: alpha)
        sources[key] = s
        return s
    }

    /// Drops the source under `key`; the renderer frees its texture.
    public func remove(_ key: AnyHashable) { sources.removeValue(forKey: key)?.destroy() }

    /// How many sources are registered.
    public var count: Int { sources.count }
}
