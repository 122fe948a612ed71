#if canImport(Glibc)
import Glibc
#endif
import LaminaCore
import LaminaProtocol

/// A video laminad decodes and a layer shows through its contents (protocol 1.6): a file or a
/// URI on laminad's machine, decoded there with GStreamer, paced by laminad's clock (with a
/// virtual clock, a screenshot at time t shows exactly the frame at t).
///
/// Like an `Image`, a video belongs to its connection and takes an image number; it is created
/// in laminad with the next commit, and its controls go with the commits after (so they are
/// applied all-or-none with the layer changes beside them). It starts paused at 0, rate 1, not
/// looping. Events (ready with size and duration, playing, paused, ended, error) arrive on
/// `onEvent` and `nextEvent(where:)`. Its sound plays through laminad's sound output
/// (`[audio] sink`), in step with laminad's clock, at `volume` unless `isMuted` (protocol 1.7;
/// like AVPlayer: volume 1, not muted).
///
/// A connection made with a `ReconnectPolicy` makes its videos again on the new connection,
/// with their loop, rate and play state, at the media time they had reached (laminad then
/// sends `ready`, and `playing` for one that plays, again).
///
/// ```swift
/// let clip = try VideoSource(contentsOfFile: "intro.webm", connection: connection)
/// clip.loops = true
/// clip.play()
/// layer.video = clip
/// layer.contentsGravity = .resizeAspect
/// ```
@MainActor
public final class VideoSource {
    /// The number laminad knows the video by (an image number of this connection).
    public let number: UInt32
    /// What laminad plays.
    public let uri: String
    weak var connection: Connection?
    public private(set) var isDestroyed = false
    /// Whether releasing it destroys it in laminad (false for `init(existing:connection:)`).
    private var owned = true
    /// The picture size and length from laminad's ready event (duration nil: unknown).
    public private(set) var size: (width: Int, height: Int)?
    public private(set) var duration: Double?
    /// The message of the error event, if one came.
    public private(set) var error: String?
    /// Whether laminad last said it plays (after `playing`, until `paused` or `ended`).
    public private(set) var isPlaying = false
    /// Called with every event, in order.
    public var onEvent: (VideoEvent) -> Void = { _ in }
    /// Every event so far, oldest first.
    public private(set) var events: [VideoEvent] = []
    private var waiters: [(match: (VideoEvent) -> Bool, continuation: CheckedContinuation<VideoEvent, Never>)] = []
    /// Whether playing past the end starts again from 0; sent with the next commit.
    public var loops: Bool = false {
        willSet { if newValue != loops { anchor() } }
        didSet { if loops != oldValue { control(.loop(loops)) } }
    }
    /// Media seconds per second of laminad's clock: > 0 and ≤ 16 (any other value is ignored:
    /// the rate stays what it was).
    public var rate: Double = 1 {
        willSet { if newValue != rate, Self.isValid(rate: newValue) { anchor() } }
        didSet {
            guard rate != oldValue else { return }
            guard Self.isValid(rate: rate) else { rate = oldValue; return }
            control(.rate(rate))
        }
    }
    /// The sound's gain, 0 (silent) to 1 (as recorded, the default); sent with the next
    /// commit. Any other value is ignored (the volume stays what it was). Protocol 1.7.
    /// (On a video made with `init(existing:)`, whose settings laminad alone knows, setting
    /// `volume` or `isMuted` always sends it, even to the value this object last had.)
    public var volume: Double = 1 {
        didSet {
            guard volume != oldValue || !owned else { return }
            guard volume.isFinite, volume >= 0, volume <= 1 else { volume = oldValue; return }
            control(.volume(volume))
        }
    }
    /// Whether the sound is off (`volume` is kept for when it is on again); sent with the next
    /// commit. Protocol 1.7.
    public var isMuted: Bool = false {
        didSet { if isMuted != oldValue || !owned { control(.muted(isMuted)) } }
    }
    /// Whether the client last asked it to play (`play()`) rather than pause: the state a
    /// reconnection puts back, whatever events laminad has sent.
    public private(set) var isPlayRequested = false
    /// Media time `anchorMedia` at clock time `anchorClock` (the connection's
    /// `currentMediaTime` when a control was made), moving at `rate` while play is requested:
    /// the client's reckoning of where laminad's media time stands, which a reconnection seeks to.
    private var anchorMedia = 0.0
    private var anchorClock: Double

