import CGLES
import LaminaCore
import LaminaCompositor

/// Background filters (`backdrop` commands, frosted glass): what the target holds behind the
/// layer's box, and around it as far as its blurs reach (`BackdropRegions.readBox`), is copied
/// into `backdropSource`, goes through the filters' passes (`applyFilters`, as a filtered
/// group's pixels do), and is drawn back over the layer's box clipped to its rounded shape,
/// before the layer's own draws. A layer in a group of its own (opacity, mask, shadow) reads
/// the target below that group, so the group's mask and opacity apply to the filtered backdrop.
///
/// The result is kept in `BackdropCache` while the draws before it that reach its read box
/// stay the same (`BackdropRegions.dependencies`), and drawn from there (stats
/// `backdrop.cached`, against `backdrop.filtered`). Damage that touches a read box grows over
/// all of it (`BackdropRegions.grow`), and the damage boxes that touch a read box are drawn in
/// one pass with it (`BackdropRegions.passes`), so every pixel a backdrop reads is drawn again,
/// in its pass, before it is read; damage elsewhere keeps passes of its own. At most
/// `maximumBackdropFraction` of the output's pixels are read by backdrops a frame; backdrops
/// past that draw unfiltered (`backdrop.skipped`).
extension GLESRenderer {
    /// The most backdrop pixels read in a frame, as a share of the output's pixels.
    public static let maximumBackdropFraction = 2.0

    /// Whether the layer's fill (the command after `index`) was drawn with the backdrop, in its
    /// composite (`foldedFill`): the caller then skips it.
    func drawBackdrop(_ index: Int, _ c: DrawCommand, _ commands: [DrawCommand]) throws(GLESError) -> Bool {
        guard let filters = c.filters, c.opacity > 0 else { return false }
        let own = frame.extents.boxes[index].intersection(frame.viewport).pixelAligned
        guard !own.isEmpty else { return false }
        if let damage = frame.damage, !own.intersects(damage) { return false }
        // Measured as the damage tracker measures it, so a damage box grown over it holds it.
        let read = BackdropRegions.readBox(c, box: frame.extents.boxes[index], within: frame.viewport)
        let budget = Self.maximumBackdropFraction * frame.viewport.area
        guard backdrops.pixelsThisFrame + read.area <= budget else {
            backdrops.skipped += 1
            return false
        }
        backdrops.pixelsThisFrame += read.area
        flushBatch()

        // The target the layer's own groups composite into: what lies behind it.
        let below = frame.groups.count - c.backdropDepth
        let source: GLuint = below <= 0 ? frame.output : groupTargets[below - 1].framebuffer
        // Only what this pass has drawn again is right to read and keep.
        let fresh = frame.damage.map { $0.contains(read) } ?? true

        BackdropRegions.dependencies(of: index, commands, frame.extents, read: read, into: &backdrops.dependencies)
        let key = BackdropCache.Key(command: c, commands: commands, dependencies: backdrops.dependencies,
                                    width: frame.width, height: frame.height, background: frame.background)
        var pixels: BackdropPixels
        if cachesBackdrops, fresh, let hit = backdrops.cache.lookup(key, box: own, draw: backdrops.drawNumber) {
            pixels = hit
            backdrops.cached += 1
        } else {
            if backdropSource?.width != frame.width || backdropSource?.height != frame.height {
                backdropSource = try OffscreenTarget(context: context, width: frame.width, height: frame.height)
            }
            let scratch = backdropSource!
            let result = try filterBackdrop(filters, from: source, scratch, read: read, own: own, transform: c.transform)
            pixels = BackdropPixels(texture: result.target.texture, size: (result.target.width, result.target.height),
                                    factor: result.factor, shift: (0, 0))
            backdrops.filtered += 1
            // Kept in the texture this backdrop had (an unscaled copy, which llvmpipe makes
            // with memcpy), or a new one when its size changed: the layer's box, or at a
            // reduced resolution the reduced box (a quarter or a sixteenth of its pixels).
            if cachesBackdrops, fresh {
                let box = result.box
                let (w, h) = (Int(box.x1 - box.x0), Int(box.y1 - box.y0))
                var reused = backdrops.cache.target(for: c, width: w, height: h)
                if reused == nil { reused = try OffscreenTarget(context: context, width: w, height: h) }
                let kept = reused!
                blit(from: result.target.framebuffer, box, height: frame.height,
                     to: kept.framebuffer, PixelBox(width: kept.width, height: kept.height), height: kept.height)
                pixels = BackdropPixels(texture: kept.texture, size: (kept.width, kept.height), factor: result.factor,
                                        shift: (box.x0, Double(frame.height) - box.y1))
                backdrops.cache.insert(key, box: own, target: kept, pixels: pixels, draw: backdrops.drawNumber)
            }
        }

        // Drawn back over the layer's box, inside its rounded shape and the clips in force.
        bindCurrentTarget()
        glBindTexture(GLenum(GL_TEXTURE_2D), pixels.texture)
        // Where no other clip is in force and the layer lies square on the display, what lies
        // inside its shape away from the corners' curves needs no clip (llvmpipe pays for the
        // clip's distance function at every pixel): only the rest is drawn clipped.
        let parts = hasActiveClips ? (uncut: [], cut: [own]) : Self.clipParts(c, own)
        let fill = backdrops.foldsFills ? Self.foldedFill(after: index, commands) : nil
        if !parts.uncut.isEmpty {
            compositeBackdrop(pixels, parts.uncut, clipped: false, opacity: c.opacity, fill: fill)
        }
        if !parts.cut.isEmpty {
            pushClip(c)
            compositeBackdrop(pixels, parts.cut, clipped: nil, opacity: c.opacity, fill: fill)
            popClip()
        }
        if fill != nil { backdrops.foldedFills += 1 }
        return fill != nil
    }

