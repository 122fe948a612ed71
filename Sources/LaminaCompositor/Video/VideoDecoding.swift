import LaminaCore

/// One decoded picture of a video and its presentation time in the media's own seconds: either
/// premultiplied RGBA rows in system memory (top row first), a planar YUV picture in system
/// memory (the renderer converts it in a shader), or a picture the decoder left in dma-buf
/// memory, which a renderer that can import it shows without a copy.
public struct VideoFrame: Sendable {
    /// The pixels in system memory; empty (0 × 0) for a dma-buf or planar picture.
    public var bitmap: Bitmap
    /// The picture in dma-buf memory, when the decoder gave one.
    public var dmabuf: DMABufPicture?
    /// The picture as planar YUV in system memory, when the decoder gave one.
    public var planar: PlanarPicture?
    /// Presentation time (PTS) in seconds from the start of the media.
    public var time: Double
    /// Every pixel's alpha is 1 (so the frame is drawn without blending).
    public var isOpaque: Bool
    public init(bitmap: Bitmap, time: Double, isOpaque: Bool = false) {
        self.bitmap = bitmap
        self.time = time
        self.isOpaque = isOpaque
    }
    public init(dmabuf: DMABufPicture, time: Double) {
        self.bitmap = Bitmap(width: 0, height: 0)
        self.dmabuf = dmabuf
        self.time = time
        isOpaque = !dmabuf.hasAlpha
    }
    public init(planar: PlanarPicture, time: Double) {
        self.bitmap = Bitmap(width: 0, height: 0)
        self.planar = planar
        self.time = time
        isOpaque = true
    }
    public var width: Int { dmabuf?.width ?? planar?.width ?? bitmap.width }
    public var height: Int { dmabuf?.height ?? planar?.height ?? bitmap.height }
}

/// A picture as 8-bit planar YUV 4:2:0 (GStreamer's I420, what software decoders give): a
/// luma plane and two chroma planes of half the size each way (rounded up), rows packed, with
/// the colour matrix and range the stream declares. The renderer converts it to RGB in a
/// shader (a third of the bytes of RGBA to copy and upload); `rgba()` is the same conversion on
/// the CPU, for anything that needs the pixels.
public struct PlanarPicture: Sendable {
    public enum Matrix: Sendable {
        case bt601, bt709, bt2020

        /// The luma weights of red and blue (Kr, Kb).
        var weights: (kr: Double, kb: Double) {
            switch self {
            case .bt601: (0.299, 0.114)
            case .bt709: (0.2126, 0.0722)
            case .bt2020: (0.2627, 0.0593)
            }
        }
    }
    public let width: Int
    public let height: Int
    public var chromaWidth: Int { (width + 1) / 2 }
    public var chromaHeight: Int { (height + 1) / 2 }
    /// `width` × `height` bytes, then the two `chromaWidth` × `chromaHeight` planes.
    public let luma: [UInt8]
    public let cb: [UInt8]
    public let cr: [UInt8]
    public let matrix: Matrix
    /// Full range (0-255) rather than limited (luma 16-235, chroma 16-240).
    public let fullRange: Bool

    /// nil unless the planes have exactly the sizes the picture's size makes.
    public init?(width: Int, height: Int, luma: [UInt8], cb: [UInt8], cr: [UInt8], matrix: Matrix, fullRange: Bool) {
        guard width > 0, height > 0, luma.count == width * height else { return nil }
        let chroma = ((width + 1) / 2) * ((height + 1) / 2)
        guard cb.count == chroma, cr.count == chroma else { return nil }
        self.width = width
        self.height = height
        self.luma = luma
        self.cb = cb
        self.cr = cr
        self.matrix = matrix
        self.fullRange = fullRange
    }

    /// The conversion, as the shader applies it: rgb = M × (yuv − offset) with y, cb, cr in
    /// 0…1. `matrix` is column-major (for glUniformMatrix3fv), the range's scale folded in.
    public var conversion: (matrix: [Float], offset: (Float, Float, Float)) {
        let (kr, kb) = matrix.weights
        let kg = 1 - kr - kb
        let ys = fullRange ? 1.0 : 255.0 / 219.0, cs = fullRange ? 1.0 : 255.0 / 224.0
        // R = Y + 2(1-kr) Cr; G = Y - 2 kb(1-kb)/kg Cb - 2 kr(1-kr)/kg Cr; B = Y + 2(1-kb) Cb.
        let columns: [Double] = [ys, ys, ys,
                                 0, -cs * 2 * kb * (1 - kb) / kg, cs * 2 * (1 - kb),
                                 cs * 2 * (1 - kr), -cs * 2 * kr * (1 - kr) / kg, 0]
        return (columns.map(Float.init), (fullRange ? 0 : 16 / 255, 128 / 255, 128 / 255))
    }

