import CEGL
import LaminaCore
import LaminaGLES
import LaminaCompositor

/// Checks of the renderer's GPU-only paths, run by pixels through a real headless renderer:
/// video pictures in dma-buf memory imported in place, and planar YUV converted in a shader.
/// Shared by the test suite (LaminaGLESTests, which skips what the machine cannot do) and the
/// `lamina-gpu-check` tool (run on a machine with a GPU; see docs/testing.md).
public enum GPUChecks {
    /// What one check found.
    public enum Outcome: Sendable, Equatable {
        /// It ran and the pixels were right.
        case passed(String)
        /// It could not run here (no such buffer, no such extension, a software renderer).
        case skipped(String)
        /// The driver refused the buffer and laminad copied it instead, as it would in use;
        /// the copy's pixels were right. Not laminad's fault, but nothing was imported.
        case refused(String)
        /// Wrong pixels, or an error that is laminad's.
        case failed(String)

        public var passed: Bool { if case .passed = self { true } else { false } }
        public var failed: Bool { if case .failed = self { true } else { false } }
        public var text: String {
            switch self {
            case let .passed(s): "passed: " + s
            case let .skipped(s): "skipped: " + s
            case let .refused(s): "refused: " + s
            case let .failed(s): "FAILED: " + s
            }
        }
    }

    /// A renderer's named statistic (`GLESRenderer.cacheStatistics`).
    static func statistic(_ name: String, of renderer: GLESRenderer) -> Double {
        renderer.cacheStatistics.first { $0.name == name }?.value ?? 0
    }

    // MARK: dma-buf import

    static let screen = (width: 200, height: 150)
    /// Where the picture is drawn: one texel to a pixel (the blit's case), and scaled 1.5×
    /// (sampled by the contents program).
    static let placements: [(x: Double, y: Double, scale: Double)] = [(8, 10, 1), (90, 40, 1.5)]

    /// A grey screen with `source` (`size` pixels) drawn at each of `placements`.
    static func list(_ source: ImageSource, size: (width: Int, height: Int) = (TestPattern.width, TestPattern.height),
                     placements: [(x: Double, y: Double, scale: Double)] = placements) -> DrawList {
        var commands = [DrawCommand(transform: .identity, bounds: Rect(x: 0, y: 0, width: Double(screen.width), height: Double(screen.height)),
                                    color: Color(red: 0.5, green: 0.5, blue: 0.5, alpha: 1), opacity: 1)]
        let area = Rect(x: 0, y: 0, width: Double(size.width), height: Double(size.height))
        for p in placements {
            let transform = Transform3D.scale(x: p.scale, y: p.scale).concatenating(.translation(x: p.x, y: p.y))
            commands.append(DrawCommand(kind: .contents, transform: transform, bounds: area,
                                        contents: DrawContents(source: source, destination: area, isOpaque: false)))
        }
        return DrawList(width: screen.width, height: screen.height, commands: commands)
    }

    /// The largest channel difference between two screenshots at the centre of each quadrant of
    /// each placement (away from the quadrants' borders, where filtering mixes colours), with
    /// where it was.
    static func difference(_ a: Bitmap, _ b: Bitmap) -> (worst: Int, at: String) {
        var worst = 0, at = ""
        for p in placements {
            for (qx, qy) in [(0.25, 0.25), (0.75, 0.25), (0.25, 0.75), (0.75, 0.75)] {
                let x = Int(p.x + qx * Double(TestPattern.width) * p.scale), y = Int(p.y + qy * Double(TestPattern.height) * p.scale)
                let s = a.pixel(x: x, y: y), t = b.pixel(x: x, y: y)
                let d = max(abs(Int(s.r) - Int(t.r)), abs(Int(s.g) - Int(t.g)), abs(Int(s.b) - Int(t.b)))
                if d > worst { worst = d; at = "(\(x), \(y)): \(s) where \(t) was expected" }
            }
        }
        return (worst, at)
    }

    /// Shows a dma-buf picture of `origin` through a fresh headless renderer, as laminad shows a
    /// decoder's frame, and compares the screen with the same pattern drawn from an ordinary
    /// image. Passed only when the picture was imported in place (not copied) and the pixels
    /// agree within 2 levels.
    public static func dmabufImport(_ origin: DMABufOrigin) -> Outcome {
        dmabufImport(name: origin.rawValue, summary: origin.summary) { display throws(Unavailable) in try origin.make(display: display) }
    }

