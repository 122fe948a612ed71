import LaminaCore

/// A `masksToBounds` clip narrowed to the sublayers it cuts.
///
/// Clipped draws cost llvmpipe dearly: every fragment runs the clip stack's test, and nothing
/// inside a clip is batched (GLESRenderer+Clips.swift). A scrolling list masks to its bounds and
/// holds a thousand rows, of which a dozen show and two are cut. So where the clip is an
/// axis-aligned rectangle on the display, each sublayer's commands are sorted, in order: those
/// wholly outside the clip are dropped (they would draw nothing), those wholly inside it are
/// drawn unclipped (the clip would leave every pixel of them as it is), and only the rest stay
/// between a `pushClip` and a `popClip`. The pixels are the same; painter's order is kept.
enum ClipPartition {
    /// Rewrites `commands[clipAt...]`, which open with the `pushClip` at `clipAt` and hold the
    /// clipped layer's sublayers' commands (no `popClip` yet), into the same draws with the clip
    /// kept only around the sublayers it cuts. Returns whether a clip is open at the end (the
    /// caller closes it with a `popClip`); false when nothing needs it.
    static func apply(_ commands: inout [DrawCommand], clipAt: Int) -> Bool {
        let clip = commands[clipAt]
        guard let region = region(of: clip) else { return true }
        var units: [(range: Range<Int>, place: Place)] = []
        var i = clipAt + 1
        while i < commands.count {
            let end = unitEnd(commands, from: i)
            units.append((i..<end, place(commands[i..<end], against: region)))
            i = end
        }
        // Nothing to gain: every unit is cut (or there are none).
        guard units.contains(where: { $0.place != .cut }) else { return true }
        var out: [DrawCommand] = []
        out.reserveCapacity(commands.count - clipAt)
        var clipOpen = false
        for unit in units {
            switch unit.place {
            case .outside:
                continue
            case .inside:
                if clipOpen { out.append(DrawCommand(kind: .popClip)); clipOpen = false }
            case .cut:
                if !clipOpen { out.append(clip); clipOpen = true }
            }
            out.append(contentsOf: commands[unit.range])
        }
        commands.replaceSubrange(clipAt..., with: out)
        return clipOpen
    }

    enum Place { case inside, outside, cut }

    /// An axis-aligned clip on the display: its rectangle in display pixels and its corners'
    /// radius in pixels (the largest of the four, so every corner is rounded at least as much).
    struct Region {
        var box: PixelBox
        var radius: Double

        /// Whether the clip leaves every pixel of `b` alone: `b` lies a pixel (antialiasing)
        /// inside the rectangle, and each of its corners a pixel inside the rounded corners
        /// (the rounded rectangle and a box are convex: the box lies inside when its corners do).
        func contains(_ b: PixelBox) -> Bool {
            guard b.x0 >= box.x0 + 1, b.y0 >= box.y0 + 1, b.x1 <= box.x1 - 1, b.y1 <= box.y1 - 1 else { return false }
            guard radius > 0 else { return true }
            let r = radius
            for (x, y) in [(b.x0, b.y0), (b.x1, b.y0), (b.x0, b.y1), (b.x1, b.y1)] {
                // Only a point in a corner's square can lie outside the arc: its distance from
                // the arc's centre must leave a pixel inside the radius.
                let cx = x < box.x0 + r ? box.x0 + r : x > box.x1 - r ? box.x1 - r : nil
                let cy = y < box.y0 + r ? box.y0 + r : y > box.y1 - r ? box.y1 - r : nil
                guard let cx, let cy else { continue }
                let dx = x - cx, dy = y - cy
                if dx * dx + dy * dy > (r - 1) * (r - 1) { return false }
            }
            return true
        }

        /// Whether the clip shows nothing of `b`: `b` lies wholly a pixel outside the rectangle.
        func excludes(_ b: PixelBox) -> Bool { b.isEmpty || !b.intersects(box.expanded(by: 1)) }
    }

