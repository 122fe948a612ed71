#if canImport(Glibc)
import Glibc
#endif
import CDRM
import LaminaCore
import LaminaCompositor

/// The cursor's picture: a small arrow, black outline and white fill, with its hot spot (the
/// tip) at the top-left pixel. Generated here, so no image file is needed.
public enum CursorSprite {
    /// The arrow, one string per row: "X" outline, "." fill, " " transparent.
    static let rows = [
        "X",
        "XX",
        "X.X",
        "X..X",
        "X...X",
        "X....X",
        "X.....X",
        "X......X",
        "X.......X",
        "X........X",
        "X.....XXXXX",
        "X..X..X",
        "X.X X..X",
        "XX  X..X",
        "X    X..X",
        "     X..X",
        "      XX",
    ]
    /// The arrow's size in pixels.
    public static var width: Int { rows.map(\.count).max()! }
    public static var height: Int { rows.count }

    /// The arrow's pixels in a `width`×`height` image (at least the arrow's size), premultiplied
    /// ARGB8888 as 32-bit words (DRM_FORMAT_ARGB8888), row by row; transparent elsewhere.
    public static func argb8888(width: Int, height: Int) -> [UInt32] {
        argb8888(width: width, height: height, transform: .normal)
    }

    /// The arrow as it must be scanned out on a panel turned by `transform`, in a
    /// `width`×`height` buffer (at least the turned arrow's size), at the buffer's top-left.
    public static func argb8888(width: Int, height: Int, transform: OutputTransform) -> [UInt32] {
        let image = image(for: transform)
        var pixels = [UInt32](repeating: 0, count: max(0, width) * max(0, height))
        for y in 0..<min(image.height, max(0, height)) {
            for x in 0..<min(image.width, max(0, width)) { pixels[y * width + x] = image.pixels[y * image.width + x] }
        }
        return pixels
    }

    /// The arrow turned (and mirrored) the way `transform` turns an output's picture onto its
    /// panel, so that on the panel it looks like the upright arrow does in the picture; its hot
    /// spot (the tip) moves with it.
    public static func image(for transform: OutputTransform) -> CursorImage {
        let w = width, h = height
        var upright = [UInt32](repeating: 0, count: w * h)
        for (y, row) in rows.enumerated() {
            for (x, c) in row.enumerated() {
                switch c {
                case "X": upright[y * w + x] = 0xFF00_0000
                case ".": upright[y * w + x] = 0xFFFF_FFFF
                default: break
                }
            }
        }
        let size = transform.logicalSize(width: w, height: h)
        var image = CursorImage(width: size.width, height: size.height, pixels: [UInt32](repeating: 0, count: w * h), hotX: 0, hotY: 0)
        for y in 0..<h {
            for x in 0..<w {
                let to = CursorGeometry.turn(x: x, y: y, width: w, height: h, transform: transform)
                image.pixels[to.y * image.width + to.x] = upright[y * w + x]
            }
        }
        let hot = CursorGeometry.turn(x: 0, y: 0, width: w, height: h, transform: transform)
        image.hotX = hot.x
        image.hotY = hot.y
        return image
    }
}

/// The arrow's pixels for one output transform, and where its hot spot is among them.
public struct CursorImage: Sendable, Equatable {
    public var width: Int
    public var height: Int
    /// Premultiplied ARGB8888, row by row.
    public var pixels: [UInt32]
    /// The pixel that points (the tip), from the image's top-left.
    public var hotX: Int
    public var hotY: Int

    /// The pixel at (x, y).
    public func pixel(_ x: Int, _ y: Int) -> UInt32 { pixels[y * width + x] }
}

/// One output's geometry as the cursor sees it: its place in the desktop (points), its scale
/// (pixels per point), its panel in pixels, and how its picture is turned onto the panel.
public struct CursorOutput: Sendable {
    public var origin: (x: Int, y: Int)
    public var scale: Double
    public var panelWidth: Int
    public var panelHeight: Int
    public var transform: OutputTransform

    public init(origin: (x: Int, y: Int), scale: Double = 1, panelWidth: Int, panelHeight: Int, transform: OutputTransform = .normal) {
        self.origin = origin
        self.scale = scale
        self.panelWidth = panelWidth
        self.panelHeight = panelHeight
        self.transform = transform
    }

    /// The output's size in desktop points (as `KMSOutput.logicalSize`).
    public var logicalSize: (width: Int, height: Int) {
        let turned = transform.logicalSize(width: panelWidth, height: panelHeight)
        guard scale > 0, scale.isFinite else { return turned }
        return (Int(exactly: (Double(turned.width) / scale).rounded()) ?? turned.width,
                Int(exactly: (Double(turned.height) / scale).rounded()) ?? turned.height)
    }

