import LaminaCore

/// An overlay plane an output's CRTC can use: what a scan-out backend offers the planner.
public struct OverlayPlane: Sendable, Equatable {
    public var id: UInt32
    /// The DRM fourccs it scans out.
    public var formats: [UInt32]
    public init(id: UInt32, formats: [UInt32]) {
        self.id = id
        self.formats = formats
    }
}

/// A video picture on an overlay plane: which plane, the part of the picture (its pixels) and
/// where it lands on the output (whole pixels, y down).
public struct PlaneScanout: Sendable {
    public var picture: DMABufPicture
    public var plane: UInt32
    public var source: Rect
    public var destination: PixelBox

    public init(picture: DMABufPicture, plane: UInt32, source: Rect, destination: PixelBox) {
        self.picture = picture
        self.plane = plane
        self.source = source
        self.destination = destination
    }

    /// `frame` (the primary plane's pixels, top row first) with the picture laid over it where
    /// the plane shows it, as the display blends them (an opaque plane above the primary): what
    /// a screenshot of the output shows. `pixels` is the picture in system memory (`copy()`),
    /// sampled nearest where the plane scales. Unchanged where the picture cannot be read.
    public func composite(_ pixels: Bitmap?, onto frame: Bitmap) -> Bitmap {
        guard let pixels, pixels.width > 0, pixels.height > 0 else { return frame }
        let box = destination.intersection(PixelBox(width: frame.width, height: frame.height))
        guard !box.isEmpty, source.width > 0, source.height > 0, destination.x1 > destination.x0, destination.y1 > destination.y0,
              let x0 = Int(exactly: box.x0.rounded(.down)), let y0 = Int(exactly: box.y0.rounded(.down)),
              let x1 = Int(exactly: box.x1.rounded(.up)), let y1 = Int(exactly: box.y1.rounded(.up))
        else { return frame }
        var out = frame
        let sx = source.width / (destination.x1 - destination.x0), sy = source.height / (destination.y1 - destination.y0)
        out.bytes.withUnsafeMutableBufferPointer { o in
            pixels.bytes.withUnsafeBufferPointer { p in
                for y in y0..<y1 {
                    let v = Int(min(max((source.minY + (Double(y) + 0.5 - destination.y0) * sy).rounded(.down), 0), Double(pixels.height - 1)))
                    for x in x0..<x1 {
                        let u = Int(min(max((source.minX + (Double(x) + 0.5 - destination.x0) * sx).rounded(.down), 0), Double(pixels.width - 1)))
                        let i = (y * frame.width + x) * 4, j = (v * pixels.width + u) * 4
                        o[i] = p[j]; o[i + 1] = p[j + 1]; o[i + 2] = p[j + 2]; o[i + 3] = 255
                    }
                }
            }
        }
        return out
    }
}

/// Whether a video on an output can be scanned out on an overlay plane instead of composited,
/// and where; or why not.
public enum OverlayDecision: Sendable, Equatable {
    /// No video is drawn on the output.
    case noVideo
    /// The video drawn by `command` goes on `plane`: `source` is the part of the picture in its
    /// pixels, `destination` where it lands on the output (whole pixels). The compositor leaves
    /// it out of the frame it draws (the plane lies above the primary plane there).
    case scanout(command: Int, plane: UInt32, source: Rect, destination: PixelBox)
    /// The video is composited, for this reason.
    case composite(String)
}

