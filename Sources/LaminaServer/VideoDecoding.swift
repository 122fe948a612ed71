import LaminaCore

/// One decoded picture of a video: premultiplied RGBA rows, top row first, and its
/// presentation time in the media's own seconds.
public struct VideoFrame: Sendable {
    public var bitmap: Bitmap
    /// Presentation time (PTS) in seconds from the start of the media.
    public var time: Double
    public init(bitmap: Bitmap, time: Double) {
        self.bitmap = bitmap
        self.time = time
    }
}

/// What a decoder reports about its media, polled from the loop thread (`takeEvents`).
public enum VideoDecoderEvent: Sendable, Equatable {
    /// The first picture is decoded: its size, and the media's length (nil: unknown, such as
    /// a live stream).
    case ready(width: Int, height: Int, duration: Double?)
    /// The last frame was decoded (end of stream).
    case ended
    /// The media cannot be played: the decoder's own words (GStreamer's message). The decoder
    /// shows no further frames.
    case error(String)
}

/// One video being decoded for laminad (LaminaVideo's GStreamer pipeline; a fake in tests).
///
/// Decoding runs on the decoder's own threads; every method here is called on the loop
/// thread. The compositor decides which frame shows: `frame(at:wait:)` answers the picture
/// whose presentation time is the greatest one not after the media time asked for, so the
/// compositor's clock, real or virtual, paces the video.
public protocol VideoDecoder: AnyObject {
    /// The frame with the greatest presentation time ≤ `mediaTime` (seeking when the time is
    /// behind the last frame or far ahead of it). Waits at most `wait` seconds for frames not
    /// decoded yet (0 with a real clock: show what there is; a bound with a virtual clock, so a
    /// screenshot at time t shows exactly the frame at t). Nil until a first frame is decoded.
    func frame(at mediaTime: Double, wait: Double) -> VideoFrame?
    /// The events since the last call, oldest first.
    func takeEvents() -> [VideoDecoderEvent]
    /// Stops decoding and frees the decoder's threads and descriptors (idempotent).
    func close()
}

/// Why a decoder could not be made.
public struct VideoOpenError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// Makes decoders (laminad installs LaminaVideo's `GStreamerVideo`; without one, clients'
/// videos are refused).
public protocol VideoDecoding: AnyObject {
    /// A decoder for `uri` (a URI, or an absolute path). Throws for input that cannot even be
    /// tried (a path that is not a regular file, a scheme GStreamer has no source for); other
    /// problems arrive later as an `error` event.
    func open(uri: String) throws(VideoOpenError) -> any VideoDecoder
    /// Numbers for `stats` (which upload path frames take).
    var statistics: [(name: String, value: Double)] { get }
    /// Which upload path frames take, and why, in words (logged when laminad starts).
    var uploadPath: String { get }
}
