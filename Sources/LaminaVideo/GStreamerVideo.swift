import CGStreamer
import Glibc
import LaminaCore
import LaminaCompositor

/// GStreamer, initialised once for the process (the first decoder). Its pooled threads are not
/// kept idle (`g_thread_pool_set_max_unused_threads(0)`), so a closed decoder leaves no thread.
let gstreamerReady: Bool = {
    gst_init(nil, nil)
    g_thread_pool_set_max_unused_threads(0)
    return true
}()

/// The wake-up descriptor as a GStreamer callback's user data (plus one, so descriptor 0 is
/// not a null pointer): the callbacks are C function pointers and capture nothing.
func wakeupContext(_ wakeup: Int32) -> UnsafeMutableRawPointer? {
    UnsafeMutableRawPointer(bitPattern: Int(wakeup) + 1)
}

/// Writes the wake-up descriptor `wakeupContext` made into `context`, from any thread.
func wake(_ context: UnsafeMutableRawPointer?) {
    var one: UInt64 = 1
    _ = write(Int32(truncatingIfNeeded: Int(bitPattern: context) - 1), &one, 8)
}

/// Makes GStreamer decoders for laminad: the `VideoDecoding` laminad installs.
///
/// Each decoder is `playbin` (so any container and codec an installed plugin reads, from a
/// file or any URI GStreamer has a source for) into `videoconvert ! video/x-raw,format=RGBA ! appsink`
/// and, unless `[audio] sink = "none"`, its sound into a second app sink (`VideoSound`). The app
/// sink does not synchronise to a clock (`sync=false`) and holds at most a few frames, so
/// decoding runs ahead of what is shown by those frames and then waits: laminad pulls them as
/// its own clock, real or virtual, reaches them (`VideoDecoder.frame(at:wait:)`).
///
/// A decoder's parts: `VideoSourcePolicy` (which URIs and devices open, the open deadline),
/// `GStreamerPipeline` (the elements, bus, seeking and state), `GStreamerDecoder` (which picture
/// a media time shows), `StallWatch` (when a playing stream has stalled), `SampleConverter`
/// (samples into frames), `PackedLayout`/`PlanarLayout` (the pixel layouts the sink takes), and
/// for its sound `DecodedAudio` (samples by media time), `VideoSound` (volume, mute, why it is
/// silent) and `AudioOutput` (the pipeline into `[audio] sink`).
public final class GStreamerVideo: VideoDecoding {
    /// Written (eventfd) whenever a decoder's bus has a message: laminad watches it and then
    /// polls every decoder's events.
    public let wakeup: Int32
    /// The largest picture decoded, in pixels per side.
    public var maximumSide = 8192
    /// Frames decoded into system memory and into dma-buf memory, over every decoder.
    let counts = FrameCounts()
    /// Seconds (of real time) a source has to give its first picture: past it, a video that is
    /// still not ready (a server that accepts and never sends, a stalled stream) is an error
    /// (`[video] open_timeout`).
    public var openTimeout = 10.0
    /// Seconds of real time a playing video may go without the newer picture its media time
    /// needs (nothing decoded ahead, not at its end) before it is an error: a network stream
    /// that stopped sending mid-way (`[video] stall_timeout`; 0: never).
    public var stallTimeout = 10.0
    /// Whether files' planar YUV (I420) pictures come through as they are, for the renderer to
    /// convert (`[video] yuv`); otherwise `videoconvert` makes them RGBA. Cameras give packed RGB.
    public var planarYUV = false
    /// Where videos' sound goes (`[audio] sink`): a GStreamer bin description, such as
    /// `autoaudiosink` (the default), `alsasink device=hw:1,0`, `pulsesink` or
    /// `wavenc ! filesink location=/tmp/x.wav`; nil: no sound is decoded at all.
    public var audioSink: String? = "autoaudiosink"
    /// Sound outputs open now.
    let audioCounts = AudioCounts()

    /// GStreamer itself starts with the first video (`gst_init` scans the plugin registry), so
    /// a laminad that shows no video pays nothing for it; or at `start()`.
    public init() throws(VideoOpenError) {
        let fd = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
        guard fd >= 0 else { throw VideoOpenError("eventfd failed: errno \(errno)") }
        wakeup = fd
    }

    deinit { Glibc.close(wakeup) }

    /// Empties the wake-up counter (after its descriptor was readable).
    public func drainWakeup() {
        var value: UInt64 = 0
        _ = read(wakeup, &value, 8)
    }

    /// Starts GStreamer now rather than with the first video (`gst_init`, which loads the plugin
    /// registry, or scans every plugin when the registry is missing or out of date).
    public func start() {
        _ = gstreamerReady
    }

    public func open(uri: String) throws(VideoOpenError) -> any VideoDecoder {
        _ = gstreamerReady
        return try GStreamerDecoder(uri: try VideoSourcePolicy.resolve(uri), wakeup: wakeup, maximumSide: maximumSide, counts: counts,
                                    openTimeout: openTimeout, stallTimeout: stallTimeout, planarYUV: planarYUV,
                                    audioSink: audioSink, audioCounts: audioCounts)
    }

    /// `video.framesSystemMemory` and `video.framesDMABuf`: frames decoders gave in system
    /// memory (copied and uploaded) and in dma-buf memory (handed to the renderer to import);
    /// `video.framesYUV`: those in system memory that were planar YUV (the renderer converts
    /// them in a shader); `audio.outputs`: videos' sound outputs open now; `audio.sinkNone`: 1
    /// when `[audio] sink = "none"` (no sound is decoded).
    public var statistics: [(name: String, value: Double)] {
        [("video.framesSystemMemory", Double(counts.systemMemory)), ("video.framesDMABuf", Double(counts.dmabuf)),
         ("video.framesYUV", Double(counts.planar)), ("audio.outputs", Double(audioCounts.playing)),
         ("audio.sinkNone", audioSink == nil ? 1 : 0)]
    }

    public var uploadPath: String {
        // GStreamer's advice for importers: accept plain video/x-raw and look at each buffer's
        // memory (gst_is_dmabuf_memory), rather than ask for memory:DMABuf caps.
        "each frame's memory decides: a packed RGB frame in dma-buf memory (a hardware decoder's, or a V4L2 camera's, which laminad asks for dma-bufs) goes to the renderer to import in place; \(planarYUV ? "planar YUV 4:2:0 (I420 from software decoders, NV12 from V4L2 hardware decoders) in dma-buf memory goes to the renderer to import in place as an external image (its planes mapped and copied where the driver refuses), and in system memory is copied out as it is, uploaded as three planes and converted to RGB in the renderer's shader" : "planar YUV is converted to RGBA by videoconvert"); any other is converted to RGBA where needed, copied out of the decoder's buffer and uploaded"
    }
}

/// How many frames came in each kind of memory (loop thread only).
final class FrameCounts {
    var systemMemory = 0
    var dmabuf = 0
    var planar = 0
}
