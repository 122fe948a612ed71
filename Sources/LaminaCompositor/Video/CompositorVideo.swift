import LaminaCore
import LaminaProtocol

/// Clients' videos (protocol 1.6): decoders started, steered and stopped as commits stand,
/// frames chosen by the compositor's clock before each frame is drawn, and the decoders'
/// events passed on to the owning client.
extension Compositor {
    /// Whether some video's media time is moving (a real clock then draws frame after frame).
    /// (A video stopped at its end does not: nothing more will change until a control.)
    var videosPlaying: Bool { liveVideos.contains { $0.isPlaying && !$0.endReported && $0.decoder != nil && !$0.isDestroyed } }

    /// Videos with a decoder now.
    public var videoCount: Int { liveVideos.filter { !$0.isDestroyed && $0.decoder != nil }.count }

    /// Applies a standing commit's video changes for the client of display entry `i`.
    func applyVideoChanges(_ changes: [VideoChange], entry i: Int) {
        let serial = model.entries[i].serial
        let owner = model.entries[i].tree.imageOwner
        // Videos a resumed session stopped showing were destroyed with the tree's images.
        liveVideos.removeAll { $0.isDestroyed || $0.decoder == nil }
        let t = now
        for change in changes {
            switch change {
            case .created(let v):
                v.entrySerial = serial
                v.owner = owner
                v.anchorClock = t
                guard let decoding = videoDecoding else {
                    fail(v, "video \(v.number): this laminad decodes no video (it was started without a video decoder)")
                    continue
                }
                guard liveVideos.count < configuration.maxVideos else {
                    fail(v, "video \(v.number): laminad decodes at most \(configuration.maxVideos) videos at once (max_videos); destroy one first")
                    continue
                }
                do {
                    v.decoder = try decoding.open(uri: v.uri)
                    v.decoder?.setAudio(volume: v.volume, muted: v.isMuted)
                    v.audio = AudioTimeline(origin: t)
                    liveVideos.append(v)
                    logger.info("video \(v.number) of session \(serial): \(v.uri)")
                } catch {
                    fail(v, "video \(v.number): \(error.message)")
                }
            case let .controlled(v, control):
                guard !v.isDestroyed, v.failure == nil else { continue }
                // The sound up to now, as it ran before this control (a virtual clock's steps
                // in which the video drew no frame: paused, say).
                if let decoder = v.decoder { renderAudio(v, decoder, at: t, wait: 0) }
                v.anchor(at: t)
                switch control {
                case .play:
                    guard !v.isPlaying else { break }
                    // Play at the end of a video that does not loop starts it again.
                    if v.isAtEnd(at: t) { v.anchorMedia = 0 }
                    v.isPlaying = true
                    v.endReported = false
                    notify(v, .playing)
                case .pause:
                    guard v.isPlaying else { break }
                    v.isPlaying = false
                    notify(v, .paused)
                case .seek(let seconds):
                    v.anchorMedia = v.duration.map { min(seconds, $0) } ?? seconds
                    v.endReported = false
                case .rate(let r):
                    v.rate = r
                case .loop(let on):
                    v.loops = on
                    if on { v.endReported = false }
                case .volume(let volume):
                    v.volume = volume
                    v.decoder?.setAudio(volume: v.volume, muted: v.isMuted)
                case .muted(let on):
                    v.isMuted = on
                    v.decoder?.setAudio(volume: v.volume, muted: v.isMuted)
                }
                requestFrame(.sceneChanged)
            case .destroyed(let v):
                v.destroy()
                liveVideos.removeAll { $0 === v }
                requestFrame(.sceneChanged)
            }
        }
    }

    /// Reads every decoder's events (laminad calls this when a decoder wakes it) and passes
    /// them on; with a real clock, a first frame asks for a frame.
    public func pollVideos() {
        liveVideos.removeAll { $0.isDestroyed || $0.decoder == nil }
        for v in liveVideos {
            guard let decoder = v.decoder else { continue }
            for event in decoder.takeEvents() {
                switch event {
                case let .ready(width, height, duration):
                    v.duration = duration.flatMap { $0.isFinite && $0 > 0 ? $0 : nil }
                    notify(v, .ready(width: UInt32(clamping: width), height: UInt32(clamping: height), duration: v.duration))
                    if !clock.isVirtual { requestFrame(.sceneChanged) }
                case .ended:
                    // The length was unknown (a stream): its end is the decoder's.
                    if v.duration == nil, !v.loops, !v.endReported {
                        ended(v)
                    } else if v.duration == nil, v.loops {
                        v.anchorMedia = 0
                        v.anchorClock = now
                    }
                case .error(let message):
                    fail(v, "video \(v.number) (\(v.uri)): \(message)")
                }
            }
            if v.decoder != nil, !v.endReported, v.isAtEnd(at: now) { ended(v) }
        }
        liveVideos.removeAll { $0.isDestroyed || $0.decoder == nil }
    }

    /// A video that does not loop reached its end: it stops there (paused at the end, so a
    /// later `play` starts it again from 0) and its client hears `ended`, once.
    private func ended(_ v: VideoSurface) {
        v.anchor(at: now)
        v.isPlaying = false
        v.endReported = true
        notify(v, .ended)
    }