    /// The same for a dma-buf another process made and passed down (descriptor `fd`, inherited):
    /// `TestPattern` (`lamina-gpu-check pattern` writes it) as linear XRGB8888, `pitch` bytes a
    /// row from `offset`, with `modifier` where the producer named one. The descriptor is
    /// closed with the picture.
    public static func dmabufImport(fd: Int32, offset: Int, pitch: Int, modifier: UInt64?, producer: String) -> Outcome {
        dmabufImport(name: "descriptor \(fd)", summary: producer) { _ throws(Unavailable) in
            guard fcntl(fd, F_GETFD) >= 0 else { throw Unavailable("descriptor \(fd) is not open") }
            let holder = Holder()
            holder.cleanups.append { close(fd) }
            return DMABufPicture(width: TestPattern.width, height: TestPattern.height, fourcc: DRMFourCC.xrgb8888, modifier: modifier,
                                 planes: [.init(fd: fd, offset: offset, pitch: pitch)], hasAlpha: false, keeper: holder) { nil }
        }
    }

    /// The check's picture, as XRGB8888 rows `pitch` bytes apart: what a producer of the
    /// external case writes into its buffer.
    public static func patternXRGB(pitch: Int) -> [UInt8] {
        guard pitch >= TestPattern.width * 4, pitch <= 1 << 16 else { return [] }
        var bytes = [UInt8](repeating: 0, count: pitch * TestPattern.height)
        bytes.withUnsafeMutableBytes { TestPattern.writeXRGB(to: $0.baseAddress!, pitch: pitch) }
        return bytes
    }

    static func dmabufImport(name: String, summary: String,
                             make: (EGLDisplayConnection) throws(Unavailable) -> DMABufPicture) -> Outcome {
        let backend: HeadlessDisplay
        do { backend = try HeadlessDisplay(width: screen.width, height: screen.height) } catch {
            return .skipped("no headless renderer: \(error)")
        }
        let renderer = backend.renderer
        let picture: DMABufPicture
        do {
            try backend.context.makeCurrent()
            picture = try make(backend.context.display)
        } catch let why as Unavailable {
            return .skipped("no \(name) buffer: \(why)")
        } catch {
            return .skipped("no current context: \(error)")
        }
        let described = "\(picture.width)×\(picture.height) \(DRMFourCC.name(picture.fourcc))"
            + (picture.modifier.map { " modifier 0x" + String($0, radix: 16) } ?? " (no modifier)")
            + ", pitch \(picture.planes[0].pitch)"
        // Made first, so that where the renderer cannot import the report still says which
        // buffers this machine can make.
        if renderer.videoImport.hasPrefix("copied: ") {
            return .skipped("made \(described), but the renderer does not import (\(renderer.videoImport.dropFirst("copied: ".count)))")
        }
        do {
            let video = ImageSource(owner: .session(EntrySerial(1)), number: 1, frame: VideoFrame(dmabuf: picture, time: 0))
            try backend.present(list(video))
            let shown = try backend.screenshot()
            let imported = statistic("video.dmabufImported", of: renderer)
            let refusal = renderer.videoImportRefusal
            try backend.present(list(ImageSource(owner: .session(EntrySerial(1)), number: 2, bitmap: TestPattern.bitmap)))
            let expected = try backend.screenshot()
            let (worst, at) = difference(shown, expected)
            if imported == 0, picture.copy() == nil {
                // Device memory a CPU cannot map (CUDA's, say): refused and not copyable, so
                // laminad has nothing to show; the pixels say nothing about laminad.
                return .refused("\(summary), \(described): \(refusal ?? "not imported, no reason given"); it cannot be mapped for a copy either")
            }
            if worst > 2 {
                let how = imported > 0 ? "imported in place" : "copied (\(refusal ?? "no reason given"))"
                return .failed("\(summary), \(described), \(how): pixels differ by \(worst) at \(at)")
            }
            if imported == 0 {
                return .refused("\(summary), \(described): \(refusal ?? "copied with no reason given"); the copy showed the right pixels")
            }
            return .passed("\(summary), \(described): imported in place (\(Int(imported)) import), pixels within \(worst) of the image's at 1× and 1.5×")
        } catch {
            return .failed("\(summary), \(described): \(error)")
        }
    }

    // MARK: YUV in a shader

    /// 64×48 I420: luma different at every pixel; chroma constant in each quadrant (a colour
    /// each), so chroma filtering between samples only shows along the quadrants' borders.
    public static func planarPicture(matrix: PlanarPicture.Matrix = .bt601, fullRange: Bool = false) -> PlanarPicture {
        var y: [UInt8] = [], u: [UInt8] = [], v: [UInt8] = []
        for row in 0..<48 { for col in 0..<64 { y.append(UInt8(40 + (col * 2 + row) % 160)) } }
        for row in 0..<24 {
            for col in 0..<32 {
                let quadrant = (row < 12 ? 0 : 2) + (col < 16 ? 0 : 1)
                u.append([90, 160, 110, 140][quadrant])
                v.append([200, 100, 60, 150][quadrant])
            }
        }
        return PlanarPicture(width: 64, height: 48, luma: y, cb: u, cr: v, matrix: matrix, fullRange: fullRange)!
    }

