import LaminaCore

/// The part of an output that must be drawn again: a few pixel-aligned boxes.
///
/// Boxes are merged as they are added whenever one box around two costs little more than the
/// two apart, and never more than `maximumBoxes` are kept: each box is one pass of the
/// renderer over the list (scissored, with everything outside it culled), so a few boxes
/// around the changes beat both one box around everything and many small ones.
public struct DamageRegion: Sendable, Equatable, CustomStringConvertible {
    /// Disjoint or overlapping boxes, whole pixels, inside the viewport they were added for.
    public private(set) var boxes: [PixelBox] = []

    /// The most boxes kept.
    public static let maximumBoxes = 4
    /// What one more box costs, in pixels: merging two boxes is worth it while the merged box
    /// adds fewer pixels than this.
    public static let boxCost = 64.0 * 64.0

    public init() {}

    public init(_ box: PixelBox) { add(box) }

    public var isEmpty: Bool { boxes.isEmpty }
    /// The box around every box.
    public var bounds: PixelBox { boxes.reduce(PixelBox.empty) { $0.union($1) } }
    /// The pixels the boxes cover, counting overlaps twice.
    public var area: Double { boxes.reduce(0) { $0 + $1.area } }

    /// Adds `box`, grown to whole pixels.
    public mutating func add(_ box: PixelBox) {
        var b = box.pixelAligned
        guard !b.isEmpty else { return }
        var i = 0
        while i < boxes.count {
            if boxes[i].contains(b) { return }
            let merged = boxes[i].union(b)
            if merged.area <= boxes[i].area + b.area + Self.boxCost {
                b = merged
                boxes.remove(at: i)
                i = 0
                continue
            }
            i += 1
        }
        boxes.append(b)
        while boxes.count > Self.maximumBoxes {
            // Merge the two whose box together grows least.
            var best = (0, 1, Double.infinity)
            for x in boxes.indices {
                for y in boxes.indices where y > x {
                    let growth = boxes[x].union(boxes[y]).area - boxes[x].area - boxes[y].area
                    if growth < best.2 { best = (x, y, growth) }
                }
            }
            let merged = boxes[best.0].union(boxes[best.1])
            boxes.remove(at: best.1)
            boxes[best.0] = merged
        }
    }

    public mutating func formUnion(_ other: DamageRegion) {
        for b in other.boxes { add(b) }
    }

    /// The region with every box cut to `viewport`.
    public func clipped(to viewport: PixelBox) -> DamageRegion {
        var r = DamageRegion()
        for b in boxes { r.add(b.intersection(viewport)) }
        return r
    }

    public var description: String { boxes.isEmpty ? "none" : boxes.map(\.description).joined(separator: ", ") }

    /// The region to draw on a `width` × `height` output, or nil (the whole output) where it
    /// covers 90 % or more of it: a whole frame's unscissored clear is a renderer's cheap path
    /// (on llvmpipe tiles are cleared rather than shaded), and the rest costs little more.
    public func orWhole(width: Int, height: Int) -> DamageRegion? {
        let total = Double(width) * Double(height)
        return clipped(to: PixelBox(width: width, height: height)).area >= 0.9 * total ? nil : self
    }
}

/// What changed on one output from frame to frame, and so what each of its buffers lacks
/// (wlroots' `wlr_damage_ring`, fed by diffing draw lists instead of by surfaces).
///
/// `record` compares a frame's draw list with the one before. The list is cut into items: each
/// drawing command outside groups, and each offscreen group as a whole, together with the
/// clips in force around it. Items of the new frame are matched to equal items of the old one
/// (same commands, same clips, same contents generation); an image drawn the same way whose
/// pixels changed damages only the box of the changed pixels (`ImageSource.changedRegion`, mapped
/// through the draw); the damage is the extent of every other item left unmatched on either
/// side, and of every matched item whose order relative to the
/// other matched items changed (the longest run kept in order stays). A pixel outside the
/// damage is covered by the same draws in the same order in both frames, so it is unchanged.
///
/// A buffer last drawn `age` frames ago (EGL's buffer age; 1 is the frame before) lacks the
/// union of the last `age` frames' damage (`damage(bufferAge:)`).
public struct DamageTracker: Sendable {
    /// The most frames remembered: a buffer older than this is drawn whole.
    public let historyLength: Int
    /// Each recorded frame's damage against the frame before, newest first; nil for a frame
    /// that changed everything.
    public private(set) var history: [DamageRegion?] = []
    private var previous: Frame?
    private var extents = CommandExtents()

    public init(historyLength: Int = 4) {
        self.historyLength = max(1, historyLength)
    }