    /// The picture as RGBA (opaque), each pixel's chroma from the sample it lies in.
    public func rgba() -> Bitmap {
        let (m, o) = conversion
        let cw = chromaWidth
        var bytes = [UInt8](repeating: 255, count: width * height * 4)
        func channel(_ v: Float) -> UInt8 { UInt8(max(0, min(255, (v * 255).rounded()))) }
        for y in 0..<height {
            for x in 0..<width {
                let l = Float(luma[y * width + x]) / 255 - o.0
                let c = (y / 2) * cw + x / 2
                let u = Float(cb[c]) / 255 - o.1, v = Float(cr[c]) / 255 - o.2
                let i = (y * width + x) * 4
                bytes[i] = channel(m[0] * l + m[3] * u + m[6] * v)
                bytes[i + 1] = channel(m[1] * l + m[4] * u + m[7] * v)
                bytes[i + 2] = channel(m[2] * l + m[5] * u + m[8] * v)
            }
        }
        return Bitmap(width: width, height: height, bytes: bytes)!
    }
}

/// A picture in dma-buf memory (a hardware decoder's or a camera's buffer): what
/// `EGL_EXT_image_dma_buf_import` needs to sample it in place, and a way to copy it out for a
/// renderer that cannot.
///
/// The decoder's buffer, and so its descriptors, stay valid while the picture lives (`keeper`
/// holds it), so a frame on screen is never recycled under the renderer.
public final class DMABufPicture: @unchecked Sendable {
    /// One plane: its descriptor, where it starts in it, and its row pitch in bytes.
    public struct Plane: Sendable, Equatable {
        public var fd: Int32
        public var offset: Int
        public var pitch: Int
        public init(fd: Int32, offset: Int, pitch: Int) {
            self.fd = fd
            self.offset = offset
            self.pitch = pitch
        }
    }

    public let width: Int
    public let height: Int
    /// The DRM fourcc of the pixels (`DRM_FORMAT_ABGR8888` for GStreamer's RGBA, …).
    public let fourcc: UInt32
    /// The format modifier, where the decoder said (nil: implicit, as the exporter chose).
    public let modifier: UInt64?
    public let planes: [Plane]
    /// Alpha is meaningful (an A format); otherwise opaque.
    public let hasAlpha: Bool
    /// The colour is already multiplied by alpha (an app's buffer, as Wayland has it) rather
    /// than straight (a decoder's).
    public let alphaIsPremultiplied: Bool
    /// For a YUV picture (`isYUV`): the colour matrix and range the stream declares, which the
    /// import passes on as hints (the driver converts when the picture is sampled).
    public let matrix: PlanarPicture.Matrix
    public let fullRange: Bool
    private let keeper: AnyObject
    private let copier: () -> Bitmap?
    private let planarCopier: (() -> PlanarPicture?)?

    /// A packed RGB picture: `keeper` holds the decoder's buffer; `copy` maps it and returns
    /// premultiplied RGBA.
    public convenience init(width: Int, height: Int, fourcc: UInt32, modifier: UInt64?, planes: [Plane], hasAlpha: Bool,
                            keeper: AnyObject, copy: @escaping () -> Bitmap?) {
        self.init(width: width, height: height, fourcc: fourcc, modifier: modifier, planes: planes, hasAlpha: hasAlpha,
                  matrix: .bt601, fullRange: false, premultiplied: false, keeper: keeper, copy: copy, copyPlanar: nil)
    }

