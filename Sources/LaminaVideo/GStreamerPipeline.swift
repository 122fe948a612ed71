import CGStreamer
import Glibc
import LaminaCompositor

/// One video's GStreamer pipeline: its elements (playbin, or v4l2src for a camera, into
/// `videoconvert ! capsfilter ! appsink`), its bus, its state and seeking. It decides nothing:
/// `GStreamerDecoder` pulls its samples and reads its messages on the loop thread.
final class GStreamerPipeline {
    /// What the bus says that the decoder acts on (other messages are dropped).
    enum Message {
        case error(String)
        case endOfStream
        /// A state change finished: after the first, the preroll sample holds the first picture.
        case asyncDone
    }

    /// The top element; nil once closed.
    private var pipeline: UnsafeMutablePointer<GstElement>?
    private let sink: UnsafeMutablePointer<GstAppSink>
    /// The audio branch's app sink (files and URIs, unless `[audio] sink = "none"`).
    private let audioSink: UnsafeMutablePointer<GstAppSink>?
    private let bus: UnsafeMutablePointer<GstBus>
    /// A V4L2 camera's pipeline (v4l2src), not playbin.
    private let camera: Bool

    /// The pipeline for `uri` (resolved by `VideoSourcePolicy`), not started; every bus
    /// message writes `wakeup`. `planarYUV`: the sink also takes I420 and NV12 as they are.
    /// `audio`: playbin decodes the sound too, into a second app sink.
    init(uri: String, camera: Bool, planarYUV: Bool, audio: Bool, wakeup: Int32) throws(VideoOpenError) {
        var error: UnsafeMutablePointer<GError>?
        // Packed RGB layouts only; a source that already gives one of them passes through
        // untouched, dma-buf and all. Files: RGBA first (what videoconvert makes of anything
        // else, keeping a clip's alpha), and, where the renderer converts YUV (`planarYUV`),
        // I420 and NV12, which software and V4L2 hardware decoders give and which then pass through untouched
        // (videoconvert picks the format that loses least: I420 for I420, RGBA for a clip with
        // alpha). Cameras: the padded layouts first (their pictures are
        // opaque, and an opaque dma-buf is imported where one with alpha must be copied to be
        // premultiplied), BGRx first: one structure each, in order, because the order inside a
        // format list does not survive videoconvert's negotiation; BGRx is DRM's XRGB8888, the
        // format every display plane scans out, so a camera picture can go on an overlay plane.
        // Cameras are asked for at most 1920×1080: v4l2src otherwise takes the largest size a
        // camera offers (4K, at four times the bytes a frame, for a tile on a kiosk screen).
        let caps = camera ? ["BGRx", "RGBx", "BGRA", "RGBA"].map { "video/x-raw,format=\($0),width=[1,1920],height=[1,1080]" }.joined(separator: ";")
                          : "video/x-raw,format={RGBA,BGRx,BGRA,RGBx\(planarYUV ? ",I420,NV12" : "")}"
        let description = "videoconvert ! capsfilter caps=\"\(caps)\" ! appsink name=lamina-sink sync=false max-buffers=2 drop=false enable-last-sample=false"
        guard let bin = gst_parse_bin_from_description(description, 1, &error) else {
            let why = error.map { String(cString: $0.pointee.message) } ?? "unknown"
            if error != nil { g_error_free(error) }
            throw VideoOpenError("cannot build the video sink (\(why)); install gstreamer1.0-plugins-base")
        }
        let binElement = UnsafeMutableRawPointer(bin).assumingMemoryBound(to: GstElement.self)
        let binAsBin = UnsafeMutableRawPointer(bin).assumingMemoryBound(to: GstBin.self)
        guard let sinkElement = gst_bin_get_by_name(binAsBin, "lamina-sink") else {
            gst_object_unref(bin)
            throw VideoOpenError("the video sink has no app sink")
        }
        sink = UnsafeMutableRawPointer(sinkElement).assumingMemoryBound(to: GstAppSink.self)
        self.camera = camera
        let audioBin = audio && !camera ? Self.audioBranch() : nil
        audioSink = audioBin?.sink
        let top: UnsafeMutablePointer<GstElement>
        do {
            top = try Self.source(for: uri, camera: camera, into: binElement, audio: audioBin?.bin)
        } catch {
            gst_object_unref(sink)
            if let audioBin {
                gst_object_unref(audioBin.sink)
                gst_object_unref(audioBin.bin)
            }
            throw error
        }
        pipeline = top
        bus = gst_element_get_bus(top)
        // Wake the loop thread for every message; the messages themselves are popped there.
        gst_bus_set_sync_handler(bus, { _, _, data in
            wake(data)
            return GST_BUS_PASS
        }, wakeupContext(wakeup), nil)
    }

