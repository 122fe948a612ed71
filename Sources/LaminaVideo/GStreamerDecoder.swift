import CGStreamer
import LaminaPlatform
import LaminaCompositor

/// One video's decoder, pulled by the loop thread: which decoded picture a media time shows
/// (seeking back, or far ahead), the bus's messages as events, the open deadline and the stall
/// watch. Its `GStreamerPipeline` decodes; its `SampleConverter` makes the frames.
final class GStreamerDecoder: VideoDecoder {
    private let pipeline: GStreamerPipeline
    private let converter: SampleConverter
    private var events: [VideoDecoderEvent] = []
    /// The frame shown last, and one pulled that is not due yet.
    private var current: VideoFrame?
    private var pending: VideoFrame?
    /// Whether to seek, and the seek in flight: after a seek, the first frame pulled is the
    /// one that covers its target.
    private var planner = SeekPlanner()
    private var announcedReady = false
    /// A state change finished (the streams, audio among them, are known).
    private var prerolled = false
    /// The first span waited (on a virtual clock) for the streams to be known.
    private var audioProbed = false
    /// The media's length, once known.
    private var duration: Double?
    private var endOfStream = false
    private var failed = false
    private let uri: String
    /// When (monotonic seconds) a source that gave no picture yet is given up, and the system
    /// clock's wait that wakes the loop thread then (GStreamer may post nothing at all).
    private let openTimeout: Double
    private let openDeadline: Double
    private var openAlarm: OpenAlarm?
    private var stallWatch: StallWatch
    /// The sound: decoded samples by media time, the output they go to, and its settings.
    private var sound: VideoSound

    init(uri: String, wakeup: Int32, maximumSide: Int, counts: FrameCounts, openTimeout: Double, stallTimeout: Double,
         planarYUV: Bool, audioSink: String?, audioCounts: AudioCounts) throws(VideoOpenError) {
        let camera = VideoSourcePolicy.isCamera(uri)
        stallWatch = StallWatch(timeout: stallTimeout, camera: camera)
        converter = SampleConverter(maximumSide: maximumSide, camera: camera, counts: counts)
        self.uri = uri
        self.openTimeout = openTimeout
        openDeadline = monotonicSeconds() + openTimeout
        sound = VideoSound(sink: audioSink, counts: audioCounts)
        pipeline = try GStreamerPipeline(uri: uri, camera: camera, planarYUV: planarYUV, audio: audioSink != nil, wakeup: wakeup)
        // The system clock's own thread writes the wake-up at the deadline, so the loop thread
        // looks (pollBus) even when the source stays silent and the bus with it.
        openAlarm = OpenAlarm(after: openTimeout, wakeup: wakeup)
        if !pipeline.play() {
            pollBus()
            if !failed { events.append(.error("\(uri): GStreamer could not start playing it")) }
            failed = true
        }
    }

    deinit { close() }

    func close() {
        // Stops the open deadline's wait (the first picture came, or the decoder is closing).
        openAlarm = nil
        guard pipeline.isOpen else { return }
        sound.close()
        pipeline.close()
        current = nil
        pending = nil
    }

    func takeEvents() -> [VideoDecoderEvent] {
        pollBus()
        defer { events.removeAll() }
        return events
    }

    private func pollBus() {
        guard pipeline.isOpen else { return }
        while let message = pipeline.nextMessage() {
            switch message {
            case .error(let text):
                guard !failed else { continue }
                failed = true
                events.append(.error(text))
            case .endOfStream:
                if !endOfStream { events.append(.ended) }
                endOfStream = true
            case .asyncDone:
                prerolled = true
                // The first picture's size from the preroll sample (or from the first frame
                // pulled, when the loop thread took it first).
                if !announcedReady, !failed, let size = pipeline.prerollSize() {
                    announceReady(width: size.width, height: size.height)
                }
            }
        }
        if !announcedReady, !failed, monotonicSeconds() >= openDeadline {
            failed = true
            openAlarm = nil
            events.append(.error("\(uri): no picture within \(Self.seconds(openTimeout)) s of opening it (the source did not answer, or sent nothing to decode); laminad gives a source [video] open_timeout seconds"))
        }
    }

