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
/// all of it (`BackdropRegions.grow`), and a frame with backdrops is drawn in one damage box,
/// so every pixel a backdrop reads is drawn again before it is read. At most
/// `maximumBackdropFraction` of the output's pixels are read by backdrops a frame; backdrops
/// past that draw unfiltered (`backdrop.skipped`).
extension GLESRenderer {
    /// The most backdrop pixels read in a frame, as a share of the output's pixels.
    public static let maximumBackdropFraction = 2.0

    func drawBackdrop(_ index: Int, _ c: DrawCommand, _ commands: [DrawCommand]) throws(GLESError) {
        guard let filters = c.filters, c.opacity > 0 else { return }
        let own = frame.extents.boxes[index].intersection(frame.viewport).pixelAligned
        guard !own.isEmpty else { return }
        if let damage = frame.damage, !own.intersects(damage) { return }
        // Measured as the damage tracker measures it, so a damage box grown over it holds it.
        let read = BackdropRegions.readBox(c, box: frame.extents.boxes[index], within: frame.viewport)
        let budget = Self.maximumBackdropFraction * frame.viewport.area
        guard backdrops.pixelsThisFrame + read.area <= budget else {
            backdrops.skipped += 1
            return
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
        var texture: GLuint
        var origin = (x: GLint(0), y: GLint(0))
        if cachesBackdrops, fresh, let hit = backdrops.cache.lookup(key, box: own, draw: backdrops.drawNumber) {
            texture = hit.texture
            origin = (GLint(saturating: own.x0), GLint(saturating: Double(frame.height) - own.y1))
            backdrops.cached += 1
        } else {
            if backdropSource?.width != frame.width || backdropSource?.height != frame.height {
                backdropSource = try OffscreenTarget(context: context, width: frame.width, height: frame.height)
            }
            let scratch = backdropSource!
            // Around the read box the taps see clear pixels, as around a filtered group.
            glBindFramebuffer(GLenum(GL_FRAMEBUFFER), scratch.framebuffer)
            scissor(read.expanded(by: BackdropRegions.margin(filters, c.transform)).intersection(frame.viewport).pixelAligned)
            glClearColor(0, 0, 0, 0)
            glClear(GLbitfield(GL_COLOR_BUFFER_BIT))
            blit(from: source, read, height: frame.height, to: scratch.framebuffer, read, height: frame.height)
            let result = try applyFilters(filters, to: scratch, read, transform: c.transform)
            texture = result.texture
            backdrops.filtered += 1
            if cachesBackdrops, fresh {
                let kept = try OffscreenTarget(context: context, width: Int(own.x1 - own.x0), height: Int(own.y1 - own.y0))
                blit(from: result.framebuffer, own, height: frame.height,
                     to: kept.framebuffer, PixelBox(width: kept.width, height: kept.height), height: kept.height)
                backdrops.cache.insert(key, box: own, target: kept, draw: backdrops.drawNumber)
                texture = kept.texture
                origin = (GLint(saturating: own.x0), GLint(saturating: Double(frame.height) - own.y1))
            }
        }

        // Drawn back over the layer's box, inside its rounded shape and the clips in force.
        bindCurrentTarget()
        pushClip(c)
        let program = use(programs.composite)
        glBindTexture(GLenum(GL_TEXTURE_2D), texture)
        setQuad(program, .identity, own.rect)
        glUniform1f(program.uniforms.opacity, GLfloat(c.opacity))
        glUniform2i(program.uniforms.origin, origin.x, origin.y)
        glDrawArrays(GLenum(GL_TRIANGLE_STRIP), 0, 4)
        popClip()
    }

    /// `backdrop.filtered` (backdrops filtered), `backdrop.cached` (drawn from the cache),
    /// `backdrop.skipped` (past the area budget, drawn unfiltered) since start, and
    /// `backdrop.entries` (filtered backdrops kept now).
    var backdropStatistics: [(name: String, value: Double)] {
        [("backdrop.filtered", Double(backdrops.filtered)), ("backdrop.cached", Double(backdrops.cached)),
         ("backdrop.skipped", Double(backdrops.skipped)), ("backdrop.entries", Double(backdrops.cache.count))]
    }
}

/// What the renderer keeps for background filters between frames.
struct BackdropState {
    var cache = BackdropCache()
    /// Counts since start.
    var filtered = 0
    var cached = 0
    var skipped = 0
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
        var draw: Int
    }

    private(set) var entries: [Entry] = []
    var count: Int { entries.count }

    /// The kept backdrop for `key` over `box`, marked used in `draw`.
    mutating func lookup(_ key: Key, box: PixelBox, draw: Int) -> OffscreenTarget? {
        guard let i = entries.firstIndex(where: { $0.box == box && $0.key == key }) else { return nil }
        entries[i].draw = draw
        return entries[i].target
    }

    mutating func insert(_ key: Key, box: PixelBox, target: OffscreenTarget, draw: Int) {
        if let i = entries.firstIndex(where: { $0.key.command == key.command }) {
            entries[i].target.release()
            entries.remove(at: i)
        }
        if entries.count >= Self.maximumEntries {
            let oldest = entries.indices.min { entries[$0].draw < entries[$1].draw }!
            entries[oldest].target.release()
            entries.remove(at: oldest)
        }
        entries.append(Entry(key: key, box: box, target: target, draw: draw))
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
