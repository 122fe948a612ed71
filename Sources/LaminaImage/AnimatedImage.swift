import LaminaCore

/// An animated GIF or WebP decoded into whole frames: each frame is the full canvas as it
/// shows after compositing that frame (disposal of the frames before it applied), in straight
/// (non-premultiplied) alpha RGBA, so a player only swaps bitmaps on its clock
/// (`AnimatedImageTimeline` in LaminaCore says which frame shows when).
public struct AnimatedImage: Equatable, Sendable {
    /// The canvas (GIF's logical screen, WebP's VP8X canvas), in pixels.
    public var width: Int
    public var height: Int
    /// One bitmap a frame, each `width × height`.
    public var frames: [Bitmap]
    /// How long each frame shows, in seconds, after the browsers' rule for tiny delays
    /// (`displayedDelay(milliseconds:)`).
    public var delays: [Double]
    /// How many times the whole sequence plays; 0 plays forever.
    public var loopCount: Int

    public init(width: Int, height: Int, frames: [Bitmap], delays: [Double], loopCount: Int) {
        self.width = width
        self.height = height
        self.frames = frames
        self.delays = delays
        self.loopCount = loopCount
    }

    /// The longest canvas side decoded (GIF allows 65535, WebP 16384).
    public static let maximumSide = 16384
    /// The most frames decoded.
    public static let maximumFrameCount = 1000

    /// Decodes a GIF ("GIF87a"/"GIF89a") or a WebP ("RIFF....WEBP", still or animated) by its
    /// signature. A still image decodes as one frame. `maximumBytes` bounds the decoded frames
    /// together (`width × height × 4 × frames`); a file over it, over `maximumSide` or over
    /// `maximumFrameCount` is refused before its frames are allocated, naming the number and
    /// its limit. Malformed and truncated files are refused with the decoder's reason.
    public static func decode(_ bytes: [UInt8], maximumBytes: Int, path: String? = nil) throws(PNGError) -> AnimatedImage {
        try decode(bytes, limits: DecodingLimits(maximumBytes: maximumBytes), path: path)
    }

    static func decode(_ bytes: [UInt8], limits: DecodingLimits, path: String?) throws(PNGError) -> AnimatedImage {
        if GIF.hasSignature(bytes) { return try GIF.decode(bytes, limits: limits, path: path) }
        if WebP.hasSignature(bytes) { return try WebPAnimation.decode(bytes, limits: limits, path: path) }
        throw .undecodable(format: "animated image", path: path, reason: "neither a GIF nor a WebP file (unknown signature)")
    }

    /// The delay a frame shows for, in seconds, from the delay its file gives in milliseconds.
    /// As browsers do (Chromium and Firefox alike), a delay of 10 ms or less (GIF's 0 and 1
    /// centiseconds, which many files use to mean "as fast as possible") shows for 100 ms.
    public static func displayedDelay(milliseconds: Int) -> Double {
        milliseconds <= 10 ? 0.1 : Double(milliseconds) / 1000
    }
}

/// What a decoder may allocate, checked before it allocates: the canvas side, the frame count
/// and the decoded frames' bytes together.
struct DecodingLimits {
    var maximumBytes: Int
    /// Decoding stops (without an error) after this many frames: 1 when a still image is wanted.
    var framesWanted = Int.max
    var maximumSide = AnimatedImage.maximumSide

    /// Refuses a canvas with a side of zero or over `maximumSide`.
    func checkCanvas(width: Int, height: Int, format: String, path: String?) throws(PNGError) {
        guard width > 0, height > 0 else {
            throw .undecodable(format: format, path: path, reason: "its canvas is \(width)×\(height) pixels (a side of 0)")
        }
        guard width <= maximumSide, height <= maximumSide else {
            throw .undecodable(format: format, path: path,
                               reason: "its canvas is \(width)×\(height) pixels, over the limit of \(maximumSide) a side")
        }
    }

    /// Refuses a `count`-th frame (counting from 1) over the frame limit or the byte budget.
    func checkFrame(_ count: Int, width: Int, height: Int, format: String, path: String?) throws(PNGError) {
        guard count <= AnimatedImage.maximumFrameCount else {
            throw .undecodable(format: format, path: path,
                               reason: "it has \(count) frames or more, over the limit of \(AnimatedImage.maximumFrameCount)")
        }
        let (bytes, overflow) = (width * height * 4).multipliedReportingOverflow(by: count)
        guard !overflow, bytes <= maximumBytes else {
            throw .undecodable(format: format, path: path,
                               reason: "\(count) frame\(count == 1 ? "" : "s") of \(width)×\(height) pixels take\(count == 1 ? "s" : "") "
                                   + "\(overflow ? "more than \(Int.max)" : "\(bytes)") bytes, over the limit of \(maximumBytes) bytes")
        }
    }
}
