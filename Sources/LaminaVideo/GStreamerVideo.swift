import CGStreamer
import Glibc
import LaminaCore
import LaminaServer

/// GStreamer, initialised once for the process (the first decoder). Its pooled threads are not
/// kept idle (`g_thread_pool_set_max_unused_threads(0)`), so a closed decoder leaves no thread.
private let gstreamerReady: Bool = {
    gst_init(nil, nil)
    g_thread_pool_set_max_unused_threads(0)
    return true
}()

/// Makes GStreamer decoders for laminad: the `VideoDecoding` laminad installs.
///
/// Each decoder is `playbin` (so any container and codec an installed plugin reads, from a
/// file or any URI GStreamer has a source for) with video only (no audio is decoded or played:
/// videos are always mute) into `videoconvert ! video/x-raw,format=RGBA ! appsink`. The app
/// sink does not synchronise to a clock (`sync=false`) and holds at most a few frames, so
/// decoding runs ahead of what is shown by those frames and then waits: laminad pulls them as
/// its own clock, real or virtual, reaches them (`VideoDecoder.frame(at:wait:)`).
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
        return try GStreamerDecoder(uri: try Self.resolve(uri), wakeup: wakeup, maximumSide: maximumSide, counts: counts,
                                    openTimeout: openTimeout, stallTimeout: stallTimeout, planarYUV: planarYUV)
    }

    /// `video.framesSystemMemory` and `video.framesDMABuf`: frames decoders gave in system
    /// memory (copied and uploaded) and in dma-buf memory (handed to the renderer to import);
    /// `video.framesYUV`: those in system memory that were planar YUV (the renderer converts
    /// them in a shader).
    public var statistics: [(name: String, value: Double)] {
        [("video.framesSystemMemory", Double(counts.systemMemory)), ("video.framesDMABuf", Double(counts.dmabuf)),
         ("video.framesYUV", Double(counts.planar))]
    }

    public var uploadPath: String {
        // GStreamer's advice for importers: accept plain video/x-raw and look at each buffer's
        // memory (gst_is_dmabuf_memory), rather than ask for memory:DMABuf caps.
        "each frame's memory decides: a packed RGB frame in dma-buf memory (a hardware decoder's, or a V4L2 camera's, which laminad asks for dma-bufs) goes to the renderer to import in place; \(planarYUV ? "planar YUV 4:2:0 (I420 from software decoders, NV12 from V4L2 hardware decoders) in dma-buf memory goes to the renderer to import in place as an external image (its planes mapped and copied where the driver refuses), and in system memory is copied out as it is, uploaded as three planes and converted to RGB in the renderer's shader" : "planar YUV is converted to RGBA by videoconvert"); any other is converted to RGBA where needed, copied out of the decoder's buffer and uploaded"
    }

    /// A URI GStreamer can open: an absolute path becomes a file URI; a file (by path or
    /// file URI) must be a regular file (a FIFO would block the loop thread in `open`); any
    /// other scheme needs a GStreamer source element.
    static func resolve(_ text: String) throws(VideoOpenError) -> String {
        _ = gstreamerReady
        guard !text.isEmpty, text.utf8.count <= 4096, !text.utf8.contains(0) else {
            throw VideoOpenError("the video's URI is empty, longer than 4096 bytes or holds a NUL byte")
        }
        var path: String?
        var uri = text
        if text.hasPrefix("/") {
            path = text
        } else {
            guard gst_uri_is_valid(text) != 0 else {
                throw VideoOpenError("'\(text)' is neither an absolute path nor a URI (scheme:…)")
            }
            guard let protocolName = gst_uri_get_protocol(text) else { throw VideoOpenError("'\(text)' has no scheme") }
            let scheme = String(cString: protocolName)
            g_free(protocolName)
            if scheme == "file" {
                guard let location = gst_uri_get_location(text) else { throw VideoOpenError("'\(text)' names no file") }
                path = String(cString: location)
                g_free(location)
            } else if scheme == "v4l2" {
                // v4l2src opens the device in the state change laminad's loop thread makes: a
                // FIFO or anything else that is not a character device could block it there.
                guard let location = gst_uri_get_location(text) else { throw VideoOpenError("'\(text)' names no V4L2 device") }
                let device = String(cString: location)
                g_free(location)
                var info = stat()
                guard stat(device, &info) == 0 else { throw VideoOpenError("\(device): \(String(cString: strerror(errno)))") }
                guard info.st_mode & S_IFMT == S_IFCHR else {
                    throw VideoOpenError("\(device) is not a V4L2 device (a character device such as /dev/video0)")
                }
            } else if gst_uri_protocol_is_supported(GST_URI_SRC, scheme) == 0 {
                throw VideoOpenError("'\(text)': GStreamer has no source for URIs of scheme '\(scheme)'")
            }
        }
        if let path {
            var info = stat()
            guard stat(path, &info) == 0 else {
                throw VideoOpenError("\(path): \(String(cString: strerror(errno)))")
            }
            guard info.st_mode & S_IFMT == S_IFREG else { throw VideoOpenError("\(path) is not a regular file") }
            guard access(path, R_OK) == 0 else { throw VideoOpenError("\(path): \(String(cString: strerror(errno)))") }
            if text.hasPrefix("/") {
                var error: UnsafeMutablePointer<GError>?
                guard let u = gst_filename_to_uri(path, &error) else {
                    defer { if error != nil { g_error_free(error) } }
                    throw VideoOpenError("\(path): \(error.map { String(cString: $0.pointee.message) } ?? "not a file name")")
                }
                uri = String(cString: u)
                g_free(u)
            }
        }
        return uri
    }
}

