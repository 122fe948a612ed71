import CGStreamer
import LaminaCompositor

/// Why a video's sound output could not be made or stopped working.
struct AudioOutputError: Error {
    var message: String
    init(_ message: String) { self.message = message }
}

/// One video's sound output: `appsrc ! audioconvert ! audioresample ! SINK`, SINK the
/// `[audio] sink` description. laminad pushes it the samples of each span of its clock
/// (`AudioSpan`), the video's volume and mute already applied (`VideoSound`).
///
/// With a real clock the pipeline runs on GStreamer's monotonic system clock with its base time
/// at the monotonic time of output sample 0, so a sink that synchronises plays each sample at
/// the moment of laminad's clock it belongs to. With a virtual clock the samples go out as
/// they are pushed, gaps filled with silence, so a file sink holds exactly the clock's steps.
final class AudioOutput {
    static let caps = "audio/x-raw,format=S16LE,layout=interleaved,rate=\(AudioTimeline.sampleRate),channels=\(DecodedAudio.channels)"

    private var pipeline: UnsafeMutablePointer<GstElement>?
    private let source: UnsafeMutablePointer<GstAppSrc>
    private let bus: UnsafeMutablePointer<GstBus>
    /// Output samples pushed so far (the next is this one).
    private var written: Int64 = 0
    private let realClock: Bool

