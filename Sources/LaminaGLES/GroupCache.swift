import CGLES
import LaminaCore
import LaminaCompositor

/// Offscreen groups (a shadow of their pixels, group opacity), kept from frame to frame while
/// their commands stay the same: the group's appearance (its blurred shadow, then its pixels at
/// its opacity, composited over transparency), drawn again as one textured quad. A panel with a
/// title and a drop shadow, or a translucent card with content, is such a group; on a mostly
/// still screen it is drawn from the cache wherever damage reaches it, with no offscreen passes
/// and no blur.
///
/// An entry is found by the group's commands (equal, not just hashed), the contents
/// generation of every image they draw, and the output's size. Only top-level groups with no
/// clip in force are kept.
///
/// A group is kept the second time it is drawn with the same key (`admits`), so a group whose
/// commands change every frame (a turning layer that casts a shadow of its pixels) allocates no
/// entry no later frame would find: it composites straight onto the display, as with the cache
/// off. A kept group is drawn through its appearance, which is rounded to 8 bits once more than
/// that: at most one step per channel.
///
/// Bounded: entries unused for `maximumIdleFrames` frames go, and beyond `budgetBytes` the
/// least recently used go first; at most `maximumSightings` keys of groups drawn once are
/// remembered.
final class GroupCache {
    final class Entry {
        let commands: [DrawCommand]
        let generations: [UInt64]
        let width: Int
        let height: Int
        /// What compositing the group touches, pixel-aligned, in display pixels.
        let reach: PixelBox
        /// The group's appearance over `reach`, premultiplied, in a target of the reach's size.
        let appearance: OffscreenTarget
        var lastUsed: Int
        var bytes: Int { appearance.width * appearance.height * 4 }

        init(commands: [DrawCommand], generations: [UInt64], width: Int, height: Int, reach: PixelBox,
             appearance: OffscreenTarget, frame: Int) {
            self.commands = commands
            self.generations = generations
            self.width = width
            self.height = height
            self.reach = reach
            self.appearance = appearance
            lastUsed = frame
        }

        func release() { appearance.release() }

        /// Whether a command of the group draws an image its client has destroyed.
        var holdsDestroyedImage: Bool { commands.contains { $0.contents?.source.isDestroyed == true } }
    }

    /// The most texture memory held, in bytes.
    var budgetBytes = 32 << 20
    /// Entries not used for this many frames are freed.
    static let maximumIdleFrames = 600
    private var entries: [Int: [Entry]] = [:]
    private(set) var totalBytes = 0
    private(set) var hits = 0
    private(set) var misses = 0
    private(set) var evictions = 0
    /// Groups drawn through their appearance without being kept (first drawn with their key,
    /// or with no room in the budget), since start.
    private(set) var unkept = 0
    var count: Int { entries.values.reduce(0) { $0 + $1.count } }
    /// The keys of groups drawn once, not kept, with the frame each was last drawn in.
    private var sightings: [Int: Int] = [:]
    static let maximumSightings = 256

    /// Whether a group missing from the cache is worth keeping: true when a group with the same
    /// key (`key(_:_:)`'s hash) was drawn, not kept, in an earlier frame within
    /// `maximumIdleFrames`; otherwise remembers this one. A hash shared by different commands
    /// only keeps a group that may not be used again (`lookup` compares the commands).
    func admits(hash: Int, frame: Int) -> Bool {
        if let seen = sightings[hash], seen < frame, frame - seen <= Self.maximumIdleFrames {
            sightings[hash] = nil
            return true
        }
        sightings[hash] = frame
        if sightings.count > Self.maximumSightings {
            // The oldest half goes (a frame of many changing groups, or a long animation).
            let kept = sightings.sorted { $0.value > $1.value }.prefix(Self.maximumSightings / 2)
            sightings = Dictionary(uniqueKeysWithValues: kept.map { ($0.key, $0.value) })
        }
        return false
    }

    /// Counts a cacheable group drawn but not kept (composited directly).
    func passOver() { unkept += 1 }

    /// The key of the group `commands[range]`: its commands' hash and their contents generations.
    static func key(_ commands: [DrawCommand], _ range: ClosedRange<Int>) -> (hash: Int, generations: [UInt64]) {
        var h = Hasher()
        var generations: [UInt64] = []
        for k in range {
            let c = commands[k]
            h.combine(c.kind)
            h.combine(c.transform)
            h.combine(c.bounds)
            h.combine(c.color)
            h.combine(c.opacity)
            if let source = c.contents?.source {
                generations.append(source.generation)
                h.combine(source.generation)
            }
        }
        return (h.finalize(), generations)
    }