    /// An app's buffer (packed 32-bit RGB, premultiplied where it has alpha, as Wayland has
    /// it): `keeper` holds its descriptors; `copy` maps it and returns premultiplied RGBA.
    public convenience init(appBuffer width: Int, height: Int, fourcc: UInt32, modifier: UInt64?, plane: Plane, hasAlpha: Bool,
                            keeper: AnyObject, copy: @escaping () -> Bitmap?) {
        self.init(width: width, height: height, fourcc: fourcc, modifier: modifier, planes: [plane], hasAlpha: hasAlpha,
                  matrix: .bt601, fullRange: false, premultiplied: true, keeper: keeper, copy: copy, copyPlanar: nil)
    }

    /// A planar YUV 4:2:0 picture (`DRMFourCC.nv12` or `.yuv420`, one plane entry each):
    /// `copy` maps the buffer and copies its planes out (`PlanarPicture`), for a renderer that
    /// cannot import it (it converts them in its shader, or on the CPU).
    public convenience init(width: Int, height: Int, fourcc: UInt32, modifier: UInt64?, planes: [Plane], matrix: PlanarPicture.Matrix,
                            fullRange: Bool, keeper: AnyObject, copy: @escaping () -> PlanarPicture?) {
        self.init(width: width, height: height, fourcc: fourcc, modifier: modifier, planes: planes, hasAlpha: false,
                  matrix: matrix, fullRange: fullRange, premultiplied: false, keeper: keeper, copy: { copy()?.rgba() },
                  copyPlanar: copy)
    }

    private init(width: Int, height: Int, fourcc: UInt32, modifier: UInt64?, planes: [Plane], hasAlpha: Bool,
                 matrix: PlanarPicture.Matrix, fullRange: Bool, premultiplied: Bool, keeper: AnyObject,
                 copy: @escaping () -> Bitmap?, copyPlanar: (() -> PlanarPicture?)?) {
        self.width = width
        self.height = height
        self.fourcc = fourcc
        self.modifier = modifier
        self.planes = planes
        self.hasAlpha = hasAlpha
        self.matrix = matrix
        self.fullRange = fullRange
        alphaIsPremultiplied = premultiplied
        self.keeper = keeper
        copier = copy
        planarCopier = copyPlanar
    }

    /// Planar YUV (NV12 or YU12) rather than packed RGB.
    public var isYUV: Bool { fourcc == DRMFourCC.nv12 || fourcc == DRMFourCC.yuv420 }

    /// The pixels copied into system memory, premultiplied RGBA (nil when the buffer cannot be
    /// mapped): for a renderer that cannot import the picture (a YUV picture converted on the CPU).
    public func copy() -> Bitmap? { copier() }

    /// A YUV picture's planes copied into system memory (nil for packed RGB, or when the buffer
    /// cannot be mapped): for a renderer that converts YUV in its shader but cannot import.
    public func copyPlanar() -> PlanarPicture? { planarCopier?() }
}

/// A dma-buf layout a renderer shows: a DRM fourcc and the explicit format modifiers it takes
/// with it, besides the implicit one (what laminad offers apps through `zwp_linux_dmabuf_v1`).
public struct DMABufFormat: Sendable, Equatable {
    public var fourcc: UInt32
    public var modifiers: [UInt64]
    public init(fourcc: UInt32, modifiers: [UInt64]) {
        self.fourcc = fourcc
        self.modifiers = modifiers
    }
}

/// The DRM fourccs of the layouts decoders leave in dma-buf memory: packed 8-bit RGB, and
/// planar YUV 4:2:0.
public enum DRMFourCC {
    static func code(_ s: String) -> UInt32 {
        let b = Array(s.utf8)
        return UInt32(b[0]) | UInt32(b[1]) << 8 | UInt32(b[2]) << 16 | UInt32(b[3]) << 24
    }
    /// Bytes R, G, B, A in memory (GStreamer's RGBA).
    public static let abgr8888 = code("AB24")
    /// R, G, B, x (RGBx).
    public static let xbgr8888 = code("XB24")
    /// B, G, R, A (BGRA).
    public static let argb8888 = code("AR24")
    /// B, G, R, x (BGRx).
    public static let xrgb8888 = code("XR24")
    /// Luma, then Cb and Cr interleaved at half resolution (NV12: V4L2 hardware decoders').
    public static let nv12 = code("NV12")
    /// Luma, Cb, Cr in three planes, chroma at half resolution (GStreamer's I420).
    public static let yuv420 = code("YU12")
    /// The packed 32-bit RGB layouts (a Wayland app's, a decoder's RGB).
    public static let packedRGB = [argb8888, xrgb8888, abgr8888, xbgr8888]
    /// DRM_FORMAT_MOD_LINEAR: rows one after another, as the CPU maps them.
    public static let linearModifier: UInt64 = 0
    /// DRM_FORMAT_MOD_INVALID: "no explicit modifier".
    public static let invalidModifier: UInt64 = 0x00ff_ffff_ffff_ffff