    /// The output's rectangle in the desktop.
    public var rect: Rect {
        let size = logicalSize
        return Rect(x: Double(origin.x), y: Double(origin.y), width: Double(size.width), height: Double(size.height))
    }
}

/// Where the cursor shows for a desktop point: the output, and its panel's pixels.
public struct CursorSpot: Sendable, Equatable {
    /// The output's index in the list given.
    public var output: Int
    /// The point itself, moved into the nearest output where it was outside all of them.
    public var point: Point
    /// The panel pixel the hot spot lands on.
    public var pixelX: Int
    public var pixelY: Int

    public init(output: Int, point: Point, pixelX: Int, pixelY: Int) {
        self.output = output
        self.point = point
        self.pixelX = pixelX
        self.pixelY = pixelY
    }
}

/// The cursor's arithmetic, kept apart from the device so it can be checked by hand.
public enum CursorGeometry {
    /// Where pixel (x, y) of a `width`×`height` image lands when the image is turned like an
    /// output's picture by `transform` (`OutputTransform.matrix`, applied to the pixel's centre).
    public static func turn(x: Int, y: Int, width: Int, height: Int, transform: OutputTransform) -> (x: Int, y: Int) {
        let m = transform.matrix(logicalWidth: Double(width), logicalHeight: Double(height))
        let size = transform.logicalSize(width: width, height: height)
        guard let p = m.apply(to: Point(x: Double(x) + 0.5, y: Double(y) + 0.5)) else { return (x, y) }
        return (clampedIndex(p.x, size.width), clampedIndex(p.y, size.height))
    }

    /// The point nearest to `point` inside one of `rects` (itself where it is inside one);
    /// nil where there are no rectangles or the point is not finite.
    public static func clamp(_ point: Point, to rects: [Rect]) -> Point? {
        guard point.x.isFinite, point.y.isFinite else { return nil }
        var best: (point: Point, distance: Double)?
        for r in rects where r.size.width > 0 && r.size.height > 0 {
            let x = min(max(point.x, r.origin.x), (r.origin.x + r.size.width).nextDown)
            let y = min(max(point.y, r.origin.y), (r.origin.y + r.size.height).nextDown)
            let d = (x - point.x) * (x - point.x) + (y - point.y) * (y - point.y)
            if best == nil || d < best!.distance { best = (Point(x: x, y: y), d) }
        }
        return best?.point
    }

    /// The panel pixel showing desktop point `point` on `output`: the point is moved to the
    /// output's corner, scaled, and the logical pixel holding it is turned onto the panel.
    public static func panelPixel(_ point: Point, on output: CursorOutput) -> (x: Int, y: Int) {
        let turned = output.transform.logicalSize(width: output.panelWidth, height: output.panelHeight)
        let scale = output.scale > 0 && output.scale.isFinite ? output.scale : 1
        let lx = clampedIndex((point.x - Double(output.origin.x)) * scale, turned.width)
        let ly = clampedIndex((point.y - Double(output.origin.y)) * scale, turned.height)
        let m = output.transform.matrix(logicalWidth: Double(turned.width), logicalHeight: Double(turned.height))
        guard let p = m.apply(to: Point(x: Double(lx) + 0.5, y: Double(ly) + 0.5)) else { return (lx, ly) }
        return (clampedIndex(p.x, output.panelWidth), clampedIndex(p.y, output.panelHeight))
    }

    /// Where the cursor shows for `point`: on the first output whose rectangle holds it (after
    /// moving it into the nearest output where it is outside them all), at that panel pixel.
    public static func spot(_ point: Point, on outputs: [CursorOutput]) -> CursorSpot? {
        let rects = outputs.map(\.rect)
        guard let at = clamp(point, to: rects),
              let index = rects.firstIndex(where: { at.x >= $0.origin.x && at.y >= $0.origin.y
                  && at.x < $0.origin.x + $0.size.width && at.y < $0.origin.y + $0.size.height }) else { return nil }
        let pixel = panelPixel(at, on: outputs[index])
        return CursorSpot(output: index, point: at, pixelX: pixel.x, pixelY: pixel.y)
    }

    /// ⌊v⌋ as an index into 0..<count (0 where v is not finite or count is empty).
    static func clampedIndex(_ v: Double, _ count: Int) -> Int {
        guard v.isFinite, count > 0 else { return 0 }
        return Int(min(max(v.rounded(.down), 0), Double(count - 1)))
    }
}

