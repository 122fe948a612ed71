import LaminaCore
import LaminaCompositor

/// Splits a layer's rounded rectangle (and its border) into the parts that need the
/// antialiasing shader and the parts that are one flat colour, so that on a software rasteriser
/// the expensive distance-field shader runs only on a thin band along each edge and on the
/// corner patches.
///
/// Everything is in the layer's coordinates. `margin` is at least one display pixel in layer
/// units in every direction, so a cell called flat is at least one pixel away from every edge
/// and the shader would have computed a coverage of exactly 0 or 1 there: the flat cells show
/// exactly what the shader would have drawn. Outside the corner squares (a corner's reach
/// from each of its edges: its radius, or up to 1.53 radii for a continuous corner) the
/// rounded rectangle's distance is the plain box distance, so the split works axis by axis.
struct EdgeBands {
    /// Cells for the distance-field shader: the antialiased edges and the corners.
    var shaded: [Rect] = []
    /// For continuous corners only, the shaded cells within a corner's square; the cells left in
    /// `shaded` then see straight edges only, where a continuous corner's distance is a
    /// circular one's (the box distance), so they can take the cheaper circular program.
    var corners: [Rect] = []
    /// Cells fully inside the fill (and inside the border's inner edge).
    var fill: [Rect] = []
    /// Cells fully inside the border ring, away from both of its edges.
    var border: [Rect] = []

    /// What the cells were last split from: many layers share their bounds, corners and
    /// border (a list, a grid of cards), and their cells are then the same.
    private var lastSplit: (bounds: Rect, radii: CornerRadii, borderWidth: Double, margin: Double, pad: Double, merge: Bool,
                            strips: Bool)?

    mutating func removeAll() {
        shaded.removeAll(keepingCapacity: true)
        corners.removeAll(keepingCapacity: true)
        fill.removeAll(keepingCapacity: true)
        border.removeAll(keepingCapacity: true)
        lastSplit = nil
    }

