/// When a playing video has stalled: a network stream that stopped sending mid-way would
/// otherwise show its last picture forever.
///
/// A playing video whose media time moves past the picture shown, with nothing decoded ahead
/// and the stream still giving pictures (ready, not failed, not at its end), is starving; past
/// `timeout` seconds of that with no new picture at all it has stalled. A paused video asks for
/// the same time again and never starves; a slideshow has its next picture decoded ahead; a
/// decoder slower than its media still gives pictures, and each new one starts the count again,
/// as does a seek (the wait for its first picture starts then) and calls far apart (frames not
/// drawn for a while). While a seek is in flight the picture shown is from before it, so only
/// a new picture ends the starving. Cameras are exempt: a capture card without a signal sends
/// nothing until it has one again.
///
/// A pure value: the time (monotonic seconds) comes in with each question, so these rules are
/// tested without GStreamer or a real clock.
struct StallWatch {
    /// What the decoder has when the compositor asks for the picture at `mediaTime`.
    struct Request {
        /// The media time asked for.
        var mediaTime: Double
        /// The time of the picture shown (nil: none yet).
        var shown: Double?
        /// Whether a seek is in flight (the picture shown is from before it).
        var seeking = false
        /// Whether a picture is decoded ahead, waiting for its time.
        var decodedAhead = false
        /// Whether pictures can still come: the source gave its first, the decoder has not
        /// failed and the stream is not at its end.
        var streaming = true
    }

    /// Seconds of real time a playing video may starve (`[video] stall_timeout`; 0: never).
    let timeout: Double
    /// A V4L2 camera: never stalls.
    let camera: Bool
    /// Since when the media time has wanted a picture newer than the one shown with none
    /// decoded ahead (nil: pictures keep up).
    private var starvedSince: Double?
    /// When the last picture was asked for, and for which media time.
    private var last = (time: 0.0, media: -Double.infinity)

    init(timeout: Double, camera: Bool) {
        self.timeout = timeout
        self.camera = camera
    }

    /// A new picture is shown: a decoder slower than the media is not a stall.
    mutating func pictureArrived() { starvedSince = nil }

    /// A seek went out: the wait for its first picture starts now.
    mutating func seekStarted() { starvedSince = nil }

    /// Whether the video has stalled, asked at `now` (monotonic seconds) for `request`.
    mutating func hasStalled(_ request: Request, at now: Double) -> Bool {
        let moved = request.mediaTime > last.media + 1e-9
        let gap = now - last.time
        last = (now, request.mediaTime)
        let behind = request.seeking || request.shown.map { request.mediaTime > $0 + 1e-3 } ?? true
        guard timeout > 0, !camera, request.streaming, !request.decodedAhead, moved, behind else {
            starvedSince = nil
            return false
        }
        guard let since = starvedSince, gap <= min(1, timeout / 2) else {
            starvedSince = now
            return false
        }
        return now - since >= timeout
    }
}
