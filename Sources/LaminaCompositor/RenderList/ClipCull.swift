import LaminaCore

// Sublayers out of a `masksToBounds` clip's view, left out before they are walked.
//
// A scrolling list masks to its bounds and holds a thousand rows of which a dozen show.
// `ClipPartition` drops the commands of the rows out of view once they are listed; listing them
// (their looks and commands, every frame the list moves) was most of the walk's share of the
// frame, a third of the CPU on the `scroll` benchmark. So a sublayer of a clipped layer whose whole subtree would land a pixel outside the clip's
// display box, as `ClipPartition.place` measures it, is not walked at all: the list is the same
// (but for a clipped sublayer out of view whose own sublayers reach into the view, which the
// partition kept, clipped, drawing nothing).
// Only subtrees that draw inside their layers' boxes are judged (plain, gradient and scroll
// layers without contents, drawing, shadow, filters, blend mode, mask or transition in
// progress), on an affine display transform, at most `cullBudget` layers each; anything else
// is walked as before and left to `ClipPartition`.

extension RenderWalk {
    /// The most layers of one sublayer's subtree looked at to judge it out of view.
    static let cullBudget = 64

    /// Whether the sublayer `id` (presentation values `p`, placed as `visit` places it) and
    /// everything under it would draw nothing `region` shows. Counts the layers looked at in
    /// `visits`.
    mutating func liesOutside(_ region: ClipPartition.Region, _ id: LayerID, _ layer: ServerLayer, _ p: LayerProperties,
                              localTime: Double, superlayerSpace: Transform3D, superlayerToDisplay: Transform3D) -> Bool {
        var budget = Self.cullBudget
        return liesOutside(region, id, layer, p, localTime: localTime, superlayerSpace: superlayerSpace,
                           superlayerToDisplay: superlayerToDisplay, budget: &budget)
    }

    private mutating func liesOutside(_ region: ClipPartition.Region, _ id: LayerID, _ layer: ServerLayer, _ p: LayerProperties,
                                      localTime: Double, superlayerSpace: Transform3D, superlayerToDisplay: Transform3D,
                                      budget: inout Int) -> Bool {
        guard budget > 0 else { return false }
        budget -= 1
        visits += 1
        // Drawn by nothing (as `visit` and `draw` skip it; `!(x > 0)` also holds for NaN).
        if p.isHidden || !(p.opacity > 0) { return true }
        let shadowed = p.shadowOpacity > 0 && p.shadowColor.alpha > 0 && !p.masksToBounds
        guard p.kind == .layer || p.kind == .gradient || p.kind == .scroll, p.contents == 0, p.drawing.isEmpty, p.mask == 0,
              !shadowed, p.filters.isEmpty, p.backgroundFilters.isEmpty, p.compositingFilter == nil,
              transition(of: id) == nil else { return false }
        let inSuperlayer = superlayerSpace.isIdentity ? p.transformToSuperlayer : p.transformToSuperlayer.concatenating(superlayerSpace)
        if !p.isDoubleSided, !inSuperlayer.facesViewer { return true }
        let t = superlayerToDisplay.isIdentity ? inSuperlayer : inSuperlayer.concatenating(superlayerToDisplay)
        guard t.m14 == 0, t.m24 == 0, t.m44 == 1 else { return false }
        let everything = PixelBox(x0: -.infinity, y0: -.infinity, x1: .infinity, y1: .infinity)
        // Its fill, gradient and border lie in its bounds (a command's extent, grown as `place` grows it).
        guard region.excludes(t.displayBox(of: p.bounds, within: everything).expanded(by: 2)) else { return false }
        // Its own clip keeps its sublayers in its bounds.
        if p.masksToBounds || layer.sublayers.isEmpty { return true }
        let space = p.sublayerSpace, plane = t.flatteningZ
        for s in layer.sublayers {
            guard let sublayer = tree[s] else { continue }
            let (sp, st) = properties(of: s, sublayer, parentTime: localTime)
            guard liesOutside(region, s, sublayer, sp, localTime: st, superlayerSpace: space, superlayerToDisplay: plane,
                              budget: &budget) else { return false }
        }
        return true
    }
}