/// How many frames came in each kind of memory (loop thread only).
final class FrameCounts {
    var systemMemory = 0
    var dmabuf = 0
    var planar = 0
}

/// Holds a decoded sample (and so its buffer and dma-buf descriptors) while its picture is used.
final class SampleKeeper {
    let sample: OpaquePointer
    init(_ sample: OpaquePointer) {
        self.sample = sample
        gst_sample_ref(sample)
    }
    deinit { gst_sample_unref(sample) }
}

/// The planar YUV 4:2:0 layouts the app sink takes where the renderer converts YUV: I420
/// (three planes, what software decoders give) and NV12 (luma, then Cb and Cr interleaved:
/// what V4L2 hardware decoders give). Both become a `PlanarPicture` with separate planes.
enum PlanarLayout {
    case i420, nv12

    init?(_ format: GstVideoFormat) {
        switch format {
        case GST_VIDEO_FORMAT_I420: self = .i420
        case GST_VIDEO_FORMAT_NV12: self = .nv12
        default: return nil
        }
    }

    var planeCount: Int { self == .i420 ? 3 : 2 }

    /// The DRM fourcc of the layout (I420 is DRM's YU12).
    var fourcc: UInt32 { self == .i420 ? DRMFourCC.yuv420 : DRMFourCC.nv12 }

    /// The picture in `memory`, each plane at its offset with its stride (the decoder's
    /// numbers, checked against the memory before a byte is read: nil where a plane reaches
    /// past it or a stride is shorter than a row), rows packed; NV12's chroma de-interleaved.
    func picture(_ memory: UnsafeRawBufferPointer, width: Int, height: Int, offsets: [Int], strides: [Int],
                 matrix: PlanarPicture.Matrix, fullRange: Bool) -> PlanarPicture? {
        guard let base = memory.baseAddress, width > 0, height > 0, offsets.count >= planeCount, strides.count >= planeCount else { return nil }
        let cw = (width + 1) / 2, ch = (height + 1) / 2
        /// The rows of the plane at `index`: `rowBytes` bytes each, `rows` of them.
        func rows(_ index: Int, rowBytes: Int, rows: Int, _ body: (UnsafeRawPointer, Int) -> Void) -> Bool {
            let start = offsets[index], stride = strides[index]
            guard start >= 0, stride >= rowBytes, start <= memory.count,
                  rows <= 1 || stride <= (memory.count - start) / (rows - 1),
                  start + stride * (rows - 1) + rowBytes <= memory.count else { return false }
            for row in 0..<rows { body(base + start + row * stride, row) }
            return true
        }
        var y = [UInt8](repeating: 0, count: width * height)
        var u = [UInt8](repeating: 0, count: cw * ch), v = [UInt8](repeating: 0, count: cw * ch)
        let lumaCopied = y.withUnsafeMutableBytes { out in
            rows(0, rowBytes: width, rows: height) { row, r in (out.baseAddress! + r * width).copyMemory(from: row, byteCount: width) }
        }
        guard lumaCopied else { return nil }
        switch self {
        case .i420:
            let copied = u.withUnsafeMutableBytes { uo in
                v.withUnsafeMutableBytes { vo in
                    rows(1, rowBytes: cw, rows: ch) { row, r in (uo.baseAddress! + r * cw).copyMemory(from: row, byteCount: cw) }
                        && rows(2, rowBytes: cw, rows: ch) { row, r in (vo.baseAddress! + r * cw).copyMemory(from: row, byteCount: cw) }
                }
            }
            guard copied else { return nil }
        case .nv12:
            let copied = u.withUnsafeMutableBufferPointer { uo in
                v.withUnsafeMutableBufferPointer { vo in
                    rows(1, rowBytes: cw * 2, rows: ch) { row, r in
                        let pairs = row.assumingMemoryBound(to: UInt8.self)
                        for i in 0..<cw {
                            uo[r * cw + i] = pairs[2 * i]
                            vo[r * cw + i] = pairs[2 * i + 1]
                        }
                    }
                }
            }
            guard copied else { return nil }
        }
        return PlanarPicture(width: width, height: height, luma: y, cb: u, cr: v, matrix: matrix, fullRange: fullRange)
    }
}