/// Where the cursor shows on one output's CRTC: the buffer, with its top-left at a CRTC
/// position in pixels, and the hot spot within the buffer.
public struct CursorPlacement: Sendable, Equatable {
    public var framebuffer: UInt32
    /// The dumb buffer's GEM handle (legacy `drmModeSetCursor2`).
    public var handle: UInt32
    public var width: Int
    public var height: Int
    /// The buffer's top-left on the CRTC: the hot spot's pixel less the hot spot.
    public var x: Int
    public var y: Int
    public var hotX: Int
    public var hotY: Int
}

/// The cursor's buffer on a card: a dumb buffer of the device's cursor size holding the arrow
/// turned for one output transform, with a framebuffer (ARGB8888) for the cursor plane.
final class CursorBuffer {
    let drm: DRMDevice
    let transform: OutputTransform
    let handle: UInt32
    /// The cursor plane's FB_ID: `imported`'s id.
    let framebuffer: UInt32
    /// The framebuffer over the dumb buffer; nil only once deinit has removed it, before it
    /// destroys the dumb buffer under it.
    private var imported: DRMFramebuffer?
    let width: Int
    let height: Int
    /// The hot spot in the buffer (the turned arrow's tip).
    let hotX: Int
    let hotY: Int

    /// The framebuffer is made by `DRMFramebuffer`, as the planes' are.
    /// The corresponding C functions are `drmGetCap(DRM_CAP_CURSOR_WIDTH/HEIGHT)`,
    /// `drmModeCreateDumbBuffer`, `drmModeMapDumbBuffer` and `mmap`.
    init(drm: DRMDevice, transform: OutputTransform) throws(DRMError) {
        self.drm = drm
        self.transform = transform
        let image = CursorSprite.image(for: transform)
        // The driver's cursor size (64x64 where it does not say); an absurd answer is ignored.
        func cap(_ which: UInt64) -> Int {
            var value: UInt64 = 0
            guard drmGetCap(drm.fd, which, &value) == 0, let n = Int(exactly: value), (1...1024).contains(n) else { return 64 }
            return n
        }
        let width = max(cap(UInt64(DRM_CAP_CURSOR_WIDTH)), image.width), height = max(cap(UInt64(DRM_CAP_CURSOR_HEIGHT)), image.height)
        self.width = width
        self.height = height
        hotX = image.hotX
        hotY = image.hotY
        var handle: UInt32 = 0, pitch: UInt32 = 0, size: UInt64 = 0
        try drmCheck("drmModeCreateDumbBuffer(\(width)x\(height) cursor)",
                     drmModeCreateDumbBuffer(drm.fd, UInt32(width), UInt32(height), 32, 0, &handle, &pitch, &size))
        self.handle = handle
        do throws(DRMError) {
            guard let bytes = Int(exactly: size), let rowBytes = Int(exactly: pitch), rowBytes >= width * 4, bytes >= rowBytes * height else {
                throw DRMError("drmModeCreateDumbBuffer(cursor) gave pitch \(pitch) and size \(size) for \(width)x\(height)", errno: EINVAL)
            }
            var offset: UInt64 = 0
            try drmCheck("drmModeMapDumbBuffer(cursor)", drmModeMapDumbBuffer(drm.fd, handle, &offset))
            guard let mapOffset = off_t(exactly: offset) else { throw DRMError("drmModeMapDumbBuffer(cursor) gave offset \(offset)", errno: EINVAL) }
            guard let map = mmap(nil, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, drm.fd, mapOffset), map != MAP_FAILED else {
                throw DRMError("mmap of the cursor buffer", errno: errno)
            }
            let pixels = CursorSprite.argb8888(width: width, height: height, transform: transform)
            pixels.withUnsafeBytes { p in
                for y in 0..<height { (map + y * rowBytes).copyMemory(from: p.baseAddress! + y * width * 4, byteCount: width * 4) }
            }
            munmap(map, bytes)
            let fb = try DRMFramebuffer(width: UInt32(width), height: UInt32(height), fourcc: DRMFormat.argb8888,
                                        handle: handle, pitch: pitch, on: drm, what: "cursor dumb buffer")
            imported = fb
            framebuffer = fb.id
        } catch {
            drmModeDestroyDumbBuffer(drm.fd, handle)
            throw error
        }
    }

    deinit {
        imported = nil  // drmModeRmFB, while the buffer it scans out still exists
        drmModeDestroyDumbBuffer(drm.fd, handle)
    }
}