    /// A video of `uri`: an absolute path on laminad's machine or a URI GStreamer reads
    /// (`file:///…`, `http://…`).
    public init(uri: String, connection: Connection) throws {
        guard !uri.isEmpty, uri.utf8.count <= 4096 else {
            throw LaminaError.invalidArgument("a video needs a path or URI of 1 to 4096 bytes")
        }
        self.uri = uri
        self.connection = connection
        anchorClock = connection.currentMediaTime
        number = connection.registerImage()
        connection.liveVideos[number] = WeakVideo(self)
        connection.noteImageOperation(.createVideo(image: number, uri: uri))
    }

    /// The video `number` an earlier client of this (resumed) session made, as a layer's
    /// `contents` names it: controls and events, without creating it; releasing it does not
    /// destroy it (`destroy()` does).
    public init(existing number: UInt32, connection: Connection) {
        self.number = number
        uri = ""
        self.connection = connection
        anchorClock = connection.currentMediaTime
        owned = false
        connection.liveVideos[number] = WeakVideo(self)
    }

    /// A video file, by a path relative to the working directory or absolute (laminad runs on
    /// this machine and opens it itself).
    public convenience init(contentsOfFile path: String, connection: Connection) throws {
        var absolute = path
        if !path.hasPrefix("/") {
            guard let cwd = getcwd(nil, 0) else {
                throw LaminaError.invalidArgument("\(path): the working directory cannot be read (errno \(errno))")
            }
            defer { free(cwd) }
            absolute = String(cString: cwd) + "/" + path
        }
        guard access(absolute, R_OK) == 0 else {
            throw LaminaError.invalidArgument("\(absolute): \(String(cString: strerror(errno)))")
        }
        try self.init(uri: absolute, connection: connection)
    }

    /// Media time moves with laminad's clock (from the end of a video that does not loop: from 0).
    public func play() {
        guard !isDestroyed else { return }
        anchor()
        if !isPlayRequested, !loops, let d = duration, d > 0, anchorMedia >= d { anchorMedia = 0 }
        isPlayRequested = true
        control(.play)
    }
    /// Media time stands still; the frame shown stays.
    public func pause() {
        guard !isDestroyed else { return }
        anchor()
        isPlayRequested = false
        control(.pause)
    }
    /// Shows the frame at `seconds` (past the end: the last frame).
    public func seek(to seconds: Double) throws {
        guard seconds.isFinite, seconds >= 0 else {
            throw LaminaError.invalidArgument("seek takes a finite number of seconds ≥ 0, got \(seconds)")
        }
        guard !isDestroyed else { return }
        anchor()
        anchorMedia = duration.map { Swift.min(seconds, $0) } ?? seconds
        control(.seek(seconds: seconds))
    }

    private static func isValid(rate r: Double) -> Bool { r.isFinite && r > 0 && r <= 16 }

    /// Where media time stands at clock time `t`, by the client's reckoning (laminad's rule:
    /// past the end, the end; looping, wrapped round).
    func mediaTime(at t: Double) -> Double {
        var m = anchorMedia + (isPlayRequested ? Swift.max(0, t - anchorClock) * rate : 0)
        if let d = duration, d > 0 {
            if loops { m = m.truncatingRemainder(dividingBy: d) } else { m = Swift.min(m, d) }
        }
        return Swift.max(0, m)
    }