/// The packed 8-bit RGB layouts the app sink takes: where R, G and B lie in a pixel, whether
/// the fourth byte is alpha, and the DRM fourcc of the layout.
struct PackedLayout {
    var red: Int, blue: Int, hasAlpha: Bool, fourcc: UInt32

    init?(_ format: GstVideoFormat) {
        switch format {
        case GST_VIDEO_FORMAT_RGBA: self.init(red: 0, blue: 2, hasAlpha: true, fourcc: DRMFourCC.abgr8888)
        case GST_VIDEO_FORMAT_RGBx: self.init(red: 0, blue: 2, hasAlpha: false, fourcc: DRMFourCC.xbgr8888)
        case GST_VIDEO_FORMAT_BGRA: self.init(red: 2, blue: 0, hasAlpha: true, fourcc: DRMFourCC.argb8888)
        case GST_VIDEO_FORMAT_BGRx: self.init(red: 2, blue: 0, hasAlpha: false, fourcc: DRMFourCC.xrgb8888)
        default: return nil
        }
    }

    /// Whether every RGBA pixel's alpha is 255: two pixels a load (a byte loop cost a 720p
    /// video's decoding thread a tenth of laminad's time).
    static func allOpaque(_ pixels: UnsafeRawBufferPointer) -> Bool {
        let alphas: UInt64 = 0xFF00_0000_FF00_0000
        let pairs = pixels.count / 8
        var i = 0
        while i < pairs {
            if pixels.loadUnaligned(fromByteOffset: i * 8, as: UInt64.self) & alphas != alphas { return false }
            i += 1
        }
        var k = pairs * 8 + 3
        while k < pixels.count {
            if pixels[k] != 255 { return false }
            k += 4
        }
        return true
    }

    /// The layout with its fourth byte taken as padding (a camera's pictures are opaque: V4L2
    /// fills the alpha byte with a constant, vivid's `alpha_component` control, not image data).
    var opaque: PackedLayout {
        guard hasAlpha else { return self }
        return PackedLayout(red: red, blue: blue, hasAlpha: false, fourcc: red == 0 ? DRMFourCC.xbgr8888 : DRMFourCC.xrgb8888)
    }

    init(red: Int, blue: Int, hasAlpha: Bool, fourcc: UInt32) {
        self.red = red
        self.blue = blue
        self.hasAlpha = hasAlpha
        self.fourcc = fourcc
    }

    /// `height` rows of `width` pixels from `data` (`rowBytes` apart) as premultiplied RGBA,
    /// and whether every one is opaque.
    func bitmapAndOpacity(_ data: UnsafeRawPointer, width: Int, height: Int, rowBytes: Int) -> (bitmap: Bitmap, opaque: Bool) {
        var bytes = [UInt8](repeating: 0, count: width * height * 4)
        var translucent = false
        bytes.withUnsafeMutableBytes { out in
            if red == 0 {
                for row in 0..<height {
                    (out.baseAddress! + row * width * 4).copyMemory(from: data + row * rowBytes, byteCount: width * 4)
                }
            } else {
                for row in 0..<height {
                    let source = data + row * rowBytes
                    var o = row * width * 4
                    for col in 0..<width {
                        out[o] = source.load(fromByteOffset: col * 4 + 2, as: UInt8.self)
                        out[o + 1] = source.load(fromByteOffset: col * 4 + 1, as: UInt8.self)
                        out[o + 2] = source.load(fromByteOffset: col * 4, as: UInt8.self)
                        out[o + 3] = source.load(fromByteOffset: col * 4 + 3, as: UInt8.self)
                        o += 4
                    }
                }
            }
            if !hasAlpha {
                // The fourth byte is padding: opaque.
                for i in stride(from: 3, to: out.count, by: 4) { out[i] = 255 }
                return
            }
            translucent = !Self.allOpaque(UnsafeRawBufferPointer(out))
            // The renderer takes premultiplied pixels; decoders give straight alpha.
            if translucent {
                for i in stride(from: 0, to: out.count, by: 4) where out[i + 3] != 255 {
                    let a = UInt32(out[i + 3])
                    for c in 0..<3 { out[i + c] = UInt8((UInt32(out[i + c]) * a + 127) / 255) }
                }
            }
        }
        var bitmap = Bitmap(width: 0, height: 0)
        bitmap.width = width
        bitmap.height = height
        bitmap.bytes = bytes
        return (bitmap, !translucent)
    }
}

