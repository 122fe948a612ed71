import CGLES
import LaminaCore
import LaminaCompositor

/// Offscreen groups (group opacity, additive composites, shadows of composited pixels): drawn
/// into output-sized targets kept from frame to frame, composited into the target below, and
/// kept in `GroupCache` while their commands stay the same. Masks are in GLESRenderer+Looks.swift.
extension GLESRenderer {
    /// What `beginGroup` did.
    enum GroupStart { case drawn, empty, cached(end: Int) }

    /// Opens an offscreen group: `.empty` (and opens nothing) when it covers no pixel, `.cached`
    /// when its pixels were copied from `groupCache` (the commands up to `end` are skipped).
    func beginGroup(_ index: Int, _ c: DrawCommand, _ commands: [DrawCommand]) throws(GLESError) -> GroupStart {
        let box = frame.extents.boxes[index].intersection(frame.viewport).pixelAligned
        guard !box.isEmpty, c.opacity > 0 else { return .empty }
        let depth = frame.groups.count
        if depth == groupTargets.count {
            groupTargets.append(try OffscreenTarget(context: context, width: frame.width, height: frame.height))
        } else if groupTargets[depth].width != frame.width || groupTargets[depth].height != frame.height {
            groupTargets[depth] = try OffscreenTarget(context: context, width: frame.width, height: frame.height)
        }
        // A top-level group (a shadow of its pixels, or group opacity) that ends plainly, under no
        // clip, unblended: its appearance (shadow and pixels composited at its opacity) is kept
        // in the cache and drawn from there while its commands stay the same.
        var toCache: OpenGroup.Key?
        if cachesGroups, depth == 0, frame.clips.isEmpty, !c.compositesAdditively, c.blendMode == nil,
           let end = frame.extents.ends[index], commands[end].kind == .endGroup || commands[end].kind == .endMask,
           // A background-filtered layer's pixels are not its own: they show what lies behind.
           !commands[index...end].contains(where: { $0.kind == .backdrop }) {
            let key = GroupCache.key(commands, index...end)
            if let hit = groupCache.lookup(commands, index...end, hash: key.hash, generations: key.generations,
                                           width: frame.width, height: frame.height, frame: frame.number) {
                bindCurrentTarget()
                drawAppearance(hit)
                return .cached(end: end)
            }
            toCache = (key.hash, key.generations, end, groupCache.admits(hash: key.hash, frame: frame.number))
        }
        glBindFramebuffer(GLenum(GL_FRAMEBUFFER), groupTargets[depth].framebuffer)
        // A shadow's blur reads around the box (at most twice the reach of a full-resolution
        // kernel, sigma < 3: 18 pixels): clear that too, so nothing an earlier group left there
        // leaks into the shadow.
        // A filter's blur reads as far around the box as it reaches.
        let ring = (c.shadow == nil ? 0 : 20) + (c.filters.map { Self.filterMargin($0, c.transform) } ?? 0)
        scissor(ring == 0 ? box : box.expanded(by: ring).intersection(frame.viewport).pixelAligned)
        glClearColor(0, 0, 0, 0)
        glClear(GLbitfield(GL_COLOR_BUFFER_BIT))
        scissor(box)
        frame.groups.append(OpenGroup(command: index, box: box, clipBase: frame.clipBase, toCache: toCache))
        // Clips already in force apply when the group is composited, not inside it.
        frame.clipBase = frame.clips.count
        frame.clipVersion += 1
        return .drawn
    }

    func endGroup(_ commands: [DrawCommand]) throws(GLESError) {
        if frame.groups.last?.isMask == true { return try endMask(commands) }
        guard let group = frame.groups.popLast() else { return }
        if frame.clips.count > frame.clipBase { frame.clips.removeSubrange(frame.clipBase...) }
        frame.clipBase = group.clipBase
        frame.clipVersion += 1
        let c = commands[group.command]
        var source = groupTargets[frame.groups.count]
        if let filters = c.filters { source = try applyFilters(filters, to: source, group.box, transform: c.transform) }
        let capture = try beginCapture(group, commands)
        bindCurrentTarget()
        if let shadow = c.shadow { try drawGroupShadow(source, group.box, c, shadow) }
        if let mode = c.blendMode {
            try drawBlended(source, mask: nil, group.box, opacity: c.opacity, mode)
            endCapture(capture)
            return
        }

        let program = use(programs.composite)
        glBindTexture(GLenum(GL_TEXTURE_2D), source.texture)
        setTexelSize(program.texelSize.source, (source.width, source.height))
        setQuad(program, .identity, group.box.rect)
        glUniform1f(program.uniforms.opacity, GLfloat(c.opacity))
        glUniform2i(program.uniforms.origin, 0, 0)
        if c.compositesAdditively { glBlendFunc(GLenum(GL_ONE), GLenum(GL_ONE)) }
        glDrawArrays(GLenum(GL_TRIANGLE_STRIP), 0, 4)
        if c.compositesAdditively { glBlendFunc(GLenum(GL_ONE), GLenum(GL_ONE_MINUS_SRC_ALPHA)) }
        endCapture(capture)
    }