    /// `picture` as a YUV dma-buf picture (NV12, or YU12 with `fourcc`) whose planes its copy
    /// gives back; its descriptors are -1, so no driver imports it.
    public static func nv12DMABufFrame(_ picture: PlanarPicture, fourcc: UInt32 = DRMFourCC.nv12) -> VideoFrame {
        let w = picture.width, h = picture.height
        let planes: [DMABufPicture.Plane] = fourcc == DRMFourCC.nv12
            ? [.init(fd: -1, offset: 0, pitch: w), .init(fd: -1, offset: w * h, pitch: w)]
            : [.init(fd: -1, offset: 0, pitch: w), .init(fd: -1, offset: w * h, pitch: w / 2), .init(fd: -1, offset: w * h * 5 / 4, pitch: w / 2)]
        let dmabuf = DMABufPicture(width: w, height: h, fourcc: fourcc, modifier: nil, planes: planes, matrix: picture.matrix,
                                   fullRange: picture.fullRange, keeper: Holder()) { picture }
        return VideoFrame(dmabuf: dmabuf, time: 0)
    }

    /// What `yuvShader` measured: the largest channel difference, and how often the renderer
    /// converted in its shader and blitted contents.
    public struct YUVComparison: Sendable, CustomStringConvertible {
        public var worst: Int
        public var conversions: Int
        public var blits: Int
        /// Pictures in dma-buf memory imported in place, and mapped and copied instead.
        public var imported: Int
        public var copied: Int
        public var description: String {
            "worst difference \(worst), \(conversions) shader conversion(s), \(blits) blit(s)"
                + (imported + copied > 0 ? ", \(imported) imported, \(copied) copied" : "")
        }
    }

    /// The largest channel difference between `picture` drawn as a video frame (converted in the
    /// renderer's shader) and its CPU conversion (`PlanarPicture.rgba`) drawn as an ordinary
    /// image, away from the chroma quadrants' borders (in picture pixels, `scale` screen pixels
    /// each, from `origin`).
    /// `frame` gives the video frame that shows the picture (default: the planar picture as it
    /// is, in system memory).
    public static func yuvShader(_ picture: PlanarPicture, scale: Double, origin: (Double, Double),
                                 frame: ((PlanarPicture) -> VideoFrame)? = nil) throws -> YUVComparison {
        let yuv = try HeadlessDisplay(width: screen.width, height: screen.height)
        let rgb = try HeadlessDisplay(width: screen.width, height: screen.height)
        let video = ImageSource(owner: .session(EntrySerial(1)), number: 1, frame: frame?(picture) ?? VideoFrame(planar: picture, time: 0))
        let image = ImageSource(owner: .session(EntrySerial(1)), number: 2, bitmap: picture.rgba())
        func list(_ source: ImageSource) -> DrawList {
            Self.list(source, size: (picture.width, picture.height), placements: [(origin.0, origin.1, scale)])
        }
        try yuv.present(list(video))
        try rgb.present(list(image))
        let a = try yuv.screenshot(), b = try rgb.screenshot()
        var worst = 0
        let (cx, cy) = (picture.width / 2, picture.height / 2)
        for py in 0..<picture.height where abs(py - cy) > 2 {
            for px in 0..<picture.width where abs(px - cx) > 2 {
                let sx = Int(origin.0 + (Double(px) + 0.5) * scale), sy = Int(origin.1 + (Double(py) + 0.5) * scale)
                let p = a.pixel(x: sx, y: sy), q = b.pixel(x: sx, y: sy)
                worst = max(worst, abs(Int(p.r) - Int(q.r)), abs(Int(p.g) - Int(q.g)), abs(Int(p.b) - Int(q.b)))
            }
        }
        return YUVComparison(worst: worst, conversions: Int(statistic("video.yuvConversions", of: yuv.renderer)),
                             blits: Int(statistic("contents.blits", of: yuv.renderer)),
                             imported: Int(statistic("video.dmabufImported", of: yuv.renderer)),
                             copied: Int(statistic("video.dmabufCopied", of: yuv.renderer)))
    }