    /// Re-anchors the reckoning at the connection's clock now (before a control changes it).
    private func anchor() {
        let t = connection?.currentMediaTime ?? anchorClock
        anchorMedia = mediaTime(at: t)
        anchorClock = t
    }

    /// The operations that make this video again on a new connection (a restarted laminad):
    /// created, with its loop, rate, volume, mute and play state, at media time `position` (its reckoning
    /// at the old clock's last reading, or on the same real clock, now); `now` is the new
    /// clock's time, from which it is reckoned afterwards. Nil for a video this client did not
    /// make (`init(existing:)`): laminad keeps those with the session, or has lost them.
    func replayOperations(position: Double, now: Double) -> [Operation]? {
        guard owned, !isDestroyed else { return nil }
        anchorMedia = position
        anchorClock = now
        var ops: [Operation] = [.createVideo(image: number, uri: uri)]
        if loops { ops.append(.controlVideo(image: number, .loop(true))) }
        if rate != 1 { ops.append(.controlVideo(image: number, .rate(rate))) }
        if volume != 1 { ops.append(.controlVideo(image: number, .volume(volume))) }
        if isMuted { ops.append(.controlVideo(image: number, .muted(true))) }
        if position > 0 { ops.append(.controlVideo(image: number, .seek(seconds: position))) }
        if isPlayRequested { ops.append(.controlVideo(image: number, .play)) }
        return ops
    }

    /// Whether a reconnection replays it (rather than leaving laminad's copy alone).
    var isReplayed: Bool { owned && !isDestroyed }

    /// Destroys the video in laminad now (with the next commit) rather than when it is released.
    public func destroy() {
        guard !isDestroyed else { return }
        isDestroyed = true
        connection?.liveVideos[number] = nil
        connection?.noteImageDestroyed(number)
    }

    /// The first event from now on, or already received, for which `match` holds.
    public func nextEvent(where match: @escaping (VideoEvent) -> Bool) async -> VideoEvent {
        if let e = events.first(where: match) { return e }
        return await withCheckedContinuation { waiters.append((match, $0)) }
    }

    private func control(_ c: VideoControl) {
        guard !isDestroyed else { return }
        connection?.noteImageOperation(.controlVideo(image: number, c))
    }

    func received(_ event: VideoEvent) {
        switch event {
        case let .ready(w, h, d):
            size = (Int(w), Int(h))
            duration = d
        case .playing: isPlaying = true
        case .paused: isPlaying = false
        case .ended:
            // laminad stopped it at its end (a later play starts again from 0).
            isPlaying = false
            anchor()
            isPlayRequested = false
        case .error(let m):
            error = m
            isPlaying = false
        }
        events.append(event)
        if events.count > 256 { events.removeFirst(events.count - 256) }
        onEvent(event)
        var kept: [(match: (VideoEvent) -> Bool, continuation: CheckedContinuation<VideoEvent, Never>)] = []
        for w in waiters {
            if w.match(event) { w.continuation.resume(returning: event) } else { kept.append(w) }
        }
        waiters = kept
    }

    isolated deinit {
        if !isDestroyed, owned {
            connection?.liveVideos[number] = nil
            connection?.noteImageDestroyed(number)
        }
        if !owned { connection?.liveVideos[number] = nil }
        for w in waiters { w.continuation.resume(returning: .error("the video was released")) }
    }
}

struct WeakVideo {
    weak var video: VideoSource?
    init(_ video: VideoSource) { self.video = video }
}

extension Layer {
    /// The video the layer shows through its contents (placed like an image: `contentsGravity`,
    /// `contentsRect`, `contentsCenter`, `contentsScale`; clipped by `masksToBounds` and its
    /// corners). The layer keeps the video alive. Setting it replaces `contents`.
    public var video: VideoSource? {
        get { contentsVideo }
        set {
            contentsVideo = newValue
            contentsImage = nil
            setValue(.image(newValue?.number ?? 0), forKey: .contents)
        }
    }
}