    deinit { close() }

    /// The pipeline that feeds `sink` (a bin ending in the app sink; taken over): `playbin` for
    /// files and network URIs, and for a V4L2 camera (`v4l2:///dev/video0`) `v4l2src` linked
    /// straight to it with its buffers exported as dma-bufs (`io-mode=dmabuf`), so that it
    /// negotiates a layout the sink takes as it is (behind playbin's decodebin it would pick
    /// its own, to be converted) and the renderer can show its buffers in place.
    private static func source(for uri: String, camera: Bool, into sink: UnsafeMutablePointer<GstElement>,
                               audio: UnsafeMutablePointer<GstElement>?) throws(VideoOpenError) -> UnsafeMutablePointer<GstElement> {
        if camera {
            guard let location = gst_uri_get_location(uri) else {
                gst_object_unref(sink)
                throw VideoOpenError("'\(uri)' names no V4L2 device")
            }
            let device = String(cString: location)
            g_free(location)
            guard let pipeline = gst_pipeline_new(nil), let camera = gst_element_factory_make("v4l2src", nil) else {
                gst_object_unref(sink)
                throw VideoOpenError("GStreamer has no v4l2src element (install gstreamer1.0-plugins-good)")
            }
            lamina_gst_set_string(camera, "device", device)
            lamina_gst_set_int(camera, "io-mode", 4)  // GST_V4L2_IO_DMABUF
            let bin = UnsafeMutableRawPointer(pipeline).assumingMemoryBound(to: GstBin.self)
            _ = gst_bin_add(bin, camera)
            _ = gst_bin_add(bin, sink)
            guard gst_element_link(camera, sink) != 0 else {
                gst_object_unref(pipeline)
                throw VideoOpenError("\(device): v4l2src does not link to the video sink")
            }
            return pipeline
        }
        guard let playbin = gst_element_factory_make("playbin", nil) else {
            gst_object_unref(sink)
            throw VideoOpenError("GStreamer has no playbin element (install gstreamer1.0-plugins-base)")
        }
        lamina_gst_set_string(playbin, "uri", uri)
        lamina_gst_set_object(playbin, "video-sink", sink)
        if let audio {
            // GST_PLAY_FLAG_VIDEO | GST_PLAY_FLAG_AUDIO: no text or visualisation branch, and no
            // soft volume (the output's volume element applies the video's volume).
            lamina_gst_set_object(playbin, "audio-sink", audio)
            lamina_gst_set_uint(playbin, "flags", 3)
        } else {
            // GST_PLAY_FLAG_VIDEO only: no audio, text or visualisation branch.
            lamina_gst_set_uint(playbin, "flags", 1)
        }
        return playbin
    }

    /// The audio branch: the sound as 16-bit stereo at 48 kHz into an app sink that, like the
    /// video's, does not synchronise (laminad pulls samples by media time). It holds up to 256
    /// buffers (seconds of sound) so that decoding goes on while the pictures are pulled; the
    /// decoder drains it whenever it waits for a picture, so it never holds up the video.
    private static func audioBranch() -> (bin: UnsafeMutablePointer<GstElement>, sink: UnsafeMutablePointer<GstAppSink>)? {
        var error: UnsafeMutablePointer<GError>?
        let description = "audioconvert ! audioresample ! capsfilter caps=\"\(AudioOutput.caps)\" ! appsink name=lamina-audio-sink sync=false max-buffers=256 drop=false enable-last-sample=false"
        guard let bin = gst_parse_bin_from_description(description, 1, &error) else {
            if error != nil { g_error_free(error) }
            return nil
        }
        let asBin = UnsafeMutableRawPointer(bin).assumingMemoryBound(to: GstBin.self)
        guard let sink = gst_bin_get_by_name(asBin, "lamina-audio-sink") else {
            gst_object_unref(bin)
            return nil
        }
        return (UnsafeMutableRawPointer(bin).assumingMemoryBound(to: GstElement.self),
                UnsafeMutableRawPointer(sink).assumingMemoryBound(to: GstAppSink.self))
    }

    /// Whether the pipeline is still open (not closed).
    var isOpen: Bool { pipeline != nil }