/// One playbin pipeline pulled by the loop thread.
final class GStreamerDecoder: VideoDecoder {
    private var pipeline: UnsafeMutablePointer<GstElement>?
    private let sink: UnsafeMutablePointer<GstAppSink>
    private let bus: UnsafeMutablePointer<GstBus>
    private let maximumSide: Int
    private var events: [VideoDecoderEvent] = []
    /// The frame shown last, and one pulled that is not due yet.
    private var current: VideoFrame?
    private var pending: VideoFrame?
    /// After a seek to this time, the first frame pulled is the one that covers it.
    private var seekTarget: Double?
    private var announcedReady = false
    /// The media's length, once known.
    private var duration: Double?
    private var endOfStream = false
    private var failed = false
    private let counts: FrameCounts
    /// A V4L2 camera: its pictures are opaque whatever their layout says.
    private let isCamera: Bool
    private let uri: String
    /// When (monotonic seconds) a source that gave no picture yet is given up, and the system
    /// clock's wait that wakes the loop thread then (GStreamer may post nothing at all).
    private let openTimeout: Double
    private let openDeadline: Double
    private var openAlarm: (clock: UnsafeMutablePointer<GstClock>, id: GstClockID)?
    /// `GStreamerVideo.stallTimeout`, and since when (monotonic seconds) the media time has
    /// wanted a picture newer than the one shown with none decoded ahead (nil: pictures keep up).
    private let stallTimeout: Double
    private var starvedSince: Double?
    /// When (monotonic seconds) the last picture was asked for, and for which media time.
    private var lastWatched = (time: 0.0, media: -Double.infinity)