    /// The colour of the layer's own fill when it is the command after its backdrop's (`index`)
    /// and can be drawn in the backdrop's composite: a plain background (no border, shadow,
    /// blend mode or polygon) over the very shape the backdrop fills (transform, bounds, corners
    /// and opacity alike). Drawn there, it costs no pass of its own over the layer's pixels, and
    /// the layer's edge coverage applies once to the two together, as to one layer.
    static func foldedFill(after index: Int, _ commands: [DrawCommand]) -> Color? {
        guard index + 1 < commands.count else { return nil }
        let c = commands[index], f = commands[index + 1]
        guard f.kind == .layer, f.color.alpha > 0, f.borderWidth == 0 || f.borderColor.alpha == 0, f.shadow == nil,
              !f.compositesAdditively, f.blendMode == nil, f.filters == nil, f.polygons.isEmpty,
              f.transform == c.transform, f.bounds == c.bounds, f.cornerRadii == c.cornerRadii, f.opacity == c.opacity
        else { return nil }
        return f.color
    }

    /// Draws `boxes` of the filtered backdrop `pixels` (bound to texture unit 0), with the
    /// clips in force unless `clipped` is false.
    /// `fill` (at `opacity`) is drawn over the backdrop in the same pass; the composite
    /// program, which groups share, is left with none.
    private func compositeBackdrop(_ pixels: BackdropPixels, _ boxes: [PixelBox], clipped: Bool?, opacity: Double,
                                   fill: Color?) {
        if pixels.factor == 1 {
            let program = use(programs.composite, clipped: clipped)
            setTexelSize(program.texelSize.source, pixels.size)
            glUniform1f(program.uniforms.opacity, GLfloat(opacity))
            glUniform2i(program.uniforms.origin, GLint(saturating: pixels.shift.x), GLint(saturating: pixels.shift.y))
            setPremultiplied(program.uniforms.fill, fill ?? .clear, opacity)
            for box in boxes {
                setQuad(program, .identity, box.rect)
                glDrawArrays(GLenum(GL_TRIANGLE_STRIP), 0, 4)
            }
            if fill != nil { glUniform4f(program.uniforms.fill, 0, 0, 0, 0) }
            return
        }
        // At a reduced resolution: sampled bilinearly, as the linear blit back up would.
        let program = use(programs.backdropComposite, clipped: clipped)
        glUniform2f(program.uniforms.sourceSize, GLfloat(pixels.size.width), GLfloat(pixels.size.height))
        glUniform1f(program.uniforms.opacity, GLfloat(opacity))
        glUniform1f(program.uniforms.factor, GLfloat(pixels.factor))
        glUniform2f(program.uniforms.shift, GLfloat(pixels.shift.x), GLfloat(pixels.shift.y))
        setPremultiplied(program.uniforms.fill, fill ?? .clear, opacity)
        for box in boxes {
            setQuad(program, .identity, box.rect)
            glDrawArrays(GLenum(GL_TRIANGLE_STRIP), 0, 4)
        }
    }

