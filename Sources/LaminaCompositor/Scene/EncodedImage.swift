import LaminaCore
import LaminaProtocol

/// A vector document laminad draws itself at the scale it is shown (an SVG, through
/// LaminaRaster's librsvg): no pixels until a layer shows it.
public protocol VectorDocument: AnyObject, Sendable {
    /// The intrinsic size in points.
    var size: Size { get }
    /// The document drawn at `pixelsPerPoint` (lowered so no side passes `maximumSide` pixels),
    /// premultiplied RGBA, with the scale it was drawn at; nil when it cannot be drawn.
    func rasterize(pixelsPerPoint: Double, maximumSide: Int) -> (bitmap: Bitmap, pixelsPerPoint: Double)?
}

/// What an encoded file (create-encoded-image) decoded to.
public enum DecodedImage: Sendable {
    /// An SVG document, drawn at the scale it is shown.
    case vector(any VectorDocument)
    /// A GIF or WebP: each frame the whole canvas (straight-alpha RGBA, all the same size),
    /// shown for its delay in seconds; `loopCount` plays (0: for ever).
    case frames([Bitmap], delays: [Double], loopCount: Int)
}

/// Why an encoded file was refused: said to the client as an invalid-image error.
public struct ImageDecodingFailure: Error, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// Decodes create-encoded-image's bytes (laminad sets LaminaRaster's `EncodedImageDecoder`).
/// Everything is checked before it is allocated: the file against `maximumFileBytes`, the
/// decoded frames against `maximumPixelBytes` (what the client's image budgets leave).
public protocol EncodedImageDecoding: AnyObject, Sendable {
    func decode(_ format: EncodedImageFormat, _ bytes: UnsafeRawBufferPointer, maximumFileBytes: Int,
                maximumPixelBytes: Int) throws(ImageDecodingFailure) -> DecodedImage
}

/// A client's image made from an encoded file (protocol 1.7, create-encoded-image): the file's
/// bytes (for the journal and a client's snapshot) and what they decoded to. An animated one
/// shows its current frame through the tree's `ImageSource` of the same number, which the
/// compositor moves from frame to frame on its clock (`CompositorAnimatedImages.swift`).
public final class EncodedImage: @unchecked Sendable {
    nonisolated(unsafe) private static var nextID: UInt64 = 1
    /// Unique for the life of the process (names its journal file).
    public let id: UInt64
    public let number: UInt32
    public let format: EncodedImageFormat
    public let bytes: [UInt8]
    public let content: DecodedImage
    /// The timing of an animated image's frames; nil for a vector document.
    public let timeline: AnimatedImageTimeline?
    /// When its first frame was shown, in compositor time: set when the commit that made it
    /// stands (nil until then).
    public var startTime: Double?
    /// The frame its source shows now.
    public var shownFrame = 0
    /// The tree's image source of the same number, which shows an animated image's current
    /// frame (nil for a vector document).
    public internal(set) var source: ImageSource?
    public private(set) var isDestroyed = false

    public init(number: UInt32, format: EncodedImageFormat, bytes: [UInt8], content: DecodedImage) {
        id = Self.nextID
        Self.nextID &+= 1
        self.number = number
        self.format = format
        self.bytes = bytes
        self.content = content
        if case let .frames(_, delays, loopCount) = content { timeline = AnimatedImageTimeline(delays: delays, loopCount: loopCount) } else { timeline = nil }
    }

    /// The vector document, for an SVG.
    public var vector: (any VectorDocument)? { if case .vector(let v) = content { v } else { nil } }

    /// The decoded frames (empty for a vector document).
    public var frames: [Bitmap] { if case .frames(let f, _, _) = content { f } else { [] } }

    /// Pixel bytes of the frames other than the one its image source holds (that one counts as
    /// the source's): with the source, what the image budgets count.
    public var extraBytes: Int {
        guard let first = frames.first else { return 0 }
        return (frames.count - 1) * first.width * first.height * 4
    }

    func destroy() { isDestroyed = true }
}