    /// The output into `sink` (a GStreamer bin description), playing. `presentAt`: the
    /// monotonic seconds of output sample 0 (a real clock), or nil (a virtual clock).
    init(sink: String, presentAt: Double?) throws(AudioOutputError) {
        var error: UnsafeMutablePointer<GError>?
        let description = "appsrc name=lamina-audio-source format=time ! audioconvert ! audioresample ! \(sink)"
        guard let top = gst_parse_launch(description, &error) else {
            let why = error.map { String(cString: $0.pointee.message) } ?? "unknown"
            if error != nil { g_error_free(error) }
            throw AudioOutputError("the sound output '\(sink)' cannot be built (\(why))")
        }
        if error != nil {
            // A partial pipeline (a missing element, a bad property): not one to play through.
            let why = String(cString: error!.pointee.message)
            g_error_free(error)
            gst_object_unref(top)
            throw AudioOutputError("the sound output '\(sink)' cannot be built (\(why))")
        }
        let bin = UnsafeMutableRawPointer(top).assumingMemoryBound(to: GstBin.self)
        guard let src = gst_bin_get_by_name(bin, "lamina-audio-source") else {
            gst_object_unref(top)
            throw AudioOutputError("the sound output '\(sink)' has no app source")
        }
        source = UnsafeMutableRawPointer(src).assumingMemoryBound(to: GstAppSrc.self)
        _ = lamina_gst_set_caps(src, "caps", Self.caps)
        // At most 30 s of sound queued; beyond it, new buffers are dropped (a sink that plays
        // slower than a virtual clock's steps give it) rather than memory growing.
        lamina_gst_set_uint64(src, "max-bytes", guint64(30 * AudioTimeline.sampleRate * DecodedAudio.channels * 2))
        lamina_gst_set_int(src, "leaky-type", 1)  // GST_APP_LEAKY_TYPE_UPSTREAM
        pipeline = top
        bus = gst_element_get_bus(top)
        realClock = presentAt != nil
        if let presentAt {
            let clock = gst_system_clock_obtain()
            let p = UnsafeMutableRawPointer(top).assumingMemoryBound(to: GstPipeline.self)
            gst_pipeline_use_clock(p, clock)
            gst_object_unref(clock)
            gst_element_set_start_time(top, lamina_gst_clock_time_none())
            gst_element_set_base_time(top, GstClockTime(max(0, presentAt) * 1e9))
        }
        if gst_element_set_state(top, GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE {
            let why = takeError() ?? "it would not start"
            close(drain: false)
            throw AudioOutputError("the sound output '\(sink)' cannot open: \(why)")
        }
        // autoaudiosink that found no sink that opens (no sound card, no sound server) plays
        // into a fake sink, with a warning: that is silence, and said so.
        if let fake = gst_bin_get_by_name(bin, "fake-audio-sink") {
            gst_object_unref(fake)
            let why = takeMessage(GST_MESSAGE_WARNING) ?? "none opens"
            close(drain: false)
            throw AudioOutputError("no sound device: autoaudiosink found no sound output that opens (\(why))")
        }
    }

    deinit { close(drain: false) }

    /// Pushes interleaved samples whose first is output sample `position`. A virtual clock's
    /// output fills a gap before it with silence; a real clock's skips it (a discontinuity).
    func push(_ samples: [Int16], at position: Int64, discontinuous: Bool) throws(AudioOutputError) {
        if let why = takeError() { throw AudioOutputError(why) }
        guard pipeline != nil, !samples.isEmpty else { return }
        var start = position
        var data = samples
        var discont = discontinuous
        if !realClock {
            // A gap before (the video's first spans had no sound yet) is filled with silence, up
            // to a span's bound (`AudioTimeline.maximumSpan`); a longer one is left a gap.
            if position > written, position - written <= Int64(AudioTimeline.maximumSpan) {
                data = [Int16](repeating: 0, count: Int(position - written) * DecodedAudio.channels) + data
                start = written
            } else if position != written {
                discont = true
            }
        }
        let frames = data.count / DecodedAudio.channels
        let rate = Double(AudioTimeline.sampleRate)
        let bytes = data.count * MemoryLayout<Int16>.size
        guard let buffer = gst_buffer_new_allocate(nil, gsize(bytes), nil) else { return }
        _ = data.withUnsafeBytes { gst_buffer_fill(buffer, 0, $0.baseAddress, gsize(bytes)) }
        let pts = GstClockTime((Double(start) / rate * 1e9).rounded())
        let end = GstClockTime((Double(start + Int64(frames)) / rate * 1e9).rounded())
        lamina_gst_buffer_stamp(buffer, pts, end - pts, discont ? 1 : 0)
        written = start + Int64(frames)
        // Takes the buffer over.
        if gst_app_src_push_buffer(source, buffer) != GST_FLOW_OK, let why = takeError() {
            throw AudioOutputError(why)
        }
    }

    /// The first error its bus holds, if any.
    private func takeError() -> String? { takeMessage(GST_MESSAGE_ERROR) }

    /// The text of the first error or warning (`type`) its bus holds, if any.
    private func takeMessage(_ type: GstMessageType) -> String? {
        guard pipeline != nil else { return nil }
        while let message = gst_bus_pop(bus) {
            defer { gst_message_unref(message) }
            if lamina_gst_message_type(message) == type {
                let text = lamina_gst_message_error_text(message)
                defer { g_free(text) }
                return text.map { String(cString: $0) } ?? "unknown GStreamer error"
            }
        }
        return nil
    }

    /// Stops it; `drain`: the end of the stream goes through first (a file sink's file is then
    /// complete: wavenc writes its header's sizes at the end), waited for two seconds at most
    /// (0.3 s with a real clock).
    func close(drain: Bool) {
        guard let p = pipeline else { return }
        pipeline = nil
        if drain {
            _ = gst_app_src_end_of_stream(source)
            let types = GstMessageType(rawValue: GST_MESSAGE_EOS.rawValue | GST_MESSAGE_ERROR.rawValue)
            // A virtual clock's output (a file, in tests) gets two seconds to write its end; a real
            // clock's holds only its lead, and the loop thread is not held up longer for it.
            let wait: GstClockTime = realClock ? 300_000_000 : 2_000_000_000
            if let message = gst_bus_timed_pop_filtered(bus, wait, types) { gst_message_unref(message) }
        }
        _ = gst_element_set_state(p, GST_STATE_NULL)
        gst_object_unref(source)
        gst_object_unref(bus)
        gst_object_unref(p)
    }
}