    /// Starts playing; false when the state change failed at once (the bus says why).
    func play() -> Bool {
        guard let p = pipeline else { return false }
        return gst_element_set_state(p, GST_STATE_PLAYING) != GST_STATE_CHANGE_FAILURE
    }

    /// Stops the pipeline and frees it, its bus and its sink (idempotent).
    func close() {
        guard let p = pipeline else { return }
        pipeline = nil
        _ = gst_element_set_state(p, GST_STATE_NULL)
        gst_bus_set_sync_handler(bus, nil, nil, nil)
        gst_object_unref(sink)
        if let audioSink { gst_object_unref(audioSink) }
        gst_object_unref(bus)
        gst_object_unref(p)
        // Threads GStreamer's task pool kept for reuse go now, not after its idle timeout.
        g_thread_pool_stop_unused_threads()
    }

    /// The bus's next message the decoder acts on, popping the others on the way; nil when
    /// the bus is empty or the pipeline closed.
    func nextMessage() -> Message? {
        guard pipeline != nil else { return nil }
        while let message = gst_bus_pop(bus) {
            defer { gst_message_unref(message) }
            let type = lamina_gst_message_type(message)
            if type == GST_MESSAGE_ERROR {
                let text = lamina_gst_message_error_text(message)
                defer { g_free(text) }
                return .error(text.map { String(cString: $0) } ?? "unknown GStreamer error")
            } else if type == GST_MESSAGE_EOS {
                return .endOfStream
            } else if type == GST_MESSAGE_ASYNC_DONE {
                return .asyncDone
            }
        }
        return nil
    }

    /// The size of the preroll sample's picture (the first), if the sink still holds it.
    func prerollSize() -> (width: Int, height: Int)? {
        guard pipeline != nil, let sample = gst_app_sink_try_pull_preroll(sink, 0) else { return nil }
        defer { gst_sample_unref(sample) }
        var w: Int32 = 0, h: Int32 = 0, stride: Int32 = 0
        guard let caps = gst_sample_get_caps(sample), lamina_gst_video_layout(caps, &w, &h, &stride) != 0 else { return nil }
        return (Int(w), Int(h))
    }

    /// The media's length in seconds, asked of the pipeline now (nil: not known, or closed).
    func duration() -> Double? {
        var length: gint64 = -1
        guard let p = pipeline, gst_element_query_duration(p, GST_FORMAT_TIME, &length) != 0, length > 0 else { return nil }
        return Double(length) / 1e9
    }

    /// A flushing, accurate seek to `time` seconds; whether GStreamer took it.
    func seek(to time: Double) -> Bool {
        guard let p = pipeline else { return false }
        let flags = GstSeekFlags(rawValue: GST_SEEK_FLAG_FLUSH.rawValue | GST_SEEK_FLAG_ACCURATE.rawValue)
        let ns: gint64 = time < 1e9 ? gint64(time * 1e9) : gint64(1e18)
        return gst_element_seek_simple(p, GST_FORMAT_TIME, flags, ns) != 0
    }

    /// The next decoded sample, waiting `seconds` at most (the caller unrefs it).
    func pullSample(waiting seconds: Double) -> OpaquePointer? {
        guard pipeline != nil else { return nil }
        return gst_app_sink_try_pull_sample(sink, GstClockTime(seconds * 1e9))
    }

    /// Whether there is an audio branch.
    var hasAudioBranch: Bool { audioSink != nil }

    /// Whether the pipeline is playbin (files and URIs), which may have sound; a camera's has none.
    var isPlaybin: Bool { !camera }

    /// Audio streams the media has (playbin's n-audio; 0 before they are known, and for a camera).
    var audioStreams: Int {
        guard let p = pipeline, !camera else { return 0 }
        return Int(lamina_gst_get_int(p, "n-audio"))
    }

    /// The next decoded sound sample, waiting `seconds` at most (the caller unrefs it).
    func pullAudio(waiting seconds: Double) -> OpaquePointer? {
        guard pipeline != nil, let audioSink else { return nil }
        return gst_app_sink_try_pull_sample(audioSink, GstClockTime(seconds * 1e9))
    }

    /// Whether the audio sink has given its last sample (or there is none).
    var audioAtEnd: Bool { pipeline == nil || audioSink.map { gst_app_sink_is_eos($0) != 0 } ?? true }

    /// Whether the sink has given its last sample (the stream's end reached it), or the
    /// pipeline is closed.
    var sinkAtEnd: Bool { pipeline == nil || gst_app_sink_is_eos(sink) != 0 }
}
