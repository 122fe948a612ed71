import CGStreamer
import CLinux
import Glibc
import LaminaCore
import LaminaCompositor
import Testing
@testable import LaminaVideo

/// A planar YUV frame whose planes lie in dma-buf memory (a V4L2 hardware decoder's NV12) goes
/// to the renderer as a YUV `DMABufPicture`: each plane's descriptor and offset found from the
/// byte it starts at, whether one dma-buf holds every plane or each has its own, and a copy of
/// its planes for a renderer that cannot import. The dma-bufs here are GStreamer's dma-buf
/// memory over memfds (GStreamer maps them like any dma-buf).
@Suite("YUV frames in dma-buf memory")
struct YUVDMABufFrameTests {
    static let width = 6, height = 4, pitch = 8

    /// Luma rows then interleaved chroma rows, each `pitch` bytes (the last two of a row padding).
    static func lumaRows() -> [UInt8] {
        var rows: [UInt8] = []
        for r in 0..<height { for c in 0..<pitch { rows.append(c < width ? UInt8(16 + r * 10 + c) : 0xEE) } }
        return rows
    }
    static func chromaRows() -> [UInt8] {
        var rows: [UInt8] = []
        for r in 0..<height / 2 {
            for c in 0..<pitch { rows.append(c >= width ? 0xEE : c % 2 == 0 ? UInt8(100 + r * 4 + c) : UInt8(200 - r * 4 - c)) }
        }
        return rows
    }

