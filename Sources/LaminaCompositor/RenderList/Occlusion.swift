import LaminaCore

/// Which draws a later opaque layer hides: pixels fully covered by an opaque layer are neither
/// drawn nor blended behind it (weston's opaque regions, in small).
///
/// A *cover* is a `layer` command outside every group and clip whose fill is opaque (alpha 1,
/// opacity 1, an opaque border or none), or such a `gradient` command whose colours are all
/// opaque, or a `contents` command whose pixels are taken as opaque, under a transform that only
/// scales and translates; its
/// opaque part is its rectangle less the corners' reach and one pixel of antialiasing on every
/// side, in whole pixels. A draw outside groups, or a whole group, is skipped where a cover later
/// in the list contains everything it could draw within the box being drawn. Draws inside a
/// group are never skipped one by one (a group's blur reads around its pixels); the group is,
/// as a whole. The largest `maximumCovers` covers are used, so the cost is bounded per command.
///
/// A backdrop (a background-filtered layer) reads what is drawn before it: a cover after a
/// backdrop does not hide, inside the backdrop's read box, what is drawn before the backdrop
/// (`barriers`); covers before it, and draws elsewhere, are as usual.
public struct Occlusion: Sendable {
    public static let maximumCovers = 16
    /// With more backdrops than this a frame skips nothing (each cover's test looks at every
    /// barrier between, so their count bounds the cost per command).
    public static let maximumBarriers = 64
    /// (list index, opaque box) of the largest covers, in list order.
    public private(set) var covers: [(index: Int, box: PixelBox)] = []
    /// (list index, read box) of the backdrops, in list order.
    public private(set) var barriers: [(index: Int, box: PixelBox)] = []

    public init() {}

    /// Finds the covers of `commands` that `drawable` (the renderer's say: whether it can draw
    /// the command, a contents' texture made) lets be, and takes the backdrops' read boxes
    /// (`reads`, by list index) as barriers; reuses storage.
    public mutating func measure(_ commands: [DrawCommand], reads: [(index: Int, box: PixelBox)] = [],
                                 drawable: (DrawCommand) -> Bool = { _ in true }) {
        barriers.removeAll(keepingCapacity: true)
        barriers.append(contentsOf: reads.filter { !$0.box.isEmpty }.sorted { $0.index < $1.index })
        covers.removeAll(keepingCapacity: true)
        guard barriers.count <= Self.maximumBarriers else { return }
        var clips = 0, groups = 0
        for (i, c) in commands.enumerated() {
            switch c.kind {
            case .pushClip: clips += 1
            case .popClip: clips = max(0, clips - 1)
            case .beginGroup: groups += 1
            case .endGroup, .endMask: groups = max(0, groups - 1)
            case .layer where clips == 0 && groups == 0, .gradient where clips == 0 && groups == 0,
                 .contents where clips == 0 && groups == 0:
                if let box = Self.opaqueBox(c), box.area >= 64, drawable(c) { covers.append((i, box)) }
            default: break
            }
        }
        // (Measured into `covers` itself: no allocation per frame once it has grown.)
        if covers.count > Self.maximumCovers {
            let largest = covers.sorted { $0.box.area > $1.box.area }.prefix(Self.maximumCovers)
            covers = largest.sorted { $0.index < $1.index }
        }
    }

    /// Whether what command `index` could draw inside `region` (its extent `box`) is hidden by a
    /// cover drawn after it.
    public func hides(_ box: PixelBox, drawnAt index: Int, within region: PixelBox) -> Bool {
        let visible = box.intersection(region)
        guard !visible.isEmpty else { return false }  // nothing to draw there: the caller skips it anyway
        for cover in covers.reversed() {
            if cover.index <= index { return false }
            if cover.box.contains(visible), !barriers.contains(where: { $0.index > index && $0.index < cover.index && $0.box.intersects(visible) }) {
                return true
            }
        }
        return false
    }

    /// The pixels `c` paints fully opaque, or nil: a `layer` command, a `gradient` one whose
    /// every colour is opaque, or a `contents` one whose pixels are taken as opaque (the layer's
    /// `isOpaque` promise, a picture without alpha: a video frame, an XRGB app buffer, or a
    /// client picture whose every alpha was read as 255), over its destination within its
    /// rounded clip.
    static func opaqueBox(_ c: DrawCommand) -> PixelBox? {
        guard c.opacity >= 1 else { return nil }
        var b = c.bounds, radii = c.cornerRadii
        switch c.kind {
        case .gradient:
            guard let g = c.gradient, !g.colors.isEmpty, g.colors.allSatisfy({ $0.alpha >= 1 }) else { return nil }
        case .contents:
            guard let d = c.contents, d.isOpaque || d.source.isOpaqueThroughout else { return nil }
            b = d.destination
            radii = .zero
            if let clip = d.clip {
                let x0 = max(b.minX, clip.rect.minX), y0 = max(b.minY, clip.rect.minY)
                b = Rect(x0, y0, max(0, min(b.maxX, clip.rect.maxX) - x0), max(0, min(b.maxY, clip.rect.maxY) - y0))
                radii = clip.radii
            }
        default:
            guard c.color.alpha >= 1, c.borderWidth <= 0 || c.borderColor.alpha >= 1 else { return nil }
        }
        let t = c.transform
        guard t.m12 == 0, t.m21 == 0, t.m14 == 0, t.m24 == 0, t.m44 == 1, b.width > 0, b.height > 0 else { return nil }
        let xs = (b.minX * t.m11 + t.m41, b.maxX * t.m11 + t.m41), ys = (b.minY * t.m22 + t.m42, b.maxY * t.m22 + t.m42)
        // A continuous corner curves further along the edges than its radius.
        let radius = radii.reaches(within: b.size).largest * max(abs(t.m11), abs(t.m22))
        let inset = radius + 1
        let box = PixelBox(x0: (min(xs.0, xs.1) + inset).rounded(.up), y0: (min(ys.0, ys.1) + inset).rounded(.up),
                           x1: (max(xs.0, xs.1) - inset).rounded(.down), y1: (max(ys.0, ys.1) - inset).rounded(.down))
        guard box.x0.isFinite, box.y0.isFinite, box.x1.isFinite, box.y1.isFinite, !box.isEmpty else { return nil }
        return box
    }
}
