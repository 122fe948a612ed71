import CGStreamer
import LaminaCore
import LaminaCompositor

/// Turns the app sink's samples into the frames the server takes: a packed RGB or planar YUV
/// picture in dma-buf memory goes to the renderer to import in place (`DMABufPicture`, the
/// sample kept alive with it, and a copy for a renderer that cannot import); any other is
/// mapped and copied out (premultiplied RGBA `Bitmap`, or `PlanarPicture` planes). Counts each
/// frame's memory in `counts`.
struct SampleConverter {
    /// The largest picture laminad shows, in pixels per side (`GStreamerVideo.maximumSide`).
    let maximumSide: Int
    /// A V4L2 camera: its pictures are opaque whatever their layout says.
    let camera: Bool
    let counts: FrameCounts

    /// A picture larger than laminad shows (or with a stride or offset no picture could have).
    struct OversizedPicture: Error {
        var message: String
    }

    /// The buffer's presentation time in seconds, or `fallback` when it has none.
    private static func time(of buffer: UnsafeMutablePointer<GstBuffer>, fallback: Double) -> Double {
        let pts = lamina_gst_buffer_pts(buffer)
        return pts == lamina_gst_clock_time_none() ? fallback : Double(pts) / 1e9
    }

    /// The frame in `sample`; nil when its caps are not a layout the sink takes or its buffer
    /// cannot be read. `fallbackTime` is its time when its buffer has none. `sized` hears the
    /// picture's size once it is known to be within `maximumSide`, before its pixels are read
    /// (the decoder's ready event). Throws for a picture larger than laminad shows.
    func frame(_ sample: OpaquePointer, fallbackTime: Double,
               sized: (_ width: Int, _ height: Int) -> Void) throws(OversizedPicture) -> VideoFrame? {
        var w: Int32 = 0, h: Int32 = 0, rowStride: Int32 = 0
        guard let caps = gst_sample_get_caps(sample), lamina_gst_video_layout(caps, &w, &h, &rowStride) != 0,
              let buffer = gst_sample_get_buffer(sample) else { return nil }
        let format = lamina_gst_video_format(caps)
        if let planar = PlanarLayout(format) {
            return try self.planar(sample, caps, buffer, layout: planar, width: Int(w), height: Int(h), fallbackTime: fallbackTime,
                                   sized: sized)
        }
        guard let packed = PackedLayout(format) else { return nil }
        let layout = camera ? packed.opaque : packed
        let width = Int(w), height = Int(h)
        var rowBytes = Int(rowStride), offset = 0
        var metaOffset: gsize = 0, metaStride: gint = 0
        if lamina_gst_video_meta_plane(buffer, &metaOffset, &metaStride) != 0 {
            rowBytes = Int(metaStride)
            // A plane offset no buffer could have (past 2 GiB) is refused, not added up.
            offset = metaOffset <= gsize(Int32.max) ? Int(metaOffset) : -1
        }
        guard width > 0, height > 0, width <= maximumSide, height <= maximumSide, rowBytes >= width * 4, offset >= 0 else {
            throw OversizedPicture(message: "the video's pictures are \(w)×\(h) (stride \(rowBytes)); laminad shows at most \(maximumSide)×\(maximumSide)")
        }
        let time = Self.time(of: buffer, fallback: fallbackTime)
        sized(width, height)
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
                        layout: PlanarLayout, width: Int, height: Int, fallbackTime: Double,
                        sized: (_ width: Int, _ height: Int) -> Void) throws(OversizedPicture) -> VideoFrame? {
        guard width > 0, height > 0, width <= maximumSide, height <= maximumSide else {
            throw OversizedPicture(message: "the video's pictures are \(width)×\(height); laminad shows at most \(maximumSide)×\(maximumSide)")
        }
        var offsets = [gsize](repeating: 0, count: 4)
        var strides = [gint](repeating: 0, count: 4)
        var matrixCode: gint = 0, fullRange: gint = 0
        let planes = lamina_gst_video_planes(caps, buffer, &offsets, &strides, &matrixCode, &fullRange)
        guard Int(planes) == layout.planeCount else { return nil }
        let time = Self.time(of: buffer, fallback: fallbackTime)
        sized(width, height)
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