    private static func seconds(_ s: Double) -> String {
        s == s.rounded() && abs(s) < 1e9 ? String(Int(s)) : String(s)
    }

    /// The first picture's size and the media's length: the ready event, once.
    private func announceReady(width: Int, height: Int) {
        guard !announcedReady else { return }
        announcedReady = true
        openAlarm = nil
        duration = queryDuration()
        events.append(.ready(width: width, height: height, duration: duration))
    }

    func frame(at mediaTime: Double, wait: Double) -> VideoFrame? {
        guard pipeline.isOpen, mediaTime.isFinite else { return current }
        let deadline = monotonicSeconds() + max(0, wait)
        if current == nil, pending == nil { pending = pull(until: deadline) }
        if planner.isSeeking, pending == nil, pipeline.sinkAtEnd {
            // The seek went past the last picture: the stream's end is where it landed.
            planner.abandoned()
        }
        if case .seek(let target) = planner.decide(mediaTime: mediaTime, shown: current?.time, decodedAhead: pending?.time) {
            // Past the end, the last frame: the greatest presentation time before it. The
            // picture shown stays until the seek's first arrives.
            let end = queryDuration().map { max(0, $0 - 0.001) } ?? .infinity
            current = current ?? pending
            seek(to: min(target, end))
        }
        while true {
            if pending == nil { pending = pull(until: deadline) }
            guard let next = pending else { break }
            if planner.isSeeking || current == nil || next.time <= mediaTime + 1e-6 {
                current = next
                pending = nil
                planner.landed(at: monotonicSeconds())
                stallWatch.pictureArrived()
            } else {
                break
            }
        }
        watchForStall(wanting: mediaTime)
        return current
    }

    /// Asks the stall watch about this picture's request; a stall is an error event (the
    /// decoder shows no further frames), so a client can open the stream again.
    private func watchForStall(wanting mediaTime: Double) {
        let request = StallWatch.Request(mediaTime: mediaTime, shown: current?.time, seeking: planner.isSeeking,
                                         decodedAhead: pending != nil,
                                         streaming: announcedReady && !failed && !endOfStream && !pipeline.sinkAtEnd)
        guard stallWatch.hasStalled(request, at: monotonicSeconds()) else { return }
        failed = true
        let shown = current.map { " after the picture at \(Self.seconds(($0.time * 1000).rounded() / 1000)) s" } ?? ""
        events.append(.error("\(uri): no new picture for \(Self.seconds(stallWatch.timeout)) s while playing\(shown) (the stream stalled); laminad gives a playing stream [video] stall_timeout seconds"))
    }

    /// The media's length: from the ready event, or asked of the pipeline now.
    private func queryDuration() -> Double? {
        if let duration { return duration }
        return pipeline.duration()
    }

    private func seek(to time: Double) {
        guard !failed, pipeline.seek(to: time) else { return }
        pending = nil
        sound.decoded.reset()
        planner.started(time, at: monotonicSeconds())
        endOfStream = false
        stallWatch.seekStarted()
    }

    /// The next decoded frame, waiting until `deadline` (monotonic seconds) at most; checks the
    /// bus between short waits so an error ends the wait.
    private func pull(until deadline: Double) -> VideoFrame? {
        while true {
            pollBus()
            if failed { return nil }
            // The sound decoded meanwhile is taken, so a full audio sink never holds the pictures up.
            drainAudio()
            let left = deadline - monotonicSeconds()
            let slice = left > 0 ? min(left, pipeline.hasAudioBranch ? 0.01 : 0.05) : 0
            guard let sample = pipeline.pullSample(waiting: slice) else {
                if pipeline.sinkAtEnd || left <= 0 { return nil }
                continue
            }
            defer { gst_sample_unref(sample) }
            guard let frame = convert(sample) else { return nil }
            // A frame decoded before a flushing seek took effect: not the one asked for.
            if let target = planner.inFlight?.target, frame.time < target - 0.5 { continue }
            return frame
        }
    }

