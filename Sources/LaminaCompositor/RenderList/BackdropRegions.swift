import LaminaCore

/// Where background-filtered layers (`backdrop` commands) read, and what that depends on.
///
/// A backdrop reads the target around its own box, as far as its blurs reach: `readBox`. So
/// damage that touches that read box changes what the layer shows, and the renderer needs
/// every pixel of it drawn again before the layer reads it: `grow` adds the read box of every
/// backdrop the damage touches (and again for backdrops the growth reaches).
///
/// The filtered backdrop is kept between frames while the commands drawn before it that may
/// touch its read box stay the same (`dependencies`): the same draws in the same order give
/// the same pixels behind it.
public enum BackdropRegions {
    /// How far around its box a backdrop with `filters` under `transform` reads, in pixels:
    /// the blurs' display reach, the taps' margin and two blocks of the renderer's reduced
    /// resolution (a wide blur is run at a half or a quarter of it); 0 for colour filters alone.
    public static func margin(_ filters: DrawFilters, _ transform: Transform3D) -> Double {
        filters.reach > 0 ? filters.displayReach(transform) + 10 : 0
    }

    /// The display box the backdrop `c` (whose own extent is `box`) reads, whole pixels within
    /// `viewport`; empty when it draws nothing.
    public static func readBox(_ c: DrawCommand, box: PixelBox, within viewport: PixelBox) -> PixelBox {
        guard c.kind == .backdrop, let f = c.filters, !box.isEmpty else { return .empty }
        return box.expanded(by: margin(f, c.transform)).intersection(viewport).pixelAligned
    }

    /// Adds to `damage` the read box of every backdrop of `commands` it touches, until no more
    /// are touched (at most once each).
    public static func grow(_ damage: inout DamageRegion, _ commands: [DrawCommand], _ extents: CommandExtents,
                            within viewport: PixelBox) {
        guard !damage.isEmpty else { return }
        var pending: [PixelBox] = []
        for (i, c) in commands.enumerated() where c.kind == .backdrop {
            let r = readBox(c, box: extents.boxes[i], within: viewport)
            if !r.isEmpty { pending.append(r) }
        }
        var grew = true
        while grew, !pending.isEmpty {
            grew = false
            var k = 0
            while k < pending.count {
                let r = pending[k]
                if damage.boxes.contains(where: { $0.intersects(r) }) {
                    damage.add(r)
                    pending.remove(at: k)
                    grew = true
                } else {
                    k += 1
                }
            }
        }
    }

    /// The boxes a frame with backdrops is drawn in, one pass each: `damage` with every box that
    /// touches a read box in `reads` merged with it (and with the other boxes that box then
    /// touches), so each read box lies whole in the one pass that draws it and no other pass
    /// reaches it; boxes away from every read box stay passes of their own. (A backdrop reads
    /// what its pass drew before it over all its read box: a second pass touching that box would
    /// read the first pass's frosted result there as what lies behind.)
    public static func passes(_ damage: [PixelBox], reads: [PixelBox]) -> [PixelBox] {
        var boxes = damage.filter { !$0.isEmpty }
        let reads = reads.filter { !$0.isEmpty }
        guard boxes.count > 1, !reads.isEmpty else { return boxes }
        var merged = true
        while merged {
            merged = false
            for r in reads {
                let touching = boxes.indices.filter { boxes[$0].intersects(r) }
                guard !touching.isEmpty else { continue }
                let union = touching.reduce(r) { $0.union(boxes[$1]) }
                // Already one box holding the read box: nothing to merge for it.
                if touching.count == 1, boxes[touching[0]] == union { continue }
                for i in touching.reversed() { boxes.remove(at: i) }
                boxes.append(union)
                merged = true
            }
            // A merged box may now overlap others that touch no read box: overlapping passes
            // are harmless there, but a box reaching into a read box is merged next round.
        }
        return boxes
    }

    /// The indices of the commands before `index` (a backdrop) that may change what it reads
    /// in `read`: drawing commands whose extent touches it, a group closed before it whole
    /// when what it composites touches it, the groups still open around it, and every clip
    /// command (cheap to compare, and they change what the draws inside them leave).
    public static func dependencies(of index: Int, _ commands: [DrawCommand], _ extents: CommandExtents,
                                    read: PixelBox, into out: inout [Int]) {
        out.removeAll(keepingCapacity: true)
        var k = 0
        while k < index {
            let c = commands[k]
            switch c.kind {
            case .beginGroup:
                if let end = extents.ends[k], end < index {
                    if extents.boxes[end].intersects(read) { out.append(contentsOf: k...end) }
                    k = end + 1
                    continue
                }
                out.append(k)
            case .pushClip, .popClip, .endGroup, .beginMask, .endMask:
                out.append(k)
            case .layer, .shadow, .contents, .gradient, .pathShadow, .particles, .backdrop:
                if extents.boxes[k].intersects(read) { out.append(k) }
            }
            k += 1
        }
    }
}