    /// Partitions `bounds` grown by `pad` (the extent the shader draws) into cells.
    /// `borderWidth` is 0 for no border.
    ///
    /// With `merge`, neighbouring cells of the same kind in a row become one, and a row whose
    /// cells are those of the row above extends it: far fewer cells (a bordered rounded layer
    /// goes from about 49 to about 15). Only for a layer whose edges stay horizontal and
    /// vertical on the display: there a vertex of one row lying on an edge of the next (a
    /// T-junction) rasterises exactly, while under rotation it could leave a seam.
    ///
    /// With `strips` (only with `merge`), the corner squares along the layer's shorter sides
    /// grow into strips along those whole sides: the distance field runs on more pixels, but a
    /// bordered rounded layer takes 5 cells instead of about 11 (top and bottom bands, two side
    /// strips, one flat middle), and on llvmpipe each cell's setup and binning cost more than
    /// the pixels (the peer scene: 13 % less CPU a frame).
    mutating func split(_ bounds: Rect, radii: CornerRadii, borderWidth: Double, margin: Double, pad: Double, merge: Bool = false,
                        strips: Bool = false) {
        if let last = lastSplit, last.bounds == bounds, last.radii == radii, last.borderWidth == borderWidth,
           last.margin == margin, last.pad == pad, last.merge == merge, last.strips == strips {
            return
        }
        removeAll()
        defer { lastSplit = (bounds, radii, borderWidth, margin, pad, merge, strips) }
        // The squares the corners' curves fill: a continuous corner's reaches past its radius
        // (the border's inner corners lie within the outer ones').
        let separateCorners = radii.curve == .continuous
        let radii = radii.reaches(within: bounds.size)
        let x0 = bounds.minX, x1 = bounds.maxX, y0 = bounds.minY, y1 = bounds.maxY
        let e = margin, w = borderWidth
        let innerExists = w > 0 && bounds.width > 2 * w && bounds.height > 2 * w
        var xs: [Double] = [x0 - pad, x1 + pad, x0 + e, x1 - e,
                            x0 + radii.minXMinY, x0 + radii.minXMaxY, x1 - radii.maxXMinY, x1 - radii.maxXMaxY]
        var ys: [Double] = [y0 - pad, y1 + pad, y0 + e, y1 - e,
                            y0 + radii.minXMinY, y0 + radii.maxXMinY, y1 - radii.minXMaxY, y1 - radii.maxXMaxY]
        if w > 0 {
            xs += [x0 + w - e, x0 + w + e, x1 - w - e, x1 - w + e]
            ys += [y0 + w - e, y0 + w + e, y1 - w - e, y1 - w + e]
        }
        let xCuts = Self.cuts(xs, x0 - pad, x1 + pad)
        let yCuts = Self.cuts(ys, y0 - pad, y1 + pad)

        /// An interval's class along one axis: 0 an outer edge's ramp or an inner edge's ramp,
        /// 1 inside the border ring, 2 inside the inner edge (or everything inside, without border).
        func axisClass(_ a: Double, _ b: Double, _ lo: Double, _ hi: Double) -> Int {
            if b <= lo + e || a >= hi - e { return 0 }
            guard w > 0 else { return 2 }
            guard innerExists else { return 1 }
            if a < lo + w + e && b > lo + w - e { return 0 }
            if a < hi - w + e && b > hi - w - e { return 0 }
            return b <= lo + w - e || a >= hi - w + e ? 1 : 2
        }
        // Strips along the shorter sides: columns at minX and maxX for a layer wider than tall.
        let columns = strips && merge && bounds.width >= bounds.height
        let rows = strips && merge && !columns
        let left = columns ? max(radii.minXMinY, radii.minXMaxY) : 0, right = columns ? max(radii.maxXMinY, radii.maxXMaxY) : 0
        let top = rows ? max(radii.minXMinY, radii.maxXMinY) : 0, bottom = rows ? max(radii.minXMaxY, radii.maxXMaxY) : 0
        func inStrip(_ a: Double, _ b: Double, _ c: Double, _ d: Double) -> Bool {
            (left > 0 && b <= x0 + left) || (right > 0 && a >= x1 - right)
                || (top > 0 && d <= y0 + top) || (bottom > 0 && c >= y1 - bottom)
        }
        func inSquare(_ a: Double, _ b: Double, _ c: Double, _ d: Double) -> Bool {
            // The cell [a, b] × [c, d] lies in a corner square with a radius.
            (radii.minXMinY > 0 && b <= x0 + radii.minXMinY && d <= y0 + radii.minXMinY)
                || (radii.maxXMinY > 0 && a >= x1 - radii.maxXMinY && d <= y0 + radii.maxXMinY)
                || (radii.maxXMaxY > 0 && a >= x1 - radii.maxXMaxY && c >= y1 - radii.maxXMaxY)
                || (radii.minXMaxY > 0 && b <= x0 + radii.minXMaxY && c >= y1 - radii.minXMaxY)
        }
        // The previous row's runs: kind, x extent, and where its rectangle is.
        var above: [(kind: Int, a: Double, b: Double, at: Int)] = []
        var row: [(kind: Int, a: Double, b: Double, at: Int)] = []
        for j in 0..<(yCuts.count - 1) {
            let c = yCuts[j], d = yCuts[j + 1]
            let yClass = axisClass(c, d, y0, y1)
            // Without `merge`, cells are not merged along a row: every row then has the same
            // vertices, so no vertex of one row lies inside an edge of the next (a T-junction,
            // where rounding can leave a pixel drawn twice or not at all).
            row.removeAll(keepingCapacity: true)
            for i in 0..<(xCuts.count - 1) {
                let a = xCuts[i], b = xCuts[i + 1]
                let square = inSquare(a, b, c, d)
                let kind = separateCorners && square ? 3 : square || inStrip(a, b, c, d) ? 0 : min(axisClass(a, b, x0, x1), yClass)
                if merge, let last = row.last, last.kind == kind, last.b == a {
                    row[row.count - 1].b = b
                } else {
                    row.append((kind, a, b, -1))
                }
            }
            if merge, row.count == above.count, zip(row, above).allSatisfy({ $0.kind == $1.kind && $0.a == $1.a && $0.b == $1.b }) {
                for run in above { grow(run.kind, run.at, to: d) }
                continue
            }
            for k in row.indices {
                let r = Rect(x: row[k].a, y: c, width: row[k].b - row[k].a, height: d - c)
                switch row[k].kind {
                case 0: row[k].at = shaded.count; shaded.append(r)
                case 3: row[k].at = corners.count; corners.append(r)
                case 1: row[k].at = border.count; border.append(r)
                default: row[k].at = fill.count; fill.append(r)
                }
            }
            swap(&above, &row)
        }
    }

    /// Extends the cell at `index` of the kind's list down to `maxY`.
    private mutating func grow(_ kind: Int, _ index: Int, to maxY: Double) {
        switch kind {
        case 0: shaded[index].size.height = maxY - shaded[index].minY
        case 3: corners[index].size.height = maxY - corners[index].minY
        case 1: border[index].size.height = maxY - border[index].minY
        default: fill[index].size.height = maxY - fill[index].minY
        }
    }

    /// The sorted distinct cut positions within [lo, hi], both ends included.
    private static func cuts(_ values: [Double], _ lo: Double, _ hi: Double) -> [Double] {
        var v = values.map { Swift.min(Swift.max($0, lo), hi) }
        v.sort()
        var out: [Double] = []
        out.reserveCapacity(v.count)
        for x in v where out.last.map({ x - $0 > 1e-9 }) ?? true { out.append(x) }
        if out.count < 2 { out = [lo, hi] }
        return out
    }
}

extension Transform3D {
    /// True when the transform maps the plane z = 0 affinely (no perspective): the pixel
    /// footprint is then the same everywhere on the layer.
    var isAffineInPlane: Bool { m14 == 0 && m24 == 0 && m44 == 1 }

    /// The largest layer distance one display pixel can span in any direction (the inverse of
    /// the smallest singular value of the 2D part), or nil when the layer is (nearly) flat.
    var layerUnitsPerPixel: Double? {
        let s = m11 * m11 + m12 * m12 + m21 * m21 + m22 * m22
        let det = m11 * m22 - m12 * m21
        let root = max(0, s * s - 4 * det * det).squareRoot()
        let smallest = ((s - root) / 2).squareRoot()
        guard smallest > 1e-4, smallest.isFinite else { return nil }
        return 1 / smallest
    }
}