    /// The entry drawing exactly `commands[range]` on a `width` × `height` output, if kept.
    func lookup(_ commands: [DrawCommand], _ range: ClosedRange<Int>, hash: Int, generations: [UInt64],
                width: Int, height: Int, frame: Int) -> Entry? {
        guard let list = entries[hash] else {
            misses += 1
            return nil
        }
        for e in list where e.width == width && e.height == height && e.generations == generations
            && e.commands.count == range.count && e.commands.elementsEqual(commands[range]) {
            e.lastUsed = frame
            hits += 1
            return e
        }
        misses += 1
        return nil
    }

    /// Frees the least recently used entries not drawn in `frame` until `bytes` more fit in the
    /// budget; returns whether they do (if not, the group is drawn without being kept, so one
    /// frame of many large groups cannot allocate past the budget).
    func makeRoom(_ bytes: Int, frame: Int) -> Bool {
        if totalBytes + bytes <= budgetBytes { return true }
        let candidates = entries.flatMap { pair in pair.value.map { (hash: pair.key, entry: $0) } }
            .filter { $0.entry.lastUsed < frame }
            .sorted { $0.entry.lastUsed < $1.entry.lastUsed }
        for c in candidates where totalBytes + bytes > budgetBytes { remove(c.entry, hash: c.hash) }
        return totalBytes + bytes <= budgetBytes
    }

    func insert(_ e: Entry, hash: Int) {
        entries[hash, default: []].append(e)
        totalBytes += e.bytes
    }

    /// Frees what has not been used for a while (or draws a destroyed image), then the least
    /// recently used beyond the budget. Allocates nothing unless something goes.
    func endFrame(_ frame: Int) {
        var gone: [(hash: Int, entry: Entry)] = []
        for (hash, list) in entries {
            for e in list where frame - e.lastUsed > Self.maximumIdleFrames || e.holdsDestroyedImage { gone.append((hash, e)) }
        }
        for g in gone { remove(g.entry, hash: g.hash) }
        if sightings.values.contains(where: { frame - $0 > Self.maximumIdleFrames }) {
            sightings = sightings.filter { frame - $0.value <= Self.maximumIdleFrames }
        }
        if totalBytes > budgetBytes { _ = makeRoom(0, frame: frame + 1) }
    }

    private func remove(_ e: Entry, hash: Int) {
        entries[hash]?.removeAll { $0 === e }
        if entries[hash]?.isEmpty == true { entries[hash] = nil }
        totalBytes -= e.bytes
        evictions += 1
        e.release()
    }

    func releaseAll() {
        for list in entries.values { for e in list { e.release() } }
        entries.removeAll()
        sightings.removeAll()
        totalBytes = 0
    }
}

extension GLESRenderer {
    /// `groupCache.entries`, `.bytes`, `.budgetBytes`, `.hits`, `.misses`, `.evictions` and
    /// `.unkept` (cacheable groups drawn but not kept, `GroupCache.admits`),
    /// `batch.flushes` (each up to two instanced draws, `ShapeBatch`), and `occlusion.skipped`
    /// (draws and groups an opaque layer drawn later hid, since start) and `occlusion.clearsSkipped`
    /// (damage passes that an opaque layer covered wholly, so drew no clear, since start); `video.dmabufImport` (1
    /// while dma-buf pictures are imported in place), `video.dmabufImported` and
    /// `video.dmabufCopied` (pictures imported, and mapped and copied instead, since start);
    /// `video.yuvConversions` (planar YUV pictures converted to RGB in a shader, since start);
    /// `clips.scissored` (square clips on whole pixels taken as scissor boxes, `pushClip`, since
    /// start); and the `backdrop.` counts (GLESRenderer+Backdrop.swift).
    public var cacheStatistics: [(name: String, value: Double)] {
        [("groupCache.entries", Double(groupCache.count)), ("groupCache.bytes", Double(groupCache.totalBytes)),
         ("groupCache.budgetBytes", Double(groupCache.budgetBytes)), ("groupCache.hits", Double(groupCache.hits)),
         ("groupCache.misses", Double(groupCache.misses)), ("groupCache.evictions", Double(groupCache.evictions)),
         ("groupCache.unkept", Double(groupCache.unkept)),
         ("batch.flushes", Double(batchDraws)), ("occlusion.skipped", Double(occludedDraws)),
         ("occlusion.clearsSkipped", Double(skippedClears)),
         ("contents.blits", Double(contentsBlits)),
         ("contents.clipSplits", Double(clippedSplits)), ("clips.scissored", Double(scissoredClips)),
         ("video.dmabufImport", textures.importer.map { $0.refusal == nil ? 1 : 0 } ?? 0),
         ("video.dmabufImported", Double(textures.dmabufImported)),
         ("video.dmabufCopied", Double(textures.dmabufCopied)),
         ("video.yuvConversions", Double(textures.yuv?.conversions ?? 0))] + backdropStatistics + capabilities.statistics
    }