    /// The sample as a frame; a picture too large fails the decoder with an error event.
    private func convert(_ sample: OpaquePointer) -> VideoFrame? {
        do {
            return try converter.frame(sample, fallbackTime: pending?.time ?? current?.time ?? 0) { width, height in
                announceReady(width: width, height: height)
            }
        } catch {
            if !failed {
                failed = true
                events.append(.error(error.message))
            }
            return nil
        }
    }
}

// MARK: Sound

extension GStreamerDecoder {
    var audioState: VideoAudioState { sound.state }

    func setAudio(volume: Double, muted: Bool) { sound.set(volume: volume, muted: muted) }

    func renderAudio(_ span: AudioSpan, mediaNow: Double, wait: Double, presentAt: Double?) -> Int {
        guard pipeline.isOpen, pipeline.isPlaybin, !failed else { return span.count }
        let deadline = monotonicSeconds() + max(0, wait)
        // Whether the media has sound is known once its streams are: a virtual clock waits for
        // that, once (the first state change), so its first spans are the sound's too.
        if !audioProbed {
            audioProbed = true
            while !prerolled, pipeline.audioStreams == 0, monotonicSeconds() < deadline {
                pollBus()
                if failed || prerolled { break }
                drainAudio(waiting: 0.005)
            }
        }
        guard pipeline.audioStreams > 0 else { return span.count }
        guard pipeline.hasAudioBranch else {
            sound.noBranch()
            return span.count
        }
        drainAudio()
        var span = span
        var wanted = span.mediaStart + Int64(span.mediaCount)
        if span.mediaCount > 0 {
            while sound.decoded.end < wanted, !pipeline.audioAtEnd, monotonicSeconds() < deadline, !failed {
                drainAudio(waiting: min(0.01, max(0, deadline - monotonicSeconds())))
                pollBus()
            }
            // A real clock does not wait: what is not decoded yet goes in a later span (unless
            // the sound has ended, when it is silence).
            if presentAt != nil, span.silenceAfter == 0, sound.decoded.end < wanted, !pipeline.audioAtEnd {
                let short = Int(min(Int64(span.mediaCount), wanted - max(sound.decoded.end, span.mediaStart)))
                span.mediaCount -= short
                wanted -= Int64(short)
            }
        }
        if span.count > 0 { sound.play(span, presentAt: presentAt) }
        // Samples no span will want any more: those before both this span's end and media time now.
        let rate = Double(AudioTimeline.sampleRate)
        let now = Int64((max(0, mediaNow) * rate).rounded())
        sound.decoded.dropBefore(min(wanted, now) - Int64(rate / 4))
        return span.count
    }

    /// Takes the decoded sound samples the audio sink holds into `sound.decoded`, the first
    /// waited for `seconds` at most.
    private func drainAudio(waiting seconds: Double = 0) {
        guard pipeline.hasAudioBranch else { return }
        var wait = seconds
        while let sample = pipeline.pullAudio(waiting: wait) {
            wait = 0
            defer { gst_sample_unref(sample) }
            guard let buffer = gst_sample_get_buffer(sample) else { continue }
            let pts = lamina_gst_buffer_pts(buffer)
            var map = GstMapInfo()
            guard gst_buffer_map(buffer, &map, GST_MAP_READ) != 0 else { continue }
            defer { gst_buffer_unmap(buffer, &map) }
            let values = Int(map.size) / MemoryLayout<Int16>.size / DecodedAudio.channels * DecodedAudio.channels
            guard values > 0, let data = map.data else { continue }
            let at = pts == lamina_gst_clock_time_none() ? sound.decoded.end
                                                        : Int64((Double(pts) / 1e9 * Double(AudioTimeline.sampleRate)).rounded())
            data.withMemoryRebound(to: Int16.self, capacity: values) {
                sound.decoded.append(at: at, UnsafeBufferPointer(start: $0, count: values))
            }
        }
    }
}
