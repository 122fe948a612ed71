import LaminaCore

/// A box on an output, in pixels with y down (the display points of a `DrawList`), with
/// fractional edges until `pixelAligned`.
public struct PixelBox: Sendable, Equatable, CustomStringConvertible {
    public var x0: Double, y0: Double, x1: Double, y1: Double

    public init(x0: Double, y0: Double, x1: Double, y1: Double) {
        self.x0 = x0
        self.y0 = y0
        self.x1 = x1
        self.y1 = y1
    }

    /// The box of a `width` × `height` output.
    public init(width: Int, height: Int) {
        self.init(x0: 0, y0: 0, x1: Double(width), y1: Double(height))
    }

    public static let empty = PixelBox(x0: 0, y0: 0, x1: 0, y1: 0)
    /// True when the box covers nothing (also for NaN edges).
    public var isEmpty: Bool { !(x1 > x0 && y1 > y0) }
    public var rect: Rect { Rect(x: x0, y: y0, width: x1 - x0, height: y1 - y0) }
    /// The area in square pixels; 0 when empty.
    public var area: Double { isEmpty ? 0 : (x1 - x0) * (y1 - y0) }

    public func union(_ o: PixelBox) -> PixelBox {
        if isEmpty { return o }
        if o.isEmpty { return self }
        return PixelBox(x0: min(x0, o.x0), y0: min(y0, o.y0), x1: max(x1, o.x1), y1: max(y1, o.y1))
    }

    public func intersection(_ o: PixelBox) -> PixelBox {
        let b = PixelBox(x0: max(x0, o.x0), y0: max(y0, o.y0), x1: min(x1, o.x1), y1: min(y1, o.y1))
        return b.isEmpty ? .empty : b
    }

    public func intersects(_ o: PixelBox) -> Bool { !intersection(o).isEmpty }

    /// True when `o` lies inside this box (an empty `o` always does).
    public func contains(_ o: PixelBox) -> Bool {
        o.isEmpty || (o.x0 >= x0 && o.y0 >= y0 && o.x1 <= x1 && o.y1 <= y1)
    }

    public func expanded(by d: Double) -> PixelBox {
        isEmpty ? self : PixelBox(x0: x0 - d, y0: y0 - d, x1: x1 + d, y1: y1 + d)
    }

    /// Grown outwards to whole pixels.
    public var pixelAligned: PixelBox {
        PixelBox(x0: x0.rounded(.down), y0: y0.rounded(.down), x1: x1.rounded(.up), y1: y1.rounded(.up))
    }

    public var description: String { "(\(x0), \(y0))–(\(x1), \(y1))" }
}

extension Transform3D {
    /// How many display points one layer unit spans, near the layer's origin: the geometric
    /// mean of the scales of the 2D part (perspective ignored).
    public var approximateScale: Double {
        abs(m11 * m22 - m12 * m21).squareRoot()
    }

    /// Where a layer-space displacement `d` at `p` lands on the display, as a display vector.
    public func displayOffset(of d: Size, at p: Point) -> Size {
        guard let a = apply(to: p), let b = apply(to: Point(x: p.x + d.width, y: p.y + d.height)) else { return d }
        return Size(width: b.x - a.x, height: b.y - a.y)
    }

    /// The display box of `r`'s corners, or `everything` where a corner is behind the eye (or
    /// lands nowhere: NaN).
    public func displayBox(of r: Rect, within everything: PixelBox) -> PixelBox {
        var box = PixelBox(x0: .infinity, y0: .infinity, x1: -.infinity, y1: -.infinity)
        for i in 0..<4 {
            let corner = Point(x: i & 1 == 0 ? r.minX : r.maxX, y: i & 2 == 0 ? r.minY : r.maxY)
            guard let p = apply(to: corner), !p.x.isNaN, !p.y.isNaN else { return everything }
            box = PixelBox(x0: min(box.x0, p.x), y0: min(box.y0, p.y), x1: max(box.x1, p.x), y1: max(box.y1, p.y))
        }
        return box.isEmpty ? .empty : box
    }
}

extension DrawFilters {
    /// The blurs' reach in display pixels under `transform`, and a pixel for the linear taps.
    public func displayReach(_ transform: Transform3D) -> Double {
        let r = reach
        guard r > 0 else { return 0 }
        let scale = transform.approximateScale
        return r * (scale.isFinite ? scale : 0) + 2
    }
}

extension DrawCommand {
    /// The box around the points of `polygons`, or nil for none.
    public static func boundingRect(_ polygons: [[Point]]) -> Rect? { Rect(bounding: polygons.joined()) }