    /// Forgets the last frame: the next one damages everything (an output changed mode,
    /// transform or power, or its buffers were lost).
    public mutating func reset() {
        previous = nil
        history.removeAll()
    }

    /// Records the frame `list` shows and returns what changed since the last one recorded;
    /// nil when everything did (the first frame, or a new size or background).
    @discardableResult
    public mutating func record(_ list: DrawList) -> DamageRegion? {
        let viewport = PixelBox(width: list.width, height: list.height)
        extents.measure(list.commands, within: viewport)
        let frame = Frame(list: list, extents: extents, viewport: viewport)
        var damage: DamageRegion?
        if let old = previous, old.width == list.width, old.height == list.height, old.background == list.background {
            var d = Self.difference(old, frame, viewport: viewport)
            // A change behind or near a background-filtered layer changes all it shows.
            BackdropRegions.grow(&d, list.commands, extents, within: viewport)
            damage = d
        }
        previous = frame
        history.insert(damage, at: 0)
        if history.count > historyLength { history.removeLast(history.count - historyLength) }
        return damage
    }

    /// What a buffer last drawn `age` frames ago lacks of the frame recorded last; nil when it
    /// must be drawn whole (age 0: a new buffer or one of unknown content, or older than the
    /// history).
    public func damage(bufferAge age: Int) -> DamageRegion? {
        guard age >= 1, age <= history.count else { return nil }
        var region = DamageRegion()
        for k in 0..<age {
            guard let d = history[k] else { return nil }
            region.formUnion(d)
        }
        return region
    }

    // MARK: Items

    /// A clip in force around an item: its `pushClip` and the clip around that.
    struct ClipLink {
        var command: Int
        var parent: Int  // -1: none
        var hash: Int
        /// What this clip and the enclosing ones the renderer applies leave visible.
        var box: PixelBox
        /// This clip's own display box.
        var own: PixelBox
    }

    /// One drawing command outside groups, or one whole group.
    struct Item {
        var range: Range<Int>
        var clip: Int  // -1: none
        var hash: Int
        /// The hash without the contents generations: the same draw of changed pixels.
        var drawHash: Int
        var box: PixelBox
    }

    struct Frame {
        var width: Int
        var height: Int
        var background: Color
        var commands: [DrawCommand]
        var items: [Item] = []
        var clips: [ClipLink] = []
        /// The generation of every contents source, by position of its command: the pixels of
        /// an image can change under the same draw.
        var generations: [UInt64] = []

        init(list: DrawList, extents: CommandExtents, viewport: PixelBox) {
            width = list.width
            height = list.height
            background = list.background
            commands = list.commands
            let n = commands.count
            items.reserveCapacity(n)
            generations = commands.map { $0.contents?.source.generation ?? $0.particles?.source.generation ?? 0 }
            var clip = -1
            var i = 0
            while i < n {
                let c = commands[i]
                switch c.kind {
                case .pushClip:
                    var h = Hasher()
                    h.combine(clip >= 0 ? clips[clip].hash : 0)
                    Self.hash(c, into: &h)
                    // The renderer applies the innermost `maximumClips` clips only: the box is
                    // this clip's cut by at most that many enclosing ones.
                    var box = c.transform.displayBox(of: c.bounds, within: viewport).expanded(by: 1).intersection(viewport)
                    var outer = clip
                    for _ in 1..<DrawCommand.maximumClips where outer >= 0 {
                        box = box.intersection(clips[outer].own)
                        outer = clips[outer].parent
                    }
                    let own = c.transform.displayBox(of: c.bounds, within: viewport).expanded(by: 1)
                    clips.append(ClipLink(command: i, parent: clip, hash: h.finalize(), box: box, own: own))
                    clip = clips.count - 1
                    i += 1
                case .popClip:
                    if clip >= 0 { clip = clips[clip].parent }
                    i += 1
                case .beginGroup:
                    // The group is one item: its content, its mask and its compositing.
                    // A group the list never closes may touch anything.
                    let end = extents.ends[i] ?? (n - 1)
                    add(i..<(end + 1), clip: clip, box: extents.ends[i] == nil ? viewport : extents.boxes[end], viewport: viewport)
                    i = end + 1
                case .endGroup, .endMask, .beginMask:
                    // Unbalanced: draws nothing of its own at the top level.
                    i += 1
                case .layer, .shadow, .contents, .gradient, .pathShadow, .particles, .backdrop:
                    add(i..<(i + 1), clip: clip, box: extents.boxes[i], viewport: viewport)
                    i += 1
                }
            }
        }

