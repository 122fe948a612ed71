import LaminaCore
import LaminaProtocol

/// A client's video (protocol 1.6): its decoder, where its media time stands, and the image
/// its current frame is shown through.
///
/// A layer shows a video as it shows an image: its `contents` names the video's number, and
/// the render list draws `image`, so gravity, contentsRect, corners, masks, transforms and
/// animations apply alike. The image is a server bitmap whose pixels are replaced (a new
/// generation: the texture cache uploads it again, damage covers the layer) whenever the frame
/// shown changes; a new picture size makes a new image.
///
/// A class, so the tree's copies (a journal, a staged commit) share it; the compositor
/// changes it on the loop thread (CompositorVideo.swift). `@unchecked Sendable` like
/// `ImageSource`.
public final class VideoSurface: @unchecked Sendable {
    /// The client's number for it (the image number `contents` names).
    public let number: UInt32
    /// What the client asked to play.
    public let uri: String
    /// The current frame, nil until one is decoded.
    public internal(set) var image: ImageSource?
    /// Nil until the commit that made it stands (and after it is destroyed, or failed).
    var decoder: (any VideoDecoder)?
    /// Whose texture bytes the frames count towards (the tree's image owner).
    var owner: ImageSource.Owner = .server
    public internal(set) var isPlaying = false
    public internal(set) var rate = 1.0
    public internal(set) var loops = false
    /// The sound's gain, 0…1 (1: as recorded), and whether it is muted (protocol 1.7).
    public internal(set) var volume = 1.0
    public internal(set) var isMuted = false
    /// Which samples of its sound went out for which span of the clock (set when the commit
    /// that made it stands).
    var audio: AudioTimeline?
    /// Media time `anchorMedia` at clock time `anchorClock`; it advances from there at `rate`
    /// while playing.
    var anchorClock = 0.0
    var anchorMedia = 0.0
    /// The media's length, from the decoder's ready event.
    public internal(set) var duration: Double?
    /// The presentation time of the frame in `image`.
    public internal(set) var shownTime: Double?
    /// The end was reported (once per reaching it).
    var endReported = false
    /// The decoder failed or was refused; no more frames.
    public internal(set) var failure: String?
    public private(set) var isDestroyed = false
    /// The display entry (`ModelTree.Entry.serial`) whose client owns it.
    var entrySerial = EntrySerial(0)
    /// A virtual-clock frame waited its full bound for a picture: later frames do not wait
    /// until one arrives (a stream that never answers does not stall every frame).
    var stalled = false

    public init(number: UInt32, uri: String) {
        self.number = number
        self.uri = uri
    }

    /// The media time at clock time `t`: paused, where it stands; playing, advanced by the
    /// rate; past the end, the end (or, looping, wrapped round to the start).
    public func mediaTime(at t: Double) -> Double {
        var m = anchorMedia + (isPlaying ? max(0, t - anchorClock) * rate : 0)
        if let d = duration, d > 0 {
            if loops { m = m.truncatingRemainder(dividingBy: d) } else { m = min(m, d) }
        }
        return max(0, m)
    }

    /// Whether media time at `t` is at (or past) the end of a video that does not loop.
    func isAtEnd(at t: Double) -> Bool {
        guard !loops, let d = duration, d > 0 else { return false }
        return anchorMedia + (isPlaying ? max(0, t - anchorClock) * rate : 0) >= d
    }

    /// Re-anchors media time at clock time `t` (before a control changes how it runs).
    func anchor(at t: Double) {
        anchorMedia = mediaTime(at: t)
        anchorClock = t
    }

    /// Stops the decoder and lets the image's texture go.
    public func destroy() {
        isDestroyed = true
        decoder?.close()
        decoder = nil
        image?.destroy()
    }
}

/// A video change a commit made (`CommitResult.videoChanges`).
public enum VideoChange: Sendable, Equatable {
    case created(VideoSurface)
    case controlled(VideoSurface, VideoControl)
    case destroyed(VideoSurface)

    public var surface: VideoSurface {
        switch self {
        case .created(let s), .controlled(let s, _), .destroyed(let s): s
        }
    }

    public static func == (a: VideoChange, b: VideoChange) -> Bool {
        switch (a, b) {
        case let (.created(x), .created(y)), let (.destroyed(x), .destroyed(y)): x === y
        case let (.controlled(x, c), .controlled(y, d)): x === y && c == d
        default: false
        }
    }
}
