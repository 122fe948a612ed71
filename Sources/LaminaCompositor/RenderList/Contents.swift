import LaminaCore

/// A textured draw: part of an `ImageSource` mapped onto a rectangle of a layer, with
/// nine-slice edges, filters and an optional rounded clip. The renderer's one way to draw
/// pixels that are not computed in a shader: client images (`contents`) and server rasters
/// (shape and text layers) alike.
///
/// The destination is split into nine parts by `destinationInsets` and the source by
/// `sourceInsets`: the corners map one to one, the edges stretch along their length, the middle
/// stretches both ways (`contentsCenter`). Zero insets draw the source stretched over the
/// destination.
public final class DrawContents: Sendable, Equatable {
    /// The pixels.
    public let source: ImageSource
    /// Where the image lands, in the layer's coordinates (may reach outside its bounds).
    public let destination: Rect
    /// The nine-slice edges in layer units: left, top, right, bottom.
    public let destinationInsets: EdgeInsets
    /// The part of the image drawn, in unit coordinates of the whole image (y down).
    public let sourceRect: Rect
    /// The nine-slice edges in unit coordinates of the whole image: left, top, right, bottom.
    public let sourceInsets: EdgeInsets
    public let minificationFilter: ContentsFilter
    public let magnificationFilter: ContentsFilter
    /// The layer promised opaque contents (`isOpaque`): alpha is taken as 1 and, where nothing
    /// else needs it, blending is skipped.
    public let isOpaque: Bool
    /// The rounded rectangle the contents are clipped to (`masksToBounds`: the layer's bounds
    /// and corners), or nil.
    public let clip: (rect: Rect, radii: CornerRadii)?

    public init(source: ImageSource, destination: Rect, destinationInsets: EdgeInsets = .zero,
                sourceRect: Rect = Rect(x: 0, y: 0, width: 1, height: 1), sourceInsets: EdgeInsets = .zero,
                minificationFilter: ContentsFilter = .linear, magnificationFilter: ContentsFilter = .linear,
                isOpaque: Bool = false, clip: (rect: Rect, radii: CornerRadii)? = nil) {
        self.source = source
        self.destination = destination
        self.destinationInsets = destinationInsets
        self.sourceRect = sourceRect
        self.sourceInsets = sourceInsets
        self.minificationFilter = minificationFilter
        self.magnificationFilter = magnificationFilter
        self.isOpaque = isOpaque
        self.clip = clip
    }

    public static func == (a: DrawContents, b: DrawContents) -> Bool {
        a.source === b.source && a.destination == b.destination && a.destinationInsets == b.destinationInsets
            && a.sourceRect == b.sourceRect && a.sourceInsets == b.sourceInsets
            && a.minificationFilter == b.minificationFilter && a.magnificationFilter == b.magnificationFilter
            && a.isOpaque == b.isOpaque && a.clip?.rect == b.clip?.rect && a.clip?.radii == b.clip?.radii
    }

    /// Core Animation's contents geometry for a layer of `bounds` showing an image of
    /// `imageWidth × imageHeight` pixels: `contentsRect` picks the part of the image (unit
    /// coordinates), `contentsScale` (image pixels per point) gives that part its natural size,
    /// `contentsGravity` places it (y down: `top` is the top edge on screen; the resize
    /// gravities ignore the natural size), and `contentsCenter` (unit coordinates of the part)
    /// marks the stretchable middle: the edges outside it keep their natural size, shrunk
    /// proportionally when the destination is smaller than the two edges together.
    public static func layout(bounds: Rect, imageWidth: Int, imageHeight: Int, contentsRect: Rect,
                              contentsCenter: Rect, gravity: ContentsGravity, scale: Double)
        -> (destination: Rect, destinationInsets: EdgeInsets, sourceRect: Rect, sourceInsets: EdgeInsets) {
        let s = scale > 0 && scale.isFinite ? scale : 1
        let naturalW = abs(contentsRect.width) * Double(imageWidth) / s
        let naturalH = abs(contentsRect.height) * Double(imageHeight) / s
        let bw = bounds.width, bh = bounds.height
        var w = naturalW, h = naturalH
        switch gravity {
        case .resize: w = bw; h = bh
        case .resizeAspect, .resizeAspectFill:
            if naturalW > 0, naturalH > 0 {
                let k = gravity == .resizeAspect ? min(bw / naturalW, bh / naturalH) : max(bw / naturalW, bh / naturalH)
                w = naturalW * k; h = naturalH * k
            } else { w = bw; h = bh }
        default: break
        }
        let x: Double, y: Double
        switch gravity {
        case .left, .topLeft, .bottomLeft: x = bounds.minX
        case .right, .topRight, .bottomRight: x = bounds.maxX - w
        default: x = bounds.minX + (bw - w) / 2
        }
        switch gravity {
        case .top, .topLeft, .topRight: y = bounds.minY
        case .bottom, .bottomLeft, .bottomRight: y = bounds.maxY - h
        default: y = bounds.minY + (bh - h) / 2
        }
        let destination = Rect(x: x, y: y, width: w, height: h)

        // Nine-slice edges, clamped into [0, 1] of the part.
        let c0x = min(max(contentsCenter.minX, 0), 1), c1x = min(max(contentsCenter.maxX, c0x), 1)
        let c0y = min(max(contentsCenter.minY, 0), 1), c1y = min(max(contentsCenter.maxY, c0y), 1)
        let sourceInsets = EdgeInsets(left: c0x * contentsRect.width, top: c0y * contentsRect.height,
                                      right: (1 - c1x) * contentsRect.width, bottom: (1 - c1y) * contentsRect.height)
        var left = c0x * naturalW, right = (1 - c1x) * naturalW
        var top = c0y * naturalH, bottom = (1 - c1y) * naturalH
        if left + right > w, left + right > 0 { let k = w / (left + right); left *= k; right *= k }
        if top + bottom > h, top + bottom > 0 { let k = h / (top + bottom); top *= k; bottom *= k }
        return (destination, EdgeInsets(left: left, top: top, right: right, bottom: bottom), contentsRect, sourceInsets)
    }
}