        private mutating func add(_ range: Range<Int>, clip: Int, box: PixelBox, viewport: PixelBox) {
            let inside = box.intersection(clip >= 0 ? clips[clip].box : viewport)
            guard !inside.isEmpty else { return }
            var h = Hasher(), d = Hasher()
            h.combine(clip >= 0 ? clips[clip].hash : 0)
            d.combine(clip >= 0 ? clips[clip].hash : 0)
            for k in range {
                Self.hash(commands[k], into: &h)
                Self.hash(commands[k], into: &d)
                h.combine(generations[k])
            }
            items.append(Item(range: range, clip: clip, hash: h.finalize(), drawHash: d.finalize(), box: inside))
        }

        /// Where item `a` of this frame is item `b` of `other` drawing the same image whose
        /// pixels changed since (one contents draw, nothing else different): the display box
        /// of the pixels that changed, mapped through the draw (grown a pixel for filtering,
        /// cut to the item); the item's whole box where the change or the mapping is not known
        /// exactly (a nine-slice, an image whose change log does not reach back). Nil when the
        /// items differ otherwise.
        func changedPixels(_ a: Item, of b: Item, in other: Frame, viewport: PixelBox) -> PixelBox? {
            guard a.drawHash == b.drawHash, a.range.count == 1, b.range.count == 1 else { return nil }
            let x = a.range.lowerBound, y = b.range.lowerBound
            let c = commands[x]
            guard c.kind == .contents, let contents = c.contents, commands[x] == other.commands[y],
                  generations[x] > other.generations[y] else { return nil }
            var (p, q) = (a.clip, b.clip)
            while p >= 0, q >= 0 {
                guard commands[clips[p].command] == other.commands[other.clips[q].command] else { return nil }
                (p, q) = (clips[p].parent, other.clips[q].parent)
            }
            guard p < 0, q < 0 else { return nil }
            let source = contents.source
            guard contents.destinationInsets == .zero, contents.sourceInsets == .zero,
                  source.width > 0, source.height > 0, contents.sourceRect.width > 0, contents.sourceRect.height > 0,
                  let changed = source.changedRegion(since: other.generations[y]) else { return a.box }
            // Image pixels → unit coordinates → the source rect's share → the destination. The
            // changed pixels grow by one image pixel first: filtering blends each into half a
            // pixel around it, which a magnified draw (a contentsRect crop stretched, an app's
            // viewport) spreads over several display pixels.
            let s = contents.sourceRect, dst = contents.destination
            func layerX(_ px: Double) -> Double { dst.minX + ((px / Double(source.width)) - s.minX) / s.width * dst.width }
            func layerY(_ py: Double) -> Double { dst.minY + ((py / Double(source.height)) - s.minY) / s.height * dst.height }
            let x0 = layerX(Double(changed.x) - 1), x1 = layerX(Double(changed.x) + Double(changed.width) + 1)
            let y0 = layerY(Double(changed.y) - 1), y1 = layerY(Double(changed.y) + Double(changed.height) + 1)
            let rect = Rect(x: Swift.min(x0, x1), y: Swift.min(y0, y1), width: abs(x1 - x0), height: abs(y1 - y0))
            return c.transform.displayBox(of: rect, within: viewport).expanded(by: 1).intersection(a.box)
        }

        /// The fields that change most, enough to tell draws apart; equality decides.
        static func hash(_ c: DrawCommand, into h: inout Hasher) {
            h.combine(c.kind)
            h.combine(c.transform)
            h.combine(c.bounds)
            h.combine(c.color)
            h.combine(c.opacity)
            if let s = c.shadow { h.combine(s.radius); h.combine(s.color) }
        }

        /// Whether item `a` of this frame draws exactly what item `b` of `other` does.
        func draws(_ a: Item, sameAs b: Item, in other: Frame) -> Bool {
            guard a.hash == b.hash, a.range.count == b.range.count else { return false }
            for (x, y) in zip(a.range, b.range) {
                guard commands[x] == other.commands[y], generations[x] == other.generations[y] else { return false }
            }
            var (p, q) = (a.clip, b.clip)
            while p >= 0, q >= 0 {
                guard commands[clips[p].command] == other.commands[other.clips[q].command] else { return false }
                (p, q) = (clips[p].parent, other.clips[q].parent)
            }
            return p < 0 && q < 0
        }
    }