    /// The display box a `pathShadow` may touch: the path's box moved by the offset and grown
    /// by the blur's reach (three standard deviations, and the antialiasing ramp).
    public func pathShadowBox(within everything: PixelBox) -> PixelBox {
        guard let s = shadow, let r = Self.boundingRect(polygons) else { return .empty }
        // The blur runs in display pixels with sigma = radius / 2 × the transform's mean scale
        // (as a group's shadow), around the path's display box moved by the display offset.
        let path = transform.displayBox(of: r, within: everything)
        guard path != everything else { return everything }
        let o = transform.displayOffset(of: s.offset, at: Point(x: r.midX, y: r.midY))
        let scale = transform.approximateScale
        let reach = 1.5 * s.radius * (scale.isFinite ? scale : 0) + 4
        return PixelBox(x0: path.x0 + o.width, y0: path.y0 + o.height, x1: path.x1 + o.width, y1: path.y1 + o.height)
            .expanded(by: reach).union(path.expanded(by: 2))
    }
}

/// What each command of a list may touch on the display: the renderer's group boxes and
/// scissors, and the damage tracker's extents.
public struct CommandExtents: Sendable {
    /// `boxes[i]`: what command i draws on its target, grown for antialiasing and blur. A
    /// `beginGroup` (or `beginMask`) holds what its content covers; the matching `endGroup`
    /// (or `endMask`) what compositing the group touches, its shadow included. Clips and
    /// `popClip` are empty.
    public private(set) var boxes: [PixelBox] = []
    /// `ends[i]` for a `beginGroup`: the index of the `endGroup` or `endMask` that closes it,
    /// or nil where the list never closes it (and for every other command).
    public private(set) var ends: [Int?] = []
    private var open: [Int] = []

    public init() {}

    /// The extents of `commands` on a display of `viewport`; reuses the arrays' storage.
    public mutating func measure(_ commands: [DrawCommand], within viewport: PixelBox) {
        boxes.removeAll(keepingCapacity: true)
        ends.removeAll(keepingCapacity: true)
        open.removeAll(keepingCapacity: true)
        var groupsOpen: [Int] = []
        for (i, c) in commands.enumerated() {
            var box = PixelBox.empty
            switch c.kind {
            case .layer, .gradient, .backdrop:
                box = c.transform.displayBox(of: c.bounds, within: viewport).expanded(by: 2)
            case .pathShadow:
                box = c.pathShadowBox(within: viewport)
            case .beginMask:
                // The mask's own commands measure into it, not into the group they mask.
                open.append(i)
            case .endMask:
                guard open.popLast() != nil, let begin = open.popLast() else { break }
                box = boxes[begin]
                if let g = groupsOpen.popLast() { ends[g] = i }
            case .shadow:
                if let s = c.shadow {
                    let reach = 1.5 * s.radius + 2
                    let rect = Rect(x: c.bounds.minX + s.offset.width - reach, y: c.bounds.minY + s.offset.height - reach,
                                    width: c.bounds.width + 2 * reach, height: c.bounds.height + 2 * reach)
                    box = c.transform.displayBox(of: rect, within: viewport).expanded(by: 2)
                }
            case .beginGroup:
                open.append(i)
                groupsOpen.append(i)
            case .endGroup:
                guard let begin = open.popLast() else { break }
                if let g = groupsOpen.popLast() { ends[g] = i }
                let g = commands[begin]
                if let f = g.filters, !boxes[begin].isEmpty {
                    // A blur spreads the group's pixels by its reach: the group is drawn and
                    // composited over that much more, and damage inside it grows as far.
                    boxes[begin] = boxes[begin].expanded(by: f.displayReach(g.transform))
                }
                let content = boxes[begin]
                box = content
                if let s = g.shadow, !content.isEmpty {
                    let reach = 1.5 * s.radius * g.transform.approximateScale + 2
                    let o = g.transform.displayOffset(of: s.offset, at: Point(x: g.bounds.midX, y: g.bounds.midY))
                    box = box.union(PixelBox(x0: content.x0 + o.width, y0: content.y0 + o.height,
                                             x1: content.x1 + o.width, y1: content.y1 + o.height).expanded(by: reach))
                }
            case .contents:
                if let d = c.contents {
                    let extent = d.clip?.rect ?? d.destination
                    box = c.transform.displayBox(of: extent, within: viewport).expanded(by: 2)
                }
            case .particles:
                // Particles off the layer's plane (preservesDepth) may land anywhere.
                box = c.particles?.preservesDepth == true ? viewport : c.transform.displayBox(of: c.bounds, within: viewport).expanded(by: 2)
            case .pushClip, .popClip:
                break
            }
            boxes.append(box)
            ends.append(nil)
            if !box.isEmpty, c.kind != .beginGroup, c.kind != .beginMask, let innermost = open.last {
                boxes[innermost] = boxes[innermost].union(box)
            }
        }
    }

    /// What compositing the group opened at `i` touches, its shadow included; nil where the
    /// list never closes it (it may touch anything).
    public func groupReach(_ i: Int) -> PixelBox? {
        ends[i].map { boxes[$0] }
    }
}