    /// A group drawn through its appearance: where its composite went instead of the output,
    /// and the cache entry it goes into.
    struct Capture {
        let entry: GroupCache.Entry
        let hash: Int
        let reach: PixelBox
        let output: GLuint
        let damage: PixelBox?
    }

    /// For a group the cache keeps (`toCache` with `keep`, and room in its budget): points the
    /// frame's output at the scratch appearance target, cleared over the group's reach, so the
    /// group composites there instead. Nil for any other group, which composites straight onto
    /// the target below: a group whose commands change every frame (a pulsing layer with a
    /// shadow of its pixels) is not written, cleared and read once more for an entry no later
    /// frame would find. The two ways differ by one 8-bit rounding: a step per channel at most.
    func beginCapture(_ group: OpenGroup, _ commands: [DrawCommand]) throws(GLESError) -> Capture? {
        guard let key = group.toCache, let reach = frame.extents.groupReach(group.command)?.intersection(frame.viewport).pixelAligned,
              !reach.isEmpty
        else { return nil }
        guard key.keep, groupCache.makeRoom(Int(reach.x1 - reach.x0) * Int(reach.y1 - reach.y0) * 4, frame: frame.number) else {
            groupCache.passOver()
            return nil
        }
        if appearanceTarget?.width != frame.width || appearanceTarget?.height != frame.height {
            appearanceTarget = try OffscreenTarget(context: context, width: frame.width, height: frame.height)
        }
        let kept = try OffscreenTarget(context: context, width: Int(reach.x1 - reach.x0), height: Int(reach.y1 - reach.y0))
        let entry = GroupCache.Entry(commands: Array(commands[group.command...key.end]), generations: key.generations,
                                     width: frame.width, height: frame.height, reach: reach, appearance: kept, frame: frame.number)
        let capture = Capture(entry: entry, hash: key.hash, reach: reach, output: frame.output, damage: frame.damage)
        frame.output = appearanceTarget!.framebuffer
        frame.damage = nil
        glBindFramebuffer(GLenum(GL_FRAMEBUFFER), frame.output)
        scissor(reach)
        glClearColor(0, 0, 0, 0)
        glClear(GLbitfield(GL_COLOR_BUFFER_BIT))
        return capture
    }

    /// The captured group's appearance goes into the cache (if kept), the output comes back,
    /// and the appearance is drawn there like a cached one.
    func endCapture(_ capture: Capture?) {
        guard let capture else { return }
        let scratch = appearanceTarget!
        let entry = capture.entry
        let kept = entry.appearance
        blit(from: scratch.framebuffer, entry.reach, height: frame.height,
             to: kept.framebuffer, PixelBox(width: kept.width, height: kept.height), height: kept.height)
        (frame.output, frame.damage) = (capture.output, capture.damage)
        groupCache.insert(entry, hash: capture.hash)
        bindCurrentTarget()
        drawAppearance(entry)
    }

    /// Draws a cached group's appearance into the current target, over the reach it was kept for.
    private func drawAppearance(_ entry: GroupCache.Entry) {
        // The kept texture starts at the reach's bottom-left corner (framebuffer rows count up).
        drawAppearance(entry.appearance, over: entry.reach, origin: (entry.reach.x0, Double(frame.height) - entry.reach.y1))
    }

    /// Draws `reach` of an appearance held in `source`, whose first texel lies at `origin`
    /// (display pixels, rows counting up), into the current target.
    private func drawAppearance(_ source: OffscreenTarget, over reach: PixelBox, origin: (Double, Double)) {
        let program = use(programs.composite)
        glBindTexture(GLenum(GL_TEXTURE_2D), source.texture)
        setTexelSize(program.texelSize.source, (source.width, source.height))
        setQuad(program, .identity, reach.rect)
        glUniform1f(program.uniforms.opacity, 1)
        glUniform2i(program.uniforms.origin, GLint(saturating: origin.0), GLint(saturating: origin.1))
        glDrawArrays(GLenum(GL_TRIANGLE_STRIP), 0, 4)
    }
}

struct OpenGroup {
    /// The index of the group's `beginGroup`.
    var command: Int
    /// What it covers, pixel-aligned.
    var box: PixelBox
    /// The enclosing group's first clip.
    var clipBase: Int
    /// True for a group's mask (opened by `beginMask`, drawn one target above the group).
    var isMask = false
    /// A group the cache may keep: its key, and whether the cache keeps it (`GroupCache.admits`);
    /// only a kept one is drawn through its appearance (`beginCapture`).
    var toCache: Key?
    typealias Key = (hash: Int, generations: [UInt64], end: Int, keep: Bool)
}