    /// A memfd holding `bytes` at `at`, `size` long, wrapped as GStreamer dma-buf memory.
    static func memory(_ bytes: [UInt8], at: Int, size: Int, allocator: UnsafeMutablePointer<GstAllocator>) throws -> (UnsafeMutablePointer<GstMemory>, Int32) {
        let fd = CLinux_memfd_create("yuv-dmabuf-test")
        try #require(fd >= 0 && ftruncate(fd, off_t(size)) == 0)
        _ = bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, off_t(at)) }
        let memory = try #require(gst_dmabuf_allocator_alloc(allocator, fd, gsize(size)))  // takes the descriptor
        return (memory, fd)
    }

    /// GStreamer started, and its dma-buf allocator (unref it after).
    static func allocator() throws -> UnsafeMutablePointer<GstAllocator> {
        gst_init(nil, nil)
        return try #require(gst_dmabuf_allocator_new())
    }

    /// A 6×4 NV12 sample (BT.709) over `memories` in order, its planes at `offsets` of the
    /// buffer, `pitch` bytes a row; the sample holds the buffer.
    static func sample(_ memories: [UnsafeMutablePointer<GstMemory>], offsets: [Int]) throws -> OpaquePointer {
        let buffer = try #require(gst_buffer_new())
        defer { gst_buffer_unref(buffer) }
        for m in memories { gst_buffer_append_memory(buffer, m) }
        var o = offsets.map { gsize($0) } + [0, 0], s: [gint] = [gint(pitch), gint(pitch), 0, 0]
        _ = gst_buffer_add_video_meta_full(buffer, GST_VIDEO_FRAME_FLAG_NONE, GST_VIDEO_FORMAT_NV12, guint(width), guint(height), 2, &o, &s)
        let caps = try #require(gst_caps_from_string("video/x-raw,format=NV12,width=6,height=4,colorimetry=bt709"))
        defer { gst_caps_unref(caps) }
        return try #require(gst_sample_new(buffer, caps, nil, nil))
    }

    /// What the decoder makes of `sample`'s planes at `offsets` with `strides`.
    static func picture(_ sample: OpaquePointer, offsets: [Int], strides: [Int] = [pitch, pitch],
                        matrix: PlanarPicture.Matrix = .bt709) -> DMABufPicture? {
        SampleConverter.dmabuf(sample, gst_sample_get_buffer(sample)!, layout: .nv12, width: width, height: height,
                               offsets: offsets, strides: strides, matrix: matrix, fullRange: false)
    }

    func expectPlanes(_ picture: PlanarPicture?) {
        guard let picture else { Issue.record("the planes could not be copied"); return }
        var luma: [UInt8] = [], cb: [UInt8] = [], cr: [UInt8] = []
        for r in 0..<Self.height { for c in 0..<Self.width { luma.append(UInt8(16 + r * 10 + c)) } }
        for r in 0..<2 {
            for i in 0..<3 {
                cb.append(UInt8(100 + r * 4 + 2 * i))
                cr.append(UInt8(200 - r * 4 - (2 * i + 1)))
            }
        }
        #expect(picture.luma == luma)
        #expect(picture.cb == cb)
        #expect(picture.cr == cr)
        #expect(picture.matrix == .bt709)
    }

    @Test func oneDMABufHoldingBothPlanes() throws {
        let allocator = try Self.allocator()
        defer { gst_object_unref(UnsafeMutableRawPointer(allocator)) }
        let chromaAt = 64
        var bytes = Self.lumaRows()
        bytes += [UInt8](repeating: 0, count: chromaAt - bytes.count) + Self.chromaRows()
        let (memory, fd) = try Self.memory(bytes, at: 0, size: 4096, allocator: allocator)
        let sample = try Self.sample([memory], offsets: [0, chromaAt])
        defer { gst_sample_unref(sample) }
        let picture = try #require(Self.picture(sample, offsets: [0, chromaAt]))
        #expect(picture.isYUV && picture.fourcc == DRMFourCC.nv12 && picture.matrix == .bt709 && !picture.fullRange)
        #expect(picture.planes == [.init(fd: fd, offset: 0, pitch: Self.pitch), .init(fd: fd, offset: chromaAt, pitch: Self.pitch)])
        expectPlanes(picture.copyPlanar())
        #expect(picture.copy()?.width == Self.width, "the RGBA copy converts the planes")
    }

    @Test func aDMABufForEachPlane() throws {
        let allocator = try Self.allocator()
        defer { gst_object_unref(UnsafeMutableRawPointer(allocator)) }
        // The chroma plane's memory is a view 128 bytes into its dma-buf.
        let luma = try Self.memory(Self.lumaRows(), at: 0, size: 4096, allocator: allocator)
        let chroma = try Self.memory(Self.chromaRows(), at: 128, size: 4096, allocator: allocator)
        gst_memory_resize(chroma.0, 128, 2048)
        let sample = try Self.sample([luma.0, chroma.0], offsets: [0, 4096])
        defer { gst_sample_unref(sample) }
        let picture = try #require(Self.picture(sample, offsets: [0, 4096]))
        #expect(picture.planes == [.init(fd: luma.1, offset: 0, pitch: Self.pitch), .init(fd: chroma.1, offset: 128, pitch: Self.pitch)])
        expectPlanes(picture.copyPlanar())
    }

    /// A decoder's numbers that do not fit its buffer never reach a driver: a stride shorter
    /// than a row, a plane running past its memory or across two, an offset past the buffer.
    @Test func planesThatDoNotFitTheirMemoryAreNotADMABuf() throws {
        let allocator = try Self.allocator()
        defer { gst_object_unref(UnsafeMutableRawPointer(allocator)) }
        let luma = try Self.memory(Self.lumaRows(), at: 0, size: 64, allocator: allocator)
        let chroma = try Self.memory(Self.chromaRows(), at: 0, size: 64, allocator: allocator)
        let sample = try Self.sample([luma.0, chroma.0], offsets: [0, 64])
        defer { gst_sample_unref(sample) }
        func picture(_ offsets: [Int], _ strides: [Int]) -> DMABufPicture? {
            Self.picture(sample, offsets: offsets, strides: strides, matrix: .bt601)
        }
        #expect(picture([0, 64], [8, 8]) != nil, "each plane in its own 64-byte memory")
        #expect(picture([0, 64], [5, 8]) == nil, "a luma stride shorter than the 6-byte row")
        #expect(picture([0, 64], [8, 5]) == nil, "a chroma stride shorter than the 6-byte pair row")
        #expect(picture([0, 64], [20, 8]) == nil, "luma rows 20 apart run past the first memory")
        #expect(picture([40, 64], [8, 8]) == nil, "luma from byte 40 runs across into the second memory")
        #expect(picture([0, 120], [8, 8]) == nil, "chroma from byte 120 runs past the buffer")
        #expect(picture([0, -1], [8, 8]) == nil, "an offset believed past 2 GiB")
        #expect(picture([0, 64], [8, 1 << 30]) == nil, "a stride past 2^24")
    }

    @Test func planesInSystemMemoryAreNotADMABuf() throws {
        gst_init(nil, nil)
        let memory = try #require(gst_allocator_alloc(nil, 4096, nil))
        let sample = try Self.sample([memory], offsets: [0, 64])
        defer { gst_sample_unref(sample) }
        #expect(Self.picture(sample, offsets: [0, 64], matrix: .bt601) == nil)
    }
}