/// Decides, frame by frame, whether an output's video, or an app's buffer in dma-buf memory
/// (a Wayland app's window: direct scan-out), can go on an overlay plane (issue 14):
/// the video must be a picture the display can scan out (a dma-buf, opaque, in a format the
/// plane takes), drawn straight (axis-aligned, unscaled in sign, no perspective), fully opaque,
/// unclipped and unmasked, not nine-sliced, and top-most: nothing drawn after it may touch its
/// rectangle. Pure, so every rule is tested without a device; a backend still tries the plane
/// with an atomic TEST_ONLY commit before using it.
public enum OverlayPlanner {
    public static func plan(_ list: DrawList, planes: [OverlayPlane]) -> OverlayDecision {
        let viewport = PixelBox(width: list.width, height: list.height)
        // The last video drawn is the candidate (one plane, and the top-most video is the one
        // most likely to have nothing above it).
        var depth = 0  // inside groups, masks and clips
        var candidate: (index: Int, depth: Int)?
        for (i, c) in list.commands.enumerated() {
            switch c.kind {
            case .beginGroup, .beginMask, .pushClip: depth += 1
            case .endGroup, .endMask, .popClip: depth -= 1
            case .contents where c.contents?.source.isScanoutCandidate == true: candidate = (i, depth)
            default: break
            }
        }
        guard let (index, nesting) = candidate, let contents = list.commands[index].contents else { return .noVideo }
        let c = list.commands[index]
        let video = contents.source
        guard let picture = video.dmabuf else {
            return .composite("the frame is in system memory (a plane scans out only a dma-buf the display can take)")
        }
        guard !picture.hasAlpha else { return .composite("the picture has alpha") }
        // A YUV plane converts with its COLOR_ENCODING and COLOR_RANGE properties, which
        // laminad does not set yet (the driver's default, often BT.601 limited, would show
        // BT.709 or full-range video in the wrong colours); the renderer converts right.
        guard !picture.isYUV else {
            return .composite("the picture is YUV (\(DRMFourCC.name(picture.fourcc))): laminad does not set a plane's colour encoding and range yet")
        }
        guard nesting == 0, contents.clip == nil, c.cornerRadii == .zero else {
            return .composite("the video is clipped, masked or in a group")
        }
        guard c.opacity >= 1, !c.compositesAdditively else { return .composite("the video is translucent") }
        let t = c.transform
        guard t.m14 == 0, t.m24 == 0, t.m44 == 1, t.m12 == 0, t.m21 == 0, t.m11 > 0, t.m22 > 0 else {
            return .composite("the video is rotated, flipped or in perspective")
        }
        guard contents.destinationInsets == .zero, contents.sourceInsets == .zero else {
            return .composite("the video is nine-sliced (contentsCenter)")
        }
        // Where it lands, in whole pixels: a plane has no subpixel placement.
        let d = contents.destination
        let x0 = t.m11 * d.minX + t.m41, x1 = t.m11 * d.maxX + t.m41
        let y0 = t.m22 * d.minY + t.m42, y1 = t.m22 * d.maxY + t.m42
        let destination = PixelBox(x0: x0.rounded(), y0: y0.rounded(), x1: x1.rounded(), y1: y1.rounded())
        guard [x0, y0, x1, y1].allSatisfy({ abs($0 - $0.rounded()) < 0.01 }) else {
            return .composite("the video does not lie on whole pixels")
        }
        guard !destination.isEmpty, destination.intersection(viewport) == destination else {
            return .composite("the video reaches past the output's edge")
        }
        for later in list.commands[(index + 1)...] where later.kind != .popClip && later.kind != .endGroup && later.kind != .endMask {
            if later.transform.displayBox(of: later.bounds, within: viewport).intersects(destination)
                || later.contents.map({ later.transform.displayBox(of: $0.destination, within: viewport).intersects(destination) }) == true {
                return .composite("something is drawn over the video")
            }
        }
        guard let plane = planes.first(where: { $0.formats.contains(picture.fourcc) }) else {
            return .composite(planes.isEmpty ? "the output has no free overlay plane"
                                             : "no overlay plane scans out \(DRMFourCC.name(picture.fourcc))")
        }
        let s = contents.sourceRect
        let source = Rect(x: s.minX * Double(picture.width), y: s.minY * Double(picture.height),
                          width: s.width * Double(picture.width), height: s.height * Double(picture.height))
        guard source.width > 0, source.height > 0 else { return .composite("the video's contentsRect is flipped or empty") }
        return .scanout(command: index, plane: plane.id, source: source, destination: destination)
    }
}