    /// "XR24" for a fourcc code.
    public static func name(_ fourcc: UInt32) -> String {
        String(decoding: (0..<4).map { UInt8(truncatingIfNeeded: fourcc >> ($0 * 8)) }, as: UTF8.self)
    }
}

/// What a decoder reports about its media, polled from the loop thread (`takeEvents`).
public enum VideoDecoderEvent: Sendable, Equatable {
    /// The first picture is decoded: its size, and the media's length (nil: unknown, such as
    /// a live stream).
    case ready(width: Int, height: Int, duration: Double?)
    /// The last frame was decoded (end of stream).
    case ended
    /// The media cannot be played: the decoder's own words (GStreamer's message). The decoder
    /// shows no further frames.
    case error(String)
}

/// One video being decoded for laminad (LaminaVideo's GStreamer pipeline; a fake in tests).
///
/// Decoding runs on the decoder's own threads; every method here is called on the loop
/// thread. The compositor decides which frame shows: `frame(at:wait:)` answers the picture
/// whose presentation time is the greatest one not after the media time asked for, so the
/// compositor's clock, real or virtual, paces the video.
public protocol VideoDecoder: AnyObject {
    /// The frame with the greatest presentation time ≤ `mediaTime` (seeking when the time is
    /// behind the last frame or far ahead of it). Waits at most `wait` seconds for frames not
    /// decoded yet (0 with a real clock: show what there is; a bound with a virtual clock, so a
    /// screenshot at time t shows exactly the frame at t). Nil until a first frame is decoded.
    func frame(at mediaTime: Double, wait: Double) -> VideoFrame?
    /// The events since the last call, oldest first.
    func takeEvents() -> [VideoDecoderEvent]
    /// Stops decoding and frees the decoder's threads and descriptors (idempotent).
    func close()
    /// Gives the sound output the samples of `span` (after `frame(at:wait:)` for the same
    /// time), waiting at most `wait` seconds for samples not decoded yet; `mediaNow`: where
    /// media time stands, so samples before it that no span wants are let go (a decoder that
    /// keeps them would hold up its pictures). `presentAt`: the monotonic time (seconds) of
    /// output sample 0, with a real clock, so the output plays each sample at its time; nil
    /// with a virtual clock (samples go out as they are given). Answers how many of the span's
    /// samples it took: all of them, but with a real clock only those decoded by now (the rest
    /// come first in the next span; the output's lead covers the wait).
    func renderAudio(_ span: AudioSpan, mediaNow: Double, wait: Double, presentAt: Double?) -> Int
    /// The sound's gain (0…1) and whether it is muted.
    func setAudio(volume: Double, muted: Bool)
    /// What its sound is doing.
    var audioState: VideoAudioState { get }
}

extension VideoDecoder {
    /// A decoder without sound (test fakes) ignores it.
    public func renderAudio(_ span: AudioSpan, mediaNow: Double, wait: Double, presentAt: Double?) -> Int { span.count }
    public func setAudio(volume: Double, muted: Bool) {}
    public var audioState: VideoAudioState { .noSound }
}

/// Why a decoder could not be made.
public struct VideoOpenError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// Makes decoders (laminad installs LaminaVideo's `GStreamerVideo`; without one, clients'
/// videos are refused).
public protocol VideoDecoding: AnyObject {
    /// A decoder for `uri` (a URI, or an absolute path). Throws for input that cannot even be
    /// tried (a path that is not a regular file, a scheme GStreamer has no source for); other
    /// problems arrive later as an `error` event.
    func open(uri: String) throws(VideoOpenError) -> any VideoDecoder
    /// Numbers for `stats` (frames decoded into system memory and into dma-bufs).
    var statistics: [(name: String, value: Double)] { get }
    /// Which upload path frames take, and why, in words (logged when laminad starts).
    var uploadPath: String { get }
}