    /// Puts each video's frame for clock time `t` in its image (before the render list is
    /// built). With a virtual clock the frame is waited for, so what is drawn at t is exactly
    /// the frame at t; with a real clock, the newest decoded frame not after t shows.
    func updateVideoFrames(at t: Double) {
        for v in liveVideos {
            guard let decoder = v.decoder, !v.isDestroyed else { continue }
            let wait = clock.isVirtual && !v.stalled ? configuration.videoFrameWait : 0
            let picture = decoder.frame(at: v.mediaTime(at: t), wait: wait)
            renderAudio(v, decoder, at: t, wait: wait)
            guard let frame = picture else {
                // Not one picture within the wait: stop waiting until one arrives.
                if wait > 0 { v.stalled = true }
                continue
            }
            v.stalled = false
            if let image = v.image, frame.time == v.shownTime, image.width == frame.width,
               image.height == frame.height { continue }
            let bytes = frame.width * frame.height * 4
            if let i = model.entries.firstIndex(where: { $0.serial == v.entrySerial }) {
                let tree = model.entries[i].tree
                // What the client holds besides this video's current frame, which the new one replaces.
                let held = tree.imageBytes - (tree.videos[v.number] === v ? (v.image?.byteCount ?? 0) : 0)
                let budget = configuration.limits.maxImageBytes
                if held + bytes > budget {
                    fail(v, "video \(v.number): its \(frame.width)×\(frame.height) frames (\(bytes) bytes) would take this client's images to \(held + bytes) bytes; the image budget (max_image_bytes) is \(budget)")
                    continue
                }
                let others = model.entries.indices.reduce(0) { sum, k in k == i ? sum : sum + model.entries[k].tree.imageBytes }
                let total = configuration.limits.maxTotalImageBytes
                if others + held + bytes > total {
                    fail(v, "video \(v.number): its \(frame.width)×\(frame.height) frames (\(bytes) bytes) do not fit: all clients' images may hold \(total) bytes together (max_total_image_bytes), and the others hold \(others)")
                    continue
                }
            }
            if let image = v.image, image.width == frame.width, image.height == frame.height {
                image.replace(with: frame)
            } else {
                v.image?.destroy()
                v.image = ImageSource(owner: v.owner, number: v.number, frame: frame)
            }
            v.shownTime = frame.time
        }
        pollVideos()
    }

    /// Seconds of sound a real clock's output is given ahead of the clock, so that the sound
    /// device always has samples to play (each frame tops it up); the output plays each sample
    /// at its clock time, so this is a bound on what is queued, not a delay.
    static let audioLead = 0.15

    /// Gives the video's sound output the samples for the clock up to `t` (a real clock: up
    /// to `audioLead` seconds past it): the media's samples for the media time that passed,
    /// silence for clock time in which it did not (paused, ended, a rate other than 1).
    private func renderAudio(_ v: VideoSurface, _ decoder: any VideoDecoder, at t: Double, wait: Double) {
        guard var timeline = v.audio else { return }
        let virtual = clock.isVirtual
        let end = virtual ? t : t + Self.audioLead
        let audible = v.isPlaying && v.rate == 1 && !v.endReported
        // A looping video that wraps inside the span: its sound up to the end of the media first,
        // then from the start (one span would take the wrap for a seek).
        var targets = [(clock: end, media: v.mediaTime(at: end))]
        let from = timeline.origin + Double(timeline.position) / Double(AudioTimeline.sampleRate)
        if audible, v.loops, let d = v.duration, targets[0].media < v.mediaTime(at: from) {
            let wrap = end - targets[0].media
            if wrap > from, wrap < end { targets.insert((wrap, d), at: 0) }
        }
        let before = decoder.audioState
        for target in targets {
            guard let span = timeline.span(to: target.clock, mediaEnd: target.media, audible: audible, earliest: virtual ? nil : t) else {
                continue
            }
            let given = decoder.renderAudio(span, mediaNow: v.mediaTime(at: t), wait: wait,
                                            presentAt: virtual ? nil : timeline.origin - t + realTime())
            timeline.giveBack(span.count - given)
            if given < span.count { break }
        }
        v.audio = timeline
        // Once, when it happens: a silent video is no error to its client, but the log says why.
        if case .silent(let why, _) = decoder.audioState, decoder.audioState != before {
            logger.warning("video \(v.number) (\(v.uri)) plays silent: \(why)")
        }
    }

    /// `video.audio.playing`, `video.audio.silent` and `video.audio.silent.<why>`: videos whose
    /// sound plays, and those that have sound but play silent (by why: `noSink` when
    /// `[audio] sink = "none"`, `sinkFailed` when the sound output could not open).
    var audioStatistics: [Statistic] {
        var playing = 0, silent: [String: Int] = [:]
        for v in liveVideos where !v.isDestroyed {
            switch v.decoder?.audioState {
            case .playing: playing += 1
            case .silent(_, let key): silent[key, default: 0] += 1
            case .noSound, nil: break
            }
        }
        return [Statistic(name: "video.audio.playing", value: Double(playing)),
                Statistic(name: "video.audio.silent", value: Double(silent.values.reduce(0, +)))]
            + silent.keys.sorted().map { Statistic(name: "video.audio.silent.\($0)", value: Double(silent[$0]!)) }
    }

    /// Pixel bytes of every video's current frame.
    var videoFrameBytes: Int {
        model.entries.reduce(0) { $0 + $1.tree.videos.values.reduce(0) { $0 + ($1.image?.byteCount ?? 0) } }
    }

    /// The video can play no more: tell its client, stop its decoder.
    private func fail(_ v: VideoSurface, _ message: String) {
        logger.warning("\(message)")
        v.failure = message
        v.decoder?.close()
        v.decoder = nil
        v.isPlaying = false
        liveVideos.removeAll { $0 === v }
        notify(v, .error(message))
    }

    /// Sends a video event to the video's client, if it is connected and speaks 1.6.
    private func notify(_ v: VideoSurface, _ event: VideoEvent) {
        guard let entry = model.entries.first(where: { $0.serial == v.entrySerial }), let client = entry.client,
              let minor = sessionMinor(client), minor >= 6 else { return }
        reply(client, .video(image: v.number, event))
    }
}