    init(uri: String, wakeup: Int32, maximumSide: Int, counts: FrameCounts, openTimeout: Double, stallTimeout: Double,
         planarYUV: Bool) throws(VideoOpenError) {
        self.stallTimeout = stallTimeout
        self.maximumSide = maximumSide
        self.counts = counts
        isCamera = Self.isCamera(uri)
        self.uri = uri
        self.openTimeout = openTimeout
        openDeadline = Self.monotonic() + openTimeout
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
        let caps = isCamera ? ["BGRx", "RGBx", "BGRA", "RGBA"].map { "video/x-raw,format=\($0),width=[1,1920],height=[1,1080]" }.joined(separator: ";")
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
        let top: UnsafeMutablePointer<GstElement>
        do {
            top = try Self.source(for: uri, into: binElement)
        } catch {
            gst_object_unref(sink)
            throw error
        }
        pipeline = top
        bus = gst_element_get_bus(top)
        // Wake the loop thread for every message; the messages themselves are popped there.
        gst_bus_set_sync_handler(bus, { _, _, data in
            var one: UInt64 = 1
            _ = write(Int32(truncatingIfNeeded: Int(bitPattern: data) - 1), &one, 8)
            return GST_BUS_PASS
        }, UnsafeMutableRawPointer(bitPattern: Int(wakeup) + 1), nil)
        // The system clock's own thread writes the wake-up at the deadline, so the loop thread
        // looks (pollBus) even when the source stays silent and the bus with it.
        if let clock = gst_system_clock_obtain() {
            let at = gst_clock_get_time(clock) &+ GstClockTime(max(0, openTimeout) * 1e9)
            if let id = gst_clock_new_single_shot_id(clock, at) {
                let armed = gst_clock_id_wait_async(id, { _, _, _, data in
                    var one: UInt64 = 1
                    _ = write(Int32(truncatingIfNeeded: Int(bitPattern: data) - 1), &one, 8)
                    return 1
                }, UnsafeMutableRawPointer(bitPattern: Int(wakeup) + 1), nil)
                if armed == GST_CLOCK_OK { openAlarm = (clock, id) } else { gst_clock_id_unref(id); gst_object_unref(clock) }
            } else {
                gst_object_unref(clock)
            }
        }
        if gst_element_set_state(top, GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE {
            pollBus()
            if !failed { events.append(.error("\(uri): GStreamer could not start playing it")) }
            failed = true
        }
    }

    deinit { close() }

    /// A V4L2 device URI (`v4l2:///dev/video0`).
    private static func isCamera(_ uri: String) -> Bool {
        guard let name = gst_uri_get_protocol(uri) else { return false }
        defer { g_free(name) }
        return String(cString: name) == "v4l2"
    }

    /// The pipeline that feeds `sink` (a bin ending in the app sink; taken over): `playbin` for
    /// files and network URIs, and for a V4L2 camera (`v4l2:///dev/video0`) `v4l2src` linked
    /// straight to it with its buffers exported as dma-bufs (`io-mode=dmabuf`), so that it
    /// negotiates a layout the sink takes as it is (behind playbin's decodebin it would pick
    /// its own, to be converted) and the renderer can show its buffers in place.
    private static func source(for uri: String, into sink: UnsafeMutablePointer<GstElement>) throws(VideoOpenError) -> UnsafeMutablePointer<GstElement> {
        if isCamera(uri) {
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
        // GST_PLAY_FLAG_VIDEO only: no audio, text or visualisation branch.
        lamina_gst_set_uint(playbin, "flags", 1)
        return playbin
    }

    /// Stops the open deadline's wait (the first picture came, or the decoder is closing).
    private func disarmOpenAlarm() {
        guard let alarm = openAlarm else { return }
        openAlarm = nil
        gst_clock_id_unschedule(alarm.id)
        gst_clock_id_unref(alarm.id)
        gst_object_unref(alarm.clock)
    }

    func close() {
        disarmOpenAlarm()
        guard let p = pipeline else { return }
        pipeline = nil
        _ = gst_element_set_state(p, GST_STATE_NULL)
        gst_bus_set_sync_handler(bus, nil, nil, nil)
        gst_object_unref(sink)
        gst_object_unref(bus)
        gst_object_unref(p)
        // Threads GStreamer's task pool kept for reuse go now, not after its idle timeout.
        g_thread_pool_stop_unused_threads()
        current = nil
        pending = nil
    }

    func takeEvents() -> [VideoDecoderEvent] {
        pollBus()
        defer { events.removeAll() }
        return events
    }

    private func pollBus() {
        guard let p = pipeline else { return }
        while let message = gst_bus_pop(bus) {
            defer { gst_message_unref(message) }
            let type = lamina_gst_message_type(message)
            if type == GST_MESSAGE_ERROR {
                guard !failed else { continue }
                failed = true
                let text = lamina_gst_message_error_text(message)
                events.append(.error(text.map { String(cString: $0) } ?? "unknown GStreamer error"))
                g_free(text)
            } else if type == GST_MESSAGE_EOS {
                if !endOfStream { events.append(.ended) }
                endOfStream = true
            } else if type == GST_MESSAGE_ASYNC_DONE, !announcedReady, !failed {
                announceReady(p)
            }
        }
        if !announcedReady, !failed, Self.monotonic() >= openDeadline {
            failed = true
            disarmOpenAlarm()
            events.append(.error("\(uri): no picture within \(Self.seconds(openTimeout)) s of opening it (the source did not answer, or sent nothing to decode); laminad gives a source [video] open_timeout seconds"))
        }
    }

    private static func seconds(_ s: Double) -> String {
        s == s.rounded() && abs(s) < 1e9 ? String(Int(s)) : String(s)
    }

    /// The first picture's size (from the preroll sample, or from the first frame pulled when
    /// the loop thread took it first) and the media's length: the ready event, once.
    private func announceReady(_ p: UnsafeMutablePointer<GstElement>) {
        guard let sample = gst_app_sink_try_pull_preroll(sink, 0) else { return }
        defer { gst_sample_unref(sample) }
        var w: Int32 = 0, h: Int32 = 0, stride: Int32 = 0
        guard let caps = gst_sample_get_caps(sample), lamina_gst_video_layout(caps, &w, &h, &stride) != 0 else { return }
        announceReady(width: Int(w), height: Int(h))
    }

    private func announceReady(width: Int, height: Int) {
        guard !announcedReady else { return }
        announcedReady = true
        disarmOpenAlarm()
        duration = queryDuration()
        events.append(.ready(width: width, height: height, duration: duration))
    }

    func frame(at mediaTime: Double, wait: Double) -> VideoFrame? {
        guard pipeline != nil, mediaTime.isFinite else { return current }
        let deadline = monotonic() + max(0, wait)
        if current == nil, pending == nil { pending = pull(until: deadline) }
        if let shown = current ?? pending {
            // Behind the frame shown (a loop, a seek back), or further ahead than decoding
            // through would be worth: seek, and take the first frame that arrives. While a seek
            // is in flight the picture shown is from before it: what counts is where it goes,
            // so a loop's wrap does not seek again at every frame until one arrives (with a
            // real clock nothing waits, and a flushing seek each frame never let one arrive).
            let reference = seekTarget ?? shown.time
            let behind = mediaTime < reference - 1e-6
            let farAhead = mediaTime > reference + 2 && (pending == nil || pending!.time < mediaTime - 2)
            if behind || farAhead {
                // Past the end, the last frame: the greatest presentation time before it.
                let end = queryDuration().map { max(0, $0 - 0.001) } ?? .infinity
                current = shown
                seek(to: min(max(0, mediaTime), end))
            }
        }
        while true {
            if pending == nil { pending = pull(until: deadline) }
            guard let next = pending else { break }
            if seekTarget != nil || current == nil || next.time <= mediaTime + 1e-6 {
                current = next
                pending = nil
                seekTarget = nil
                starvedSince = nil  // a new picture: a decoder slower than the media is not a stall
            } else {
                break
            }
        }
        watchForStall(wanting: mediaTime)
        return current
    }

    /// A playing video whose media time moves past the picture shown, with nothing decoded
    /// ahead and the stream not at its end, is starving; past `stallTimeout` seconds of that
    /// with no new picture at all it is an error event (the decoder shows no further frames),
    /// so a client can open the stream again. A paused video asks for the same time again and
    /// never starves; a slideshow has its next picture decoded ahead; calls far apart (frames
    /// not drawn for a while) start the count again. Cameras are exempt: a capture card without
    /// a signal sends nothing until it has one again.
    private func watchForStall(wanting mediaTime: Double) {
        let now = monotonic()
        let moved = mediaTime > lastWatched.media + 1e-9
        let gap = now - lastWatched.time
        lastWatched = (now, mediaTime)
        let starving = stallTimeout > 0 && !isCamera && announcedReady && !failed && !endOfStream && pending == nil && moved
            && (seekTarget != nil || current.map { mediaTime > $0.time + 1e-3 } ?? true) && gst_app_sink_is_eos(sink) == 0
        guard starving else {
            starvedSince = nil
            return
        }
        guard let since = starvedSince, gap <= min(1, stallTimeout / 2) else {
            starvedSince = now
            return
        }
        if now - since >= stallTimeout {
            failed = true
            let shown = current.map { " after the picture at \(Self.seconds(($0.time * 1000).rounded() / 1000)) s" } ?? ""
            events.append(.error("\(uri): no new picture for \(Self.seconds(stallTimeout)) s while playing\(shown) (the stream stalled); laminad gives a playing stream [video] stall_timeout seconds"))
        }
    }

    /// The media's length: from the ready event, or asked of the pipeline now.
    private func queryDuration() -> Double? {
        if let duration { return duration }
        var length: gint64 = -1
        guard let p = pipeline, gst_element_query_duration(p, GST_FORMAT_TIME, &length) != 0, length > 0 else { return nil }
        return Double(length) / 1e9
    }

    private func seek(to time: Double) {
        guard let p = pipeline, !failed else { return }
        let flags = GstSeekFlags(rawValue: GST_SEEK_FLAG_FLUSH.rawValue | GST_SEEK_FLAG_ACCURATE.rawValue)
        let ns: gint64 = time < 1e9 ? gint64(time * 1e9) : gint64(1e18)
        if gst_element_seek_simple(p, GST_FORMAT_TIME, flags, ns) != 0 {
            pending = nil
            seekTarget = time
            endOfStream = false
            starvedSince = nil  // the wait for the seek's first picture starts now
        }
    }

    /// The next decoded frame, waiting until `deadline` (monotonic seconds) at most; checks the
    /// bus between short waits so an error ends the wait.
    private func pull(until deadline: Double) -> VideoFrame? {
        while true {
            pollBus()
            if failed { return nil }
            let left = deadline - monotonic()
            let slice = left > 0 ? min(left, 0.05) : 0
            guard let sample = gst_app_sink_try_pull_sample(sink, GstClockTime(slice * 1e9)) else {
                if gst_app_sink_is_eos(sink) != 0 || left <= 0 { return nil }
                continue
            }
            defer { gst_sample_unref(sample) }
            guard let frame = convert(sample) else { return nil }
            // A frame decoded before a flushing seek took effect: not the one asked for.
            if let target = seekTarget, frame.time < target - 0.5 { continue }
            return frame
        }
    }

    private func convert(_ sample: OpaquePointer) -> VideoFrame? {
        var w: Int32 = 0, h: Int32 = 0, rowStride: Int32 = 0
        guard let caps = gst_sample_get_caps(sample), lamina_gst_video_layout(caps, &w, &h, &rowStride) != 0,
              let buffer = gst_sample_get_buffer(sample) else { return nil }
        let format = lamina_gst_video_format(caps)
        if let planar = PlanarLayout(format) { return self.planar(sample, caps, buffer, layout: planar, width: Int(w), height: Int(h)) }
        guard let packed = PackedLayout(format) else { return nil }
        let layout = isCamera ? packed.opaque : packed
        let width = Int(w), height = Int(h)
        var rowBytes = Int(rowStride), offset = 0
        var metaOffset: gsize = 0, metaStride: gint = 0
        if lamina_gst_video_meta_plane(buffer, &metaOffset, &metaStride) != 0 {
            rowBytes = Int(metaStride)
            // A plane offset no buffer could have (past 2 GiB) is refused, not added up.
            offset = metaOffset <= gsize(Int32.max) ? Int(metaOffset) : -1
        }
        guard width > 0, height > 0, width <= maximumSide, height <= maximumSide, rowBytes >= width * 4, offset >= 0 else {
            if !failed {
                failed = true
                events.append(.error("the video's pictures are \(w)×\(h) (stride \(rowBytes)); laminad shows at most \(maximumSide)×\(maximumSide)"))
            }
            return nil
        }
        let pts = lamina_gst_buffer_pts(buffer)
        let time: Double = pts == lamina_gst_clock_time_none() ? (pending?.time ?? current?.time ?? 0) : Double(pts) / 1e9
        announceReady(width: width, height: height)
        // In dma-buf memory when one dma-buf's memory holds the picture, first byte to last (the
        // same test as a YUV frame's planes).
        var fd: gint = -1
        var at: gsize = 0
        if lamina_gst_dmabuf_at(buffer, gsize(offset), gsize(rowBytes * (height - 1) + width * 4), &fd, &at) != 0 {
            if at <= gsize(Int32.max) {
                counts.dmabuf += 1
                let keeper = SampleKeeper(sample)
                let plane = DMABufPicture.Plane(fd: fd, offset: Int(at), pitch: rowBytes)
                let picture = DMABufPicture(width: width, height: height, fourcc: layout.fourcc, modifier: nil, planes: [plane],
                                            hasAlpha: layout.hasAlpha, keeper: keeper) {
                    Self.copy(gst_sample_get_buffer(keeper.sample), layout: layout, width: width, height: height,
                              offset: offset, rowBytes: rowBytes)?.bitmap
                }
                return VideoFrame(dmabuf: picture, time: time)
            }
        }
        guard let copied = Self.copy(buffer, layout: layout, width: width, height: height, offset: offset, rowBytes: rowBytes) else {
            return nil
        }
        counts.systemMemory += 1
        return VideoFrame(bitmap: copied.bitmap, time: time, isOpaque: copied.opaque)
    }

    /// A planar YUV frame (I420, NV12) with the colour matrix and range its caps declare. In
    /// dma-buf memory (a V4L2 hardware decoder's NV12) it goes to the renderer as it is, to be
    /// imported in place (or its planes mapped and copied where the renderer cannot); in system
    /// memory its planes are copied out as they are (rows packed).
    private func planar(_ sample: OpaquePointer, _ caps: UnsafeMutablePointer<GstCaps>, _ buffer: UnsafeMutablePointer<GstBuffer>,
                        layout: PlanarLayout, width: Int, height: Int) -> VideoFrame? {
        guard width > 0, height > 0, width <= maximumSide, height <= maximumSide else {
            if !failed {
                failed = true
                events.append(.error("the video's pictures are \(width)×\(height); laminad shows at most \(maximumSide)×\(maximumSide)"))
            }
            return nil
        }
        var offsets = [gsize](repeating: 0, count: 4)
        var strides = [gint](repeating: 0, count: 4)
        var matrixCode: gint = 0, fullRange: gint = 0
        let planes = lamina_gst_video_planes(caps, buffer, &offsets, &strides, &matrixCode, &fullRange)
        guard Int(planes) == layout.planeCount else { return nil }
        let pts = lamina_gst_buffer_pts(buffer)
        let time: Double = pts == lamina_gst_clock_time_none() ? (pending?.time ?? current?.time ?? 0) : Double(pts) / 1e9
        announceReady(width: width, height: height)
        let matrix: PlanarPicture.Matrix = matrixCode == 1 ? .bt709 : matrixCode == 2 ? .bt2020 : .bt601
        // Offsets past 2 GiB are refused (-1), not added up.
        let planeOffsets = offsets.prefix(layout.planeCount).map { $0 <= gsize(Int32.max) ? Int($0) : -1 }
        let planeStrides = strides.prefix(layout.planeCount).map(Int.init)
        if let picture = Self.dmabuf(sample, buffer, layout: layout, width: width, height: height, offsets: planeOffsets,
                                     strides: planeStrides, matrix: matrix, fullRange: fullRange != 0) {
            counts.dmabuf += 1
            counts.planar += 1
            return VideoFrame(dmabuf: picture, time: time)
        }
        guard let picture = Self.copyPlanes(buffer, layout: layout, width: width, height: height, offsets: planeOffsets,
                                            strides: planeStrides, matrix: matrix, fullRange: fullRange != 0) else { return nil }
        counts.systemMemory += 1
        counts.planar += 1
        return VideoFrame(planar: picture, time: time)
    }

    /// The planes mapped and copied out (`PlanarLayout.picture`); nil when the buffer cannot be
    /// mapped or a plane does not fit in it.
    private static func copyPlanes(_ buffer: UnsafeMutablePointer<GstBuffer>?, layout: PlanarLayout, width: Int, height: Int,
                                   offsets: [Int], strides: [Int], matrix: PlanarPicture.Matrix, fullRange: Bool) -> PlanarPicture? {
        guard let buffer else { return nil }
        var map = GstMapInfo()
        guard gst_buffer_map(buffer, &map, GST_MAP_READ) != 0 else { return nil }
        defer { gst_buffer_unmap(buffer, &map) }
        guard let data = map.data else { return nil }
        return layout.picture(UnsafeRawBufferPointer(start: data, count: Int(map.size)), width: width, height: height,
                              offsets: offsets, strides: strides, matrix: matrix, fullRange: fullRange)
    }

    /// The frame as a YUV picture in dma-buf memory, when every plane lies whole in one dma-buf
    /// memory (its first byte to the last byte of its last row; each plane's descriptor and
    /// offset in it found from that range) and each stride holds a row, with a copy of its
    /// planes for a renderer that cannot import it; nil otherwise (the planes are then mapped
    /// and copied, which checks them again). `offsets` are the planes' in the buffer (-1: past
    /// what is believed).
    static func dmabuf(_ sample: OpaquePointer, _ buffer: UnsafeMutablePointer<GstBuffer>, layout: PlanarLayout, width: Int,
                       height: Int, offsets: [Int], strides: [Int], matrix: PlanarPicture.Matrix, fullRange: Bool) -> DMABufPicture? {
        guard offsets.count >= layout.planeCount, strides.count >= layout.planeCount else { return nil }
        let chroma = (width: (width + 1) / 2, height: (height + 1) / 2)
        var planes: [DMABufPicture.Plane] = []
        for i in 0..<layout.planeCount {
            let rowBytes = i == 0 ? width : layout == .nv12 ? chroma.width * 2 : chroma.width
            let rows = i == 0 ? height : chroma.height
            let stride = strides[i], start = offsets[i]
            // Bounded sizes (pictures are at most `maximumSide` a side; strides past 2^24 are
            // refused), so the extent below cannot overflow.
            guard start >= 0, stride >= rowBytes, stride <= 1 << 24 else { return nil }
            let extent = stride * (rows - 1) + rowBytes
            var fd: gint = -1
            var at: gsize = 0
            guard lamina_gst_dmabuf_at(buffer, gsize(start), gsize(extent), &fd, &at) != 0, at <= gsize(Int32.max) else { return nil }
            planes.append(DMABufPicture.Plane(fd: fd, offset: Int(at), pitch: stride))
        }
        let held = SampleKeeper(sample)
        return DMABufPicture(width: width, height: height, fourcc: layout.fourcc, modifier: nil, planes: planes, matrix: matrix,
                             fullRange: fullRange, keeper: held) {
            copyPlanes(gst_sample_get_buffer(held.sample), layout: layout, width: width, height: height, offsets: offsets,
                       strides: strides, matrix: matrix, fullRange: fullRange)
        }
    }

    /// The buffer's pixels, mapped and copied out as premultiplied RGBA (nil: it cannot be
    /// mapped or is too small for the layout).
    private static func copy(_ buffer: UnsafeMutablePointer<GstBuffer>?, layout: PackedLayout, width: Int, height: Int,
                             offset: Int, rowBytes: Int) -> (bitmap: Bitmap, opaque: Bool)? {
        guard let buffer else { return nil }
        var map = GstMapInfo()
        guard gst_buffer_map(buffer, &map, GST_MAP_READ) != 0 else { return nil }
        defer { gst_buffer_unmap(buffer, &map) }
        guard let data = map.data, map.size >= offset + rowBytes * (height - 1) + width * 4 else { return nil }
        return layout.bitmapAndOpacity(UnsafeRawPointer(data + offset), width: width, height: height, rowBytes: rowBytes)
    }

    private func monotonic() -> Double { Self.monotonic() }

    private static func monotonic() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }
}