    /// Copies `box` (display pixels, y down) of `source` into the same-size region `to` of
    /// `destination`; both framebuffers `height` rows tall (rows count from the bottom).
    /// The corresponding C function is `glBlitFramebuffer`.
    func blit(from source: GLuint, _ box: PixelBox, height sourceHeight: Int,
              to destination: GLuint, _ to: PixelBox, height destinationHeight: Int, linear: Bool = false) {
        glDisable(GLenum(GL_SCISSOR_TEST))
        guard capabilities.framebufferBlit else {
            copyWithoutBlit(from: source, box, height: sourceHeight, to: destination, to, height: destinationHeight)
            return
        }
        glBindFramebuffer(GLenum(GL_READ_FRAMEBUFFER), source)
        glBindFramebuffer(GLenum(GL_DRAW_FRAMEBUFFER), destination)
        let sh = Double(sourceHeight), dh = Double(destinationHeight)
        glBlitFramebuffer(GLint(saturating: box.x0), GLint(saturating: sh - box.y1),
                          GLint(saturating: box.x1), GLint(saturating: sh - box.y0),
                          GLint(saturating: to.x0), GLint(saturating: dh - to.y1),
                          GLint(saturating: to.x1), GLint(saturating: dh - to.y0),
                          GLbitfield(GL_COLOR_BUFFER_BIT), GLenum(linear ? GL_LINEAR : GL_NEAREST))
        glBindFramebuffer(GLenum(GL_FRAMEBUFFER), 0)
    }

    /// `blit` on the ES 2 path, which has no `glBlitFramebuffer`: `glCopyTexSubImage2D` from
    /// `source` (bound to read) into the texture behind `destination` (every destination is an
    /// `OffscreenTarget`). Same-size copies only: the ES 2 path makes no scaled ones.
    /// The corresponding C functions are `glGetFramebufferAttachmentParameteriv` and `glCopyTexSubImage2D`.
    private func copyWithoutBlit(from source: GLuint, _ box: PixelBox, height sourceHeight: Int,
                                 to destination: GLuint, _ to: PixelBox, height destinationHeight: Int) {
        glBindFramebuffer(GLenum(GL_FRAMEBUFFER), destination)
        var texture: GLint = 0
        glGetFramebufferAttachmentParameteriv(GLenum(GL_FRAMEBUFFER), GLenum(GL_COLOR_ATTACHMENT0),
                                              GLenum(GL_FRAMEBUFFER_ATTACHMENT_OBJECT_NAME), &texture)
        var bound: GLint = 0
        glGetIntegerv(GLenum(GL_TEXTURE_BINDING_2D), &bound)
        glBindFramebuffer(GLenum(GL_FRAMEBUFFER), source)
        glBindTexture(GLenum(GL_TEXTURE_2D), GLuint(texture))
        let sh = Double(sourceHeight), dh = Double(destinationHeight)
        let width = Swift.min(box.x1 - box.x0, to.x1 - to.x0), height = Swift.min(box.y1 - box.y0, to.y1 - to.y0)
        glCopyTexSubImage2D(GLenum(GL_TEXTURE_2D), 0, GLint(saturating: to.x0), GLint(saturating: dh - to.y1),
                            GLint(saturating: box.x0), GLint(saturating: sh - box.y1),
                            GLsizei(saturating: width), GLsizei(saturating: height))
        glBindTexture(GLenum(GL_TEXTURE_2D), GLuint(bound))
        glBindFramebuffer(GLenum(GL_FRAMEBUFFER), 0)
    }
}
