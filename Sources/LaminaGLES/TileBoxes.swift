import LaminaCompositor

/// Boxes of queued cells kept per tile of the output (`ShapeBatch`'s conflict tests): each tile
/// keeps the box around the parts of the cells marked in it, so cells that share a tile
/// without touching (neighbours a few pixels apart) do not conflict.
struct TileBoxes {
    /// The tiles' size in display pixels.
    static let tile = 8.0
    private var boxes: [PixelBox] = []
    private var marked: [Int] = []
    private var columns = 0
    private var rows = 0

    /// Sizes the grid for a `width` × `height` output.
    mutating func prepare(width: Int, height: Int) {
        let c = Int((Double(width) / Self.tile).rounded(.up)), r = Int((Double(height) / Self.tile).rounded(.up))
        guard c != columns || r != rows else { return }
        columns = c
        rows = r
        boxes = [PixelBox](repeating: .empty, count: c * r)
        marked.removeAll()
    }

    /// The tiles `box` touches, clamped to the grid; empty when it misses the output.
    private func tiles(_ box: PixelBox) -> (x: Range<Int>, y: Range<Int>) {
        // Clamped as Doubles first: a client's huge or NaN geometry must not trap the conversion.
        func index(_ v: Double, _ limit: Int) -> Int {
            let q = (v / Self.tile).rounded(.down)
            guard q.isFinite else { return q > 0 ? limit : 0 }
            return Int(Swift.min(Swift.max(q, 0), Double(limit)))
        }
        guard !box.isEmpty, columns > 0, rows > 0 else { return (0..<0, 0..<0) }
        let x0 = index(box.x0, columns), x1 = index(box.x1, columns - 1) + 1
        let y0 = index(box.y0, rows), y1 = index(box.y1, rows - 1) + 1
        return (x0 < x1 ? x0..<x1 : 0..<0, y0 < y1 ? y0..<y1 : 0..<0)
    }

    /// Whether `box` overlaps a marked cell.
    func overlaps(_ box: PixelBox) -> Bool {
        guard !marked.isEmpty else { return false }
        let t = tiles(box)
        for y in t.y {
            for x in t.x {
                let b = boxes[y * columns + x]
                if !b.isEmpty, b.x0 < box.x1 && box.x0 < b.x1 && b.y0 < box.y1 && box.y0 < b.y1 { return true }
            }
        }
        return false
    }

    /// Marks a cell over `box`.
    mutating func mark(_ box: PixelBox) {
        let t = tiles(box)
        for y in t.y {
            for x in t.x {
                let i = y * columns + x
                let b = boxes[i]
                let tx = Double(x) * Self.tile, ty = Double(y) * Self.tile
                // The part of `box` in this tile (the grid's last row and column take what lies beyond).
                let part = PixelBox(x0: Swift.max(box.x0, x == 0 ? box.x0 : tx), y0: Swift.max(box.y0, y == 0 ? box.y0 : ty),
                                    x1: x == columns - 1 ? box.x1 : Swift.min(box.x1, tx + Self.tile),
                                    y1: y == rows - 1 ? box.y1 : Swift.min(box.y1, ty + Self.tile))
                if b.isEmpty {
                    boxes[i] = part
                    marked.append(i)
                } else {
                    boxes[i] = PixelBox(x0: Swift.min(b.x0, part.x0), y0: Swift.min(b.y0, part.y0),
                                        x1: Swift.max(b.x1, part.x1), y1: Swift.max(b.y1, part.y1))
                }
            }
        }
    }

    /// Unmarks everything (only the tiles that were marked are touched).
    mutating func clear() {
        for i in marked { boxes[i] = .empty }
        marked.removeAll(keepingCapacity: true)
    }
}