    /// `own` (the layer's box on the display) in the parts that lie wholly inside the layer's
    /// rounded shape (`uncut`) and those its edge or corners cross (`cut`), for a layer whose
    /// transform only scales (positively) and moves. With its edges on whole pixels only the
    /// corner squares are cut (as `drawAroundCorners` splits contents); otherwise a ring of a
    /// corner's reach and a pixel of antialiasing all round. `cut` is all of `own` otherwise.
    static func clipParts(_ c: DrawCommand, _ own: PixelBox) -> (uncut: [PixelBox], cut: [PixelBox]) {
        let plane = ClipPlane(c)
        if plane.displayBox != nil {
            guard let (inside, corners) = plane.cornerSplit else { return ([], [own]) }
            return (inside.map { $0.intersection(own) }.filter { !$0.isEmpty },
                    corners.map { $0.intersection(own) }.filter { !$0.isEmpty })
        }
        let t = c.transform
        guard t.m12 == 0, t.m21 == 0, t.m14 == 0, t.m24 == 0, t.m44 == 1, t.m11 > 0, t.m22 > 0 else { return ([], [own]) }
        let r = c.cornerRadii.reaches(within: c.bounds.size).largest
        let inset = Swift.max(r * Swift.max(t.m11, t.m22), 0) + 1
        let box = PixelBox(x0: c.bounds.minX * t.m11 + t.m41 + inset, y0: c.bounds.minY * t.m22 + t.m42 + inset,
                           x1: c.bounds.maxX * t.m11 + t.m41 - inset, y1: c.bounds.maxY * t.m22 + t.m42 - inset)
        let whole = PixelBox(x0: box.x0.rounded(.up), y0: box.y0.rounded(.up), x1: box.x1.rounded(.down), y1: box.y1.rounded(.down))
        let inner = whole.intersection(own)
        guard !inner.isEmpty else { return ([], [own]) }
        let ring = [PixelBox(x0: own.x0, y0: own.y0, x1: own.x1, y1: inner.y0),
                    PixelBox(x0: own.x0, y0: inner.y1, x1: own.x1, y1: own.y1),
                    PixelBox(x0: own.x0, y0: inner.y0, x1: inner.x0, y1: inner.y1),
                    PixelBox(x0: inner.x1, y0: inner.y0, x1: own.x1, y1: inner.y1)].filter { !$0.isEmpty }
        return ([inner], ring)
    }

