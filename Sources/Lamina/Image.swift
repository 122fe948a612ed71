#if canImport(Glibc)
import Glibc
#endif
import LaminaCore
import LaminaImage
import LaminaPlatform
import LaminaProtocol

/// A bitmap laminad can show as a layer's `contents` (Core Animation's `CGImage` in
/// `CALayer.contents`), held in shared memory: a sealed memory file the client writes and
/// laminad maps read-only, so pixels are never copied through the socket.
///
/// An image belongs to the connection it was made for. It is created in laminad with the next
/// commit; `update(rect:pixels:)` rewrites part of it and laminad uploads only that part; it is
/// destroyed in laminad when the last reference goes (or with `destroy()`). A layer still
/// naming a destroyed image shows no contents.
///
/// ```swift
/// let photo = try Image(contentsOfFile: "photo.jpg", connection: connection)
/// layer.contents = photo
/// layer.contentsGravity = .resizeAspect
/// ```
@MainActor
public final class Image {
    public let width: Int
    public let height: Int
    /// The channel order and alpha of the pixels in memory.
    public let order: ImageFormat.PixelOrder
    public let alpha: ImageFormat.AlphaMode
    /// The number laminad knows the image by, on its connection (1 and up).
    public let number: UInt32
    weak var connection: Connection?
    let memory: SharedMemoryFile
    public private(set) var isDestroyed = false

    /// An image of `width × height` pixels from `pixels`: rows top to bottom, 4 bytes a pixel
    /// in `order`, `width × height × 4` bytes in all.
    public init(width: Int, height: Int, pixels: [UInt8], order: ImageFormat.PixelOrder = .rgba,
                alpha: ImageFormat.AlphaMode = .premultiplied, connection: Connection) throws {
        guard width > 0, height > 0, width <= Int(ImageFormat.maximumDimension), height <= Int(ImageFormat.maximumDimension) else {
            throw LaminaError.invalidArgument("an image needs a width and height from 1 to \(ImageFormat.maximumDimension), got \(width)×\(height)")
        }
        guard pixels.count == width * height * 4 else {
            throw LaminaError.invalidArgument("a \(width)×\(height) image takes \(width * height * 4) bytes of pixels, got \(pixels.count)")
        }
        self.width = width
        self.height = height
        self.order = order
        self.alpha = alpha
        self.connection = connection
        let file = try SharedMemoryFile(name: "lamina-image", byteCount: pixels.count)
        pixels.withUnsafeBytes { file.base.copyMemory(from: $0.baseAddress!, byteCount: pixels.count) }
        memory = file
        number = connection.registerImage()
        connection.imageCreated(self)
        connection.noteImageOperation(.createImage(image: number, format), descriptor: memory.fd.rawValue, keeping: memory)
    }

    /// A `Bitmap` (RGBA; straight alpha, as PNG and JPEG decode, unless said otherwise).
    public convenience init(bitmap: Bitmap, alpha: ImageFormat.AlphaMode = .straight, connection: Connection) throws {
        try self.init(width: bitmap.width, height: bitmap.height, pixels: bitmap.bytes, order: .rgba, alpha: alpha, connection: connection)
    }

    /// A PNG, JPEG, WebP or GIF file, decoded here (libpng, libjpeg, libwebp, giflib); an
    /// animated WebP or GIF gives its first frame.
    public convenience init(contentsOfFile path: String, connection: Connection) throws {
        try self.init(bitmap: try ImageFile.read(path), connection: connection)
    }

    /// The layout laminad is told.
    public var format: ImageFormat {
        ImageFormat(width: UInt32(width), height: UInt32(height), stride: UInt32(width * 4), order: order, alpha: alpha)
    }

    /// Rewrites `rect` with `pixels` (rows of `rect.width × 4` bytes, in the image's order and
    /// alpha); laminad re-uploads only that rectangle, in the frame of the next commit.
    public func update(rect: PixelRect, pixels: [UInt8]) throws {
        guard !isDestroyed else { throw LaminaError.invalidArgument("image \(number) was destroyed") }
        guard rect.fits(width: UInt32(width), height: UInt32(height)) else {
            throw LaminaError.invalidArgument("update rectangle \(rect) is empty or reaches outside the \(width)×\(height) image")
        }
        let rowBytes = Int(rect.width) * 4
        guard pixels.count == rowBytes * Int(rect.height) else {
            throw LaminaError.invalidArgument("a \(rect.width)×\(rect.height) update takes \(rowBytes * Int(rect.height)) bytes, got \(pixels.count)")
        }
        pixels.withUnsafeBytes { p in
            for row in 0..<Int(rect.height) {
                let to = memory.base + ((Int(rect.y) + row) * width + Int(rect.x)) * 4
                to.copyMemory(from: p.baseAddress! + row * rowBytes, byteCount: rowBytes)
            }
        }
        connection?.noteImageOperation(.updateImage(image: number, rect))
    }

    /// The image was used up in laminad (it became a tile): nothing more is sent for it.
    func markUsedUp() { isDestroyed = true }

    /// Destroys the image in laminad now (with the next commit) rather than when it is released.
    public func destroy() {
        guard !isDestroyed else { return }
        isDestroyed = true
        connection?.noteImageDestroyed(number)
    }

    isolated deinit {
        if !isDestroyed { connection?.noteImageDestroyed(number) }
    }
}

extension Layer {
    /// The image the layer shows (`CALayer.contents`), placed by `contentsGravity`,
    /// `contentsRect`, `contentsCenter` and `contentsScale`. The layer keeps the image alive.
    public var contents: Image? {
        get { contentsImage }
        set {
            contentsImage = newValue
            contentsVideo = nil
            setValue(.image(newValue?.number ?? 0), forKey: .contents)
        }
    }
}