    static func difference(_ old: Frame, _ new: Frame, viewport: PixelBox) -> DamageRegion {
        var damage = DamageRegion()
        // Old items by hash, in order; each is matched at most once, earliest first.
        var candidates: [Int: [Int]] = [:]
        candidates.reserveCapacity(old.items.count)
        for (k, item) in old.items.enumerated().reversed() { candidates[item.hash, default: []].append(k) }
        var matched = [Bool](repeating: false, count: old.items.count)
        var sequence: [(new: Int, old: Int)] = []
        sequence.reserveCapacity(new.items.count)
        var unmatched: [Int] = []
        for (j, item) in new.items.enumerated() {
            var found = -1
            if var list = candidates[item.hash] {
                // Most lists hold one item; duplicates are tried from the earliest.
                if let pos = list.lastIndex(where: { new.draws(item, sameAs: old.items[$0], in: old) }) {
                    found = list.remove(at: pos)
                    candidates[item.hash] = list
                }
            }
            if found >= 0 {
                matched[found] = true
                sequence.append((j, found))
            } else {
                unmatched.append(j)
            }
        }
        // The same draw of an image whose pixels changed (a partial `update-image`, an app's
        // buffer damage): only the changed pixels' box, where it is known.
        var byDraw: [Int: [Int]] = [:]
        for (k, item) in old.items.enumerated().reversed() where !matched[k] && item.range.count == 1 {
            byDraw[item.drawHash, default: []].append(k)
        }
        for j in unmatched {
            let item = new.items[j]
            let list = byDraw[item.drawHash] ?? []
            var changed: (position: Int, box: PixelBox)?
            for (pos, k) in list.enumerated().reversed() {
                if let box = new.changedPixels(item, of: old.items[k], in: old, viewport: viewport) {
                    changed = (pos, box)
                    break
                }
            }
            guard let changed else {
                damage.add(item.box)
                continue
            }
            let k = list[changed.position]
            byDraw[item.drawHash]?.remove(at: changed.position)
            matched[k] = true
            sequence.append((j, k))
            damage.add(changed.box)
        }
        sequence.sort { $0.new < $1.new }
        for (k, item) in old.items.enumerated() where !matched[k] { damage.add(item.box) }
        // Matched items that moved relative to the others: all but a longest increasing run.
        let kept = longestIncreasingRun(sequence.map(\.old))
        for (position, pair) in sequence.enumerated() where !kept[position] {
            damage.add(new.items[pair.new].box)
            damage.add(old.items[pair.old].box)
        }
        return damage
    }

    /// Marks the elements of a longest strictly increasing subsequence of `values`.
    static func longestIncreasingRun(_ values: [Int]) -> [Bool] {
        var tails: [Int] = []          // index into values of the smallest tail of each length
        var previous = [Int](repeating: -1, count: values.count)
        for (i, v) in values.enumerated() {
            var lo = 0, hi = tails.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if values[tails[mid]] < v { lo = mid + 1 } else { hi = mid }
            }
            if lo > 0 { previous[i] = tails[lo - 1] }
            if lo == tails.count { tails.append(i) } else { tails[lo] = i }
        }
        var kept = [Bool](repeating: false, count: values.count)
        var k = tails.last ?? -1
        while k >= 0 {
            kept[k] = true
            k = previous[k]
        }
        return kept
    }
}

/// What damage tracking saved, for `stats`: how much of the output recent frames drew.
public struct DamageStatistics: Sendable, Equatable {
    /// Frames drawn.
    public var frames = 0
    /// Frames drawn whole (no history, a new buffer, tracking off, or everything changed).
    public var fullFrames = 0
    /// Frames in which nothing had to be drawn.
    public var emptyFrames = 0
    /// The share of the output's pixels the last frame drew, 0 to 1.
    public var lastFraction = 0.0
    /// The share of the output's pixels drawn over every frame, 0 to 1.
    public var meanFraction: Double { pixelsOffered > 0 ? pixelsDrawn / pixelsOffered : 0 }
    /// The boxes the last frame drew.
    public var lastBoxes = 0
    private var pixelsDrawn = 0.0
    private var pixelsOffered = 0.0

    public init() {}

    /// One frame of a `width` × `height` output drew `region` (nil: all of it).
    public mutating func record(_ region: DamageRegion?, width: Int, height: Int) {
        let total = Double(width) * Double(height)
        let drawn = region.map { min(total, $0.clipped(to: PixelBox(width: width, height: height)).area) } ?? total
        frames += 1
        if region == nil { fullFrames += 1 }
        if region?.isEmpty == true { emptyFrames += 1 }
        lastFraction = total > 0 ? drawn / total : 0
        lastBoxes = region?.boxes.count ?? 1
        pixelsDrawn += drawn
        pixelsOffered += total
    }

    /// Adds another output's counts (a desktop of several outputs).
    public mutating func add(_ o: DamageStatistics) {
        frames += o.frames
        fullFrames += o.fullFrames
        emptyFrames += o.emptyFrames
        lastFraction = o.lastFraction
        lastBoxes = o.lastBoxes
        pixelsDrawn += o.pixelsDrawn
        pixelsOffered += o.pixelsOffered
    }
}