    /// Runs `filters` over `read` of `source` (the target behind) in `scratch`; returns the target
    /// holding the result, the box of it that holds `own` (y down, the output's height), and the
    /// resolution's factor. A blur of σ ≥ 3 display pixels runs at half the resolution, of
    /// σ ≥ 6 at a quarter, as Core Image and Qt's MultiEffect do: `read` is averaged down (an
    /// exact 2×2 linear blit, or a copy into `scratch` and one pass averaging 4×4 blocks,
    /// `Shaders.downsample4`) and filtered there with the blur's σ reduced by the variance the
    /// box average and the bilinear way back up add (so the whole is the Gaussian asked for,
    /// within 4 levels of 255 against a CPU Gaussian). The way back up is the composite's
    /// bilinear sample (`Shaders.backdropComposite`), not a pass of its own: the result stays
    /// at the reduced resolution, display pixel p's value at p / factor.
    func filterBackdrop(_ filters: DrawFilters, from source: GLuint, _ scratch: OffscreenTarget, read: PixelBox, own: PixelBox,
                        transform: Transform3D) throws(GLESError) -> (target: OffscreenTarget, box: PixelBox, factor: Int) {
        let scale = transform.approximateScale
        var sigmas: [Double] = []
        for stage in filters.stages { if case .blur(let r) = stage { sigmas.append(r / 3 * (scale.isFinite ? scale : 0)) } }
        let variance = sigmas.reduce(0) { $0 + $1 * $1 }
        let factor = variance >= 36 ? 4 : variance >= 9 ? 2 : 1
        let h = frame.height
        // `read` in GL's rows from the bottom, shrunk to whole blocks of `factor` pixels.
        let f = Double(factor)
        let a = (x0: (read.x0 / f).rounded(.up) * f, y0: ((Double(h) - read.y1) / f).rounded(.up) * f,
                 x1: (read.x1 / f).rounded(.down) * f, y1: ((Double(h) - read.y0) / f).rounded(.down) * f)
        let aligned = PixelBox(x0: a.x0, y0: Double(h) - a.y1, x1: a.x1, y1: Double(h) - a.y0)
        // Without glBlitFramebuffer (the ES 2 path) there is no scaled copy: the blur runs at
        // full resolution.
        guard factor > 1, aligned.contains(own), capabilities.framebufferBlit else {
            // Around the read box the taps see clear pixels, as around a filtered group.
            glBindFramebuffer(GLenum(GL_FRAMEBUFFER), scratch.framebuffer)
            scissor(read.expanded(by: Self.filterMargin(filters, transform) + 2).intersection(frame.viewport).pixelAligned)
            glClearColor(0, 0, 0, 0)
            glClear(GLbitfield(GL_COLOR_BUFFER_BIT))
            blit(from: source, read, height: h, to: scratch.framebuffer, read, height: h)
            return (try applyFilters(filters, to: scratch, read, transform: transform), own, 1)
        }
        if backdropLow?.width != frame.width || backdropLow?.height != frame.height {
            backdropLow?.release()
            backdropLow = try OffscreenTarget(context: context, width: frame.width, height: frame.height)
        }
        let target = backdropLow!
        // The blurs at the reduced resolution: the widest one gives up what the averaging and
        // the way back up spread (`reducedSigma`).
        let widest = sigmas.indices.max { sigmas[$0] < sigmas[$1] } ?? 0
        var blur = 0
        var stages: [DrawFilters.Stage] = []
        for stage in filters.stages {
            if case .blur = stage {
                let sigma = blur == widest ? Self.reducedSigma(sigmas[blur], factor: factor) : sigmas[blur] / f
                stages.append(.blur(radius: 3 * sigma))
                blur += 1
            } else {
                stages.append(stage)
            }
        }
        var reduced = filters
        reduced.stages = stages
        // The box at the reduced resolution, in the same y-down display pixels (hugging the
        // bottom rows). Cleared around, so the taps past it read clear, then averaged down.
        let lowBox = PixelBox(x0: a.x0 / f, y0: Double(h) - a.y1 / f, x1: a.x1 / f, y1: Double(h) - a.y0 / f)
        glBindFramebuffer(GLenum(GL_FRAMEBUFFER), target.framebuffer)
        scissor(lowBox.expanded(by: Self.filterMargin(reduced, .identity) + 2).intersection(frame.viewport).pixelAligned)
        glClearColor(0, 0, 0, 0)
        glClear(GLbitfield(GL_COLOR_BUFFER_BIT))
        if factor == 4 {
            // An unscaled copy of the read box (llvmpipe copies it with memcpy), then one pass
            // averaging each 4 × 4 block: cheaper than two scaled blits, which draw.
            blit(from: source, aligned, height: h, to: scratch.framebuffer, aligned, height: h)
            downsample4(scratch, into: target, over: lowBox)
            glEnable(GLenum(GL_BLEND))
        } else {
            blit(from: source, aligned, height: h, to: target.framebuffer, lowBox, height: h, linear: true)
        }
        let result = try applyFilters(reduced, to: target, lowBox, transform: .identity)
        bindCurrentTarget()
        return (result, lowBox, factor)
    }

    /// `backdrop.filtered` (backdrops filtered), `backdrop.cached` (drawn from the cache),
    /// `backdrop.skipped` (past the area budget, drawn unfiltered), `backdrop.foldedFills`
    /// (layers' fills drawn in their backdrop's composite, `foldedFill`) since start, and
    /// `backdrop.entries` (filtered backdrops kept now).
    var backdropStatistics: [(name: String, value: Double)] {
        [("backdrop.filtered", Double(backdrops.filtered)), ("backdrop.cached", Double(backdrops.cached)),
         ("backdrop.skipped", Double(backdrops.skipped)), ("backdrop.foldedFills", Double(backdrops.foldedFills)),
         ("backdrop.entries", Double(backdrops.cache.count))]
    }
}