    /// The clip's region on the display; nil unless it is an axis-aligned rectangle there.
    static func region(of clip: DrawCommand) -> Region? {
        let t = clip.transform
        guard t.m12 == 0, t.m21 == 0, t.m14 == 0, t.m24 == 0, t.m44 == 1, t.m11 != 0, t.m22 != 0,
              t.m11.isFinite, t.m22.isFinite, t.m41.isFinite, t.m42.isFinite else { return nil }
        let everything = PixelBox(x0: -.infinity, y0: -.infinity, x1: .infinity, y1: .infinity)
        let box = t.displayBox(of: clip.bounds, within: everything)
        guard !box.isEmpty else { return nil }
        let r = clip.cornerRadii
        let radius = Swift.max(r.minXMinY, r.maxXMinY, r.maxXMaxY, r.minXMaxY) * Swift.max(abs(t.m11), abs(t.m22))
        return Region(box: box, radius: Swift.min(radius, (box.x1 - box.x0) / 2, (box.y1 - box.y0) / 2))
    }

    /// The end of the unit that starts at `i`: one drawing command, or a group, mask or clip
    /// with everything up to the command that closes it.
    static func unitEnd(_ commands: [DrawCommand], from i: Int) -> Int {
        var depth = 0
        var j = i
        repeat {
            switch commands[j].kind {
            case .beginGroup, .pushClip: depth += 1
            case .endGroup, .endMask, .popClip: depth -= 1
            default: break
            }
            j += 1
        } while depth > 0 && j < commands.count
        return j
    }

    /// Where a unit lies against the clip, from the box around everything it may draw (as
    /// `CommandExtents` measures it: grown for antialiasing, blur and a group's shadow of its
    /// pixels; what a nested clip or a mask takes away only makes the box generous). Draws under a
    /// perspective, and path shadows, are `cut`: drawn clipped as before.
    static func place(_ unit: ArraySlice<DrawCommand>, against region: Region) -> Place {
        let everything = PixelBox(x0: -.infinity, y0: -.infinity, x1: .infinity, y1: .infinity)
        var reach = PixelBox.empty
        var groups: [DrawCommand] = []
        for c in unit {
            guard c.transform.m14 == 0, c.transform.m24 == 0, c.transform.m44 == 1 else { return .cut }
            var area: Rect?
            switch c.kind {
            case .layer, .gradient:
                area = c.bounds
            case .contents:
                // A video keeps its clip: the overlay planner scans out only unclipped videos,
                // and a clipped one is composited as it was before clips were partitioned.
                guard let d = c.contents, !d.source.isVideo else { return .cut }
                area = d.clip?.rect ?? d.destination
            case .shadow:
                guard let s = c.shadow else { return .cut }
                let spread = 1.5 * s.radius + 2
                area = Rect(x: c.bounds.minX + s.offset.width - spread, y: c.bounds.minY + s.offset.height - spread,
                            width: c.bounds.width + 2 * spread, height: c.bounds.height + 2 * spread)
            case .beginGroup:
                groups.append(c)
            case .endGroup:
                // A group's shadow of its pixels: its content moved by the offset, blurred.
                if let g = groups.popLast(), let s = g.shadow, !reach.isEmpty {
                    let spread = 1.5 * s.radius * g.transform.approximateScale + 2
                    let o = g.transform.displayOffset(of: s.offset, at: Point(x: g.bounds.midX, y: g.bounds.midY))
                    reach = reach.union(PixelBox(x0: reach.x0 + o.width, y0: reach.y0 + o.height,
                                                 x1: reach.x1 + o.width, y1: reach.y1 + o.height).expanded(by: spread))
                }
            case .particles:
                // An emitter's particles reach wherever their cells fly: drawn clipped.
                return .cut
            case .pushClip, .popClip, .beginMask, .endMask:
                break
            case .pathShadow, .backdrop:
                return .cut
            }
            if let area { reach = reach.union(c.transform.displayBox(of: area, within: everything).expanded(by: 2)) }
        }
        if region.excludes(reach) { return .outside }
        if region.contains(reach) { return .inside }
        return .cut
    }
}
