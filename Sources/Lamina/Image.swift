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
    /// The pixels' memory file (nil for an app surface, which has none).
    let memory: SharedMemoryFile!
    public private(set) var isDestroyed = false
    /// laminad's number for the app window this stands for (`Image.appSurface(_:)`); 0 for an image.
    public let appSurface: UInt32
    /// For an image made from an encoded file (`init(encoded:format:connection:)`): the file's
    /// format and length, which laminad decodes (and, for an SVG, draws at the scale it is shown).
    public let encoding: (format: EncodedImageFormat, byteCount: Int)?

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
        encoding = nil
        appSurface = 0
        number = connection.registerImage()
        connection.imageCreated(self)
        connection.noteImageOperation(createOperation, descriptor: memory.fd.rawValue, keeping: memory)
    }

    /// An image laminad makes from an encoded file (protocol 1.7): an SVG document, which it
    /// draws at the scale each layer shows it (sharp under any transform, like a drawing), or
    /// a GIF or WebP, animated or still, whose frames it plays on its clock from the commit that
    /// makes the image (loop count, frame delays, disposal). The bytes go in a memory file; the
    /// commit is refused if laminad cannot decode them (an `ErrorMessage` naming why).
    ///
    /// `width` and `height` are the file's canvas in pixels for a GIF or WebP (read from its
    /// header here), and 0 for an SVG, whose intrinsic size in points laminad measures.
    public init(encoded bytes: [UInt8], format: EncodedImageFormat, connection: Connection) throws {
        guard !bytes.isEmpty else { throw LaminaError.invalidArgument("an encoded image needs its file's bytes; got none") }
        let size = EncodedImageHeader.canvasSize(bytes, kind: format.kind)
        width = size?.width ?? 0
        height = size?.height ?? 0
        order = .rgba
        alpha = .straight
        self.connection = connection
        let file = try SharedMemoryFile(name: "lamina-image", byteCount: bytes.count)
        bytes.withUnsafeBytes { file.base.copyMemory(from: $0.baseAddress!, byteCount: bytes.count) }
        memory = file
        encoding = (format, bytes.count)
        appSurface = 0
        number = connection.registerImage()
        connection.imageCreated(self)
        connection.noteImageOperation(createOperation, descriptor: memory.fd.rawValue, keeping: memory)
    }

    /// An app window laminad hosts (a Wayland app), as contents: `layer.contents =
    /// .appSurface(id)` shows window `id` (from `Connection.onAppSurface`) in the layer, as Core
    /// Animation shows an `IOSurface`. Only for a connection that manages apps
    /// (`Connection.manageApps()`). Nothing is made in laminad: the window is its.
    public static func appSurface(_ id: UInt32) -> Image { Image(appSurface: id) }

    private init(appSurface id: UInt32) {
        width = 0
        height = 0
        order = .bgra
        alpha = .premultiplied
        memory = nil
        encoding = nil
        appSurface = id
        number = 0
        isDestroyed = true
    }

    /// An SVG document (its bytes), drawn by laminad at the scale it is shown.
    public convenience init(svg bytes: [UInt8], connection: Connection) throws {
        try self.init(encoded: bytes, format: .svg, connection: connection)
    }

    /// The operation that makes the image in laminad (again, after a reconnection).
    var createOperation: Operation {
        if let encoding { .createEncodedImage(image: number, encoding.format, byteCount: UInt64(encoding.byteCount)) }
        else { .createImage(image: number, format) }
    }

    /// A `Bitmap` (RGBA; straight alpha, as PNG and JPEG decode, unless said otherwise).
    public convenience init(bitmap: Bitmap, alpha: ImageFormat.AlphaMode = .straight, connection: Connection) throws {
        try self.init(width: bitmap.width, height: bitmap.height, pixels: bitmap.bytes, order: .rgba, alpha: alpha, connection: connection)
    }

    /// An image file: PNG and JPEG decoded here (libpng, libjpeg); SVG and GIF sent as they are,
    /// for laminad to draw and play (`init(encoded:format:connection:)`). The kind is told by
    /// the file's first bytes.
    public convenience init(contentsOfFile path: String, connection: Connection) throws {
        let file = try ImageFile.load(path)
        switch file {
        case .bitmap(let b): try self.init(bitmap: b, connection: connection)
        case let .encoded(bytes, kind):
            guard let format = EncodedImageFormat(kind) else { throw LaminaError.invalidArgument("\(path): not an image format laminad takes") }
            try self.init(encoded: bytes, format: format, connection: connection)
        }
    }

    /// The layout laminad is told.
    public var format: ImageFormat {
        ImageFormat(width: UInt32(width), height: UInt32(height), stride: UInt32(width * 4), order: order, alpha: alpha)
    }

    /// Rewrites `rect` with `pixels` (rows of `rect.width × 4` bytes, in the image's order and
    /// alpha); laminad re-uploads only that rectangle, in the frame of the next commit.
    public func update(rect: PixelRect, pixels: [UInt8]) throws {
        guard appSurface == 0 else { throw LaminaError.invalidArgument("app surface \(appSurface) is the app's to draw") }
        guard !isDestroyed else { throw LaminaError.invalidArgument("image \(number) was destroyed") }
        guard encoding == nil else { throw LaminaError.invalidArgument("image \(number) was made from an encoded file: laminad draws its pixels") }
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

extension EncodedImageFormat {
    var kind: ImageFile.EncodedKind {
        switch self {
        case .svg: .svg
        case .gif: .gif
        case .webp: .webp
        }
    }

    /// The format laminad decodes for a file kind `ImageFile` tells by signature.
    init?(_ kind: ImageFile.EncodedKind) {
        switch kind {
        case .svg: self = .svg
        case .gif: self = .gif
        case .webp: self = .webp
        }
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
            if let app = newValue?.appSurface, app != 0 {
                setValue(.image(0), forKey: .contents)
                setValue(.number(Double(app)), forKey: .appSurface)
                return
            }
            if model.appSurface != 0 { setValue(.number(0), forKey: .appSurface) }
            setValue(.image(newValue?.number ?? 0), forKey: .contents)
        }
    }
}