extension DrawContents {
    /// Whether, drawn under `t` (layer units to pixels), no slice of the image shows more than
    /// one texel per pixel along either screen axis: GL's level-of-detail λ is then at most 0
    /// everywhere, so it would pick the magnification filter. The renderer then sets the
    /// magnification filter for minification too: where an axis is exactly one to one (an edge
    /// strip of a nine-slice image, a strip stretched along one axis only) λ is 0 only up to the
    /// rounding of each pixel's derivatives, and the GL would switch between the two filters
    /// from pixel to pixel. False under perspective (λ varies there; the GL decides).
    public func isMagnified(under t: Transform3D) -> Bool {
        guard t.m14 == 0, t.m24 == 0, t.m44 == 1, source.width > 0, source.height > 0 else { return false }
        let det = t.m11 * t.m22 - t.m12 * t.m21
        guard det != 0, det.isFinite else { return false }
        // The most texels per layer unit of any slice along one axis (the two edges and the
        // middle), or nil where no slice has length.
        func rate(_ length: Double, _ a: Double, _ b: Double, _ part: Double, _ sa: Double, _ sb: Double, _ texels: Double) -> Double? {
            var r: Double?
            if a > 0 { r = abs(sa) * texels / a }
            if b > 0 { r = max(r ?? 0, abs(sb) * texels / b) }
            let middle = length - a - b
            if middle > 0 { r = max(r ?? 0, max(0, abs(part) - abs(sa) - abs(sb)) * texels / middle) }
            return r
        }
        let di = destinationInsets, si = sourceInsets
        // A value that is not finite (a client's transform or insets) leaves it to the GL.
        guard destination.width.isFinite, destination.height.isFinite, sourceRect.width.isFinite, sourceRect.height.isFinite,
              (di.left + di.right + di.top + di.bottom + si.left + si.right + si.top + si.bottom).isFinite
        else { return false }
        guard let x = rate(destination.width, di.left, di.right, sourceRect.width, si.left, si.right, Double(source.width)),
              let y = rate(destination.height, di.top, di.bottom, sourceRect.height, si.top, si.bottom, Double(source.height))
        else { return false }
        // The texel-per-pixel Jacobian is diag(x, y) times the inverse of the layer-to-screen
        // 2 × 2 matrix; GL's ρ is the longer of its two columns (one per screen axis), and both
        // grow with either rate, so the largest rates decide. Divided before squaring, so that
        // tiny values cannot underflow to 0.
        let ux = x * t.m22 / det, vx = y * t.m12 / det, uy = x * t.m21 / det, vy = y * t.m11 / det
        let limit = (1 + 1e-6) * (1 + 1e-6)
        guard ux * ux + vx * vx <= limit, uy * uy + vy * vy <= limit else { return false }
        return true
    }
}

/// Distances in from the four edges of a rectangle (y down: `top` is the `minY` edge).
public struct EdgeInsets: Sendable, Equatable {
    public var left: Double
    public var top: Double
    public var right: Double
    public var bottom: Double
    public init(left: Double, top: Double, right: Double, bottom: Double) {
        self.left = left; self.top = top; self.right = right; self.bottom = bottom
    }
    public static let zero = EdgeInsets(left: 0, top: 0, right: 0, bottom: 0)
}

/// What the renderer holds in textures, for `stats`.
public struct TextureUsage: Sendable, Equatable {
    /// Texture bytes (4 a pixel, plus a third for mipmaps) and textures, by owner.
    public var bytes: [ImageSource.Owner: Int] = [:]
    public var textures: [ImageSource.Owner: Int] = [:]
    public init() {}
    public var totalBytes: Int { bytes.values.reduce(0, +) }
    public var totalTextures: Int { textures.values.reduce(0, +) }
}