    /// The three comparisons of the YUV test (1:1 BT.601, 2× BT.709, 1.5× full range): passed
    /// when each is within 2 levels and converted once in the shader.
    public static func yuvShaderOutcome() -> Outcome {
        do {
            let cases: [(String, PlanarPicture, Double, (Double, Double))] = [
                ("BT.601 limited 1×", planarPicture(), 1, (10, 20)),
                ("BT.709 limited 2×", planarPicture(matrix: .bt709), 2, (3, 4)),
                ("BT.601 full 1.5×", planarPicture(fullRange: true), 1.5, (0, 0)),
            ]
            var lines: [String] = []
            for (name, picture, scale, origin) in cases {
                let c = try yuvShader(picture, scale: scale, origin: origin)
                lines.append("\(name): \(c)")
                if c.worst > 2 || c.conversions != 1 { return .failed(lines.joined(separator: "; ")) }
            }
            // The same planes as an NV12 dma-buf picture with no descriptor behind it: a GPU's
            // importer refuses it, and its planes are copied into the shader instead.
            let copied = try yuvShader(planarPicture(), scale: 1, origin: (10, 20)) { nv12DMABufFrame($0) }
            lines.append("NV12 dma-buf, copied: \(copied)")
            if copied.worst > 2 || copied.conversions != 1 || copied.copied != 1 { return .failed(lines.joined(separator: "; ")) }
            return .passed(lines.joined(separator: "; "))
        } catch {
            return .failed("\(error)")
        }
    }

    /// The draw a YUV dma-buf picture gets once imported (an external texture sampled by
    /// `samplerExternalOES` into the frame's RGBA texture), run with an EGLImage made from a
    /// texture of the pattern, which needs no dma-buf: the result must be the pattern, top row
    /// at the top.
    public static func externalImage() -> Outcome {
        do {
            let backend = try HeadlessDisplay(width: TestPattern.width, height: TestPattern.height)
            try backend.context.makeCurrent()
            let holder = Holder()
            let image: EGLImageKHR
            do { image = try TestPattern.image(display: backend.context.display, holder: holder) } catch {
                return .skipped("no EGLImage of a texture: \(error)")
            }
            guard let drawn = try backend.renderer.drawExternalImage(image, width: TestPattern.width, height: TestPattern.height) else {
                return .skipped("the context cannot draw an external image (GL_OES_EGL_image_external_essl3, or binding the image, failed)")
            }
            var worst = 0, at = ""
            let expected = TestPattern.bitmap
            for y in 0..<TestPattern.height {
                for x in 0..<TestPattern.width {
                    let p = drawn.pixel(x: x, y: y), q = expected.pixel(x: x, y: y)
                    let d = max(abs(Int(p.r) - Int(q.r)), abs(Int(p.g) - Int(q.g)), abs(Int(p.b) - Int(q.b)))
                    if d > worst { worst = d; at = "(\(x), \(y)): \(p) where \(q) was expected" }
                }
            }
            let detail = "an EGLImage of a \(TestPattern.width)×\(TestPattern.height) texture drawn through samplerExternalOES"
            return worst <= 1 ? .passed("\(detail), worst difference \(worst)") : .failed("\(detail): differs by \(worst) at \(at)")
        } catch {
            return .failed("\(error)")
        }
    }

    // MARK: What the machine has

    /// The renderer, its display's import-related extensions, and the dma-buf devices present.
    public static func report() -> String {
        var lines: [String] = []
        do {
            let backend = try HeadlessDisplay(width: 64, height: 64)
            lines.append("renderer: \(backend.rendererDescription)")
            lines.append("video import: \(backend.renderer.videoImport)")
            let ext = backend.context.display.extensions
            let names = ["EGL_EXT_image_dma_buf_import", "EGL_EXT_image_dma_buf_import_modifiers", "EGL_MESA_image_dma_buf_export",
                         "EGL_KHR_gl_texture_2D_image", "EGL_KHR_image_base"]
            lines.append("EGL: " + names.map { "\($0) \(ext.contains($0) ? "yes" : "no")" }.joined(separator: ", "))
            let gl = GLESContext.currentExtensions()
            lines.append("GL: " + ["GL_OES_EGL_image", "GL_OES_EGL_image_external", "GL_OES_EGL_image_external_essl3"]
                .map { "\($0) \(gl.contains($0) ? "yes" : "no")" }.joined(separator: ", "))
        } catch {
            lines.append("no headless renderer: \(error)")
        }
        for path in ["/dev/dri", "/dev/udmabuf", "/dev/dma_heap/system"] {
            lines.append("\(path): \(access(path, F_OK) == 0 ? "present" : "absent")")
        }
        return lines.joined(separator: "\n")
    }
}

#if canImport(Glibc)
import Glibc
import LaminaTestSupport
#endif