/// Where a filtered backdrop's pixels lie: in `texture` (`size` texels), display pixel p's (GL's
/// rows, from the bottom) at p / `factor` − `shift`; at factor 1 texel for pixel, `shift` whole.
struct BackdropPixels {
    var texture: GLuint
    var size: (width: Int, height: Int)
    var factor: Int
    var shift: (x: Double, y: Double)
}

/// What the renderer keeps for background filters between frames.
struct BackdropState {
    var cache = BackdropCache()
    /// Counts since start.
    var filtered = 0
    var cached = 0
    var skipped = 0
    var foldedFills = 0
    /// Whether a layer's plain fill is drawn in its backdrop's composite (`foldedFill`); off
    /// draws it on its own (tests compare the two).
    var foldsFills = true
    /// Backdrop pixels read in the frame being drawn (the area budget).
    var pixelsThisFrame = 0.0
    /// `draw` calls since start: entries not used in the last one are let go.
    var drawNumber = 0
    /// Reused for `BackdropRegions.dependencies`.
    var dependencies: [Int] = []
}

/// Filtered backdrops kept while what lies behind them is unchanged, at most `maximumEntries`;
/// an entry not used by the frame just drawn is let go.
struct BackdropCache {
    static let maximumEntries = 8

    /// The target of the entry kept for `c` if it is `width` × `height`, taken out of the cache
    /// for reuse.
    mutating func target(for c: DrawCommand, width: Int, height: Int) -> OffscreenTarget? {
        guard let i = entries.firstIndex(where: { $0.key.command == c }),
              entries[i].target.width == width, entries[i].target.height == height else { return nil }
        return entries.remove(at: i).target
    }

    /// What a filtered backdrop depends on: its own command, the commands before it that reach
    /// what it reads (with their contents' generations), and the output.
    struct Key: Equatable {
        var command: DrawCommand
        var dependencies: [DrawCommand]
        var generations: [UInt64]
        var width: Int
        var height: Int
        var background: Color

        init(command: DrawCommand, commands: [DrawCommand], dependencies: [Int], width: Int, height: Int, background: Color) {
            self.command = command
            self.dependencies = dependencies.map { commands[$0] }
            self.generations = dependencies.map { commands[$0].contents?.source.generation ?? commands[$0].particles?.source.generation ?? 0 }
            self.width = width
            self.height = height
            self.background = background
        }
    }

    struct Entry {
        var key: Key
        var box: PixelBox
        var target: OffscreenTarget
        /// Where in `target` the backdrop lies.
        var pixels: BackdropPixels
        var draw: Int
    }

    private(set) var entries: [Entry] = []
    var count: Int { entries.count }

    /// The kept backdrop for `key` over `box`, marked used in `draw`.
    mutating func lookup(_ key: Key, box: PixelBox, draw: Int) -> BackdropPixels? {
        guard let i = entries.firstIndex(where: { $0.box == box && $0.key == key }) else { return nil }
        entries[i].draw = draw
        return entries[i].pixels
    }

    mutating func insert(_ key: Key, box: PixelBox, target: OffscreenTarget, pixels: BackdropPixels, draw: Int) {
        if let i = entries.firstIndex(where: { $0.key.command == key.command }) {
            entries[i].target.release()
            entries.remove(at: i)
        }
        if entries.count >= Self.maximumEntries {
            let oldest = entries.indices.min { entries[$0].draw < entries[$1].draw }!
            entries[oldest].target.release()
            entries.remove(at: oldest)
        }
        entries.append(Entry(key: key, box: box, target: target, pixels: pixels, draw: draw))
    }

    /// Lets go of the entries `draw` did not use.
    mutating func endDraw(_ draw: Int) {
        entries.removeAll { e in
            guard e.draw < draw else { return false }
            e.target.release()
            return true
        }
    }

    mutating func releaseAll() {
        for e in entries { e.target.release() }
        entries.removeAll()
    }
}
