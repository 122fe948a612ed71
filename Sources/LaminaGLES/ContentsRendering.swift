import CEGL
import CGLES
import LaminaCore
import LaminaCompositor

/// The renderer's textures for `ImageSource`s: client images and server rasters alike.
///
/// A texture is made and the whole image uploaded the first time a source is drawn; after that
/// only the region changed since the generation the texture holds is uploaded again
/// (`glTexSubImage2D`). Mipmaps are generated when a draw first minifies with `trilinear`, and
/// regenerated after uploads. A texture is deleted at the end of the first frame in which its
/// source is destroyed (the client destroyed the image, or its session ended, or a server
/// producer removed it) and no command drew it.
final class TextureCache {
    struct Entry {
        var texture: GLuint
        let source: ImageSource
        var generation: UInt64
        var hasMipmaps: Bool
        var mipmapsStale: Bool
        var usedInFrame: Bool
        /// The imported dma-buf picture the texture samples (a video frame shown in place).
        var image: EGLImageKHR?
        /// The rows are stored bottom row first (a video frame in system memory, a client's
        /// picture read opaque), the way a framebuffer holds them, so it can be copied into one
        /// without a flip (`blit`).
        var bottomUp = false
        /// A framebuffer reading the texture, for that copy (made on first use).
        var readFramebuffer: GLuint = 0
        /// Every alpha the texture was given is 255 (a client's picture: read from what was
        /// uploaded; a video frame: by its decoder's format): a copy, which no shader forces
        /// opaque, writes the same pixels as a draw would.
        var uploadedOpaque = true
        /// Made for a packed RGB picture in dma-buf memory (imported in place where it can be);
        /// a video whose frames change kind (caps renegotiated) gets a new entry.
        var packedDMABuf = false
        var bytes: Int { source.byteCount + (hasMipmaps ? source.byteCount / 3 : 0) }
    }

    private(set) var entries: [UInt64: Entry] = [:]
    /// Whether a client's picture read opaque when its texture is made is kept bottom row
    /// first (the renderer's target takes the copy: `GLESRenderer.draw(_:into:damage:)`).
    var opaquePicturesBottomUp = false
    private var scratch: [UInt8] = []
    private var flipped: [UInt8] = []
    /// Imports video pictures in dma-buf memory (nil where the display cannot).
    var importer: DMABufImporter?
    /// Converts planar YUV video pictures on the GPU (nil: on the CPU).
    var yuv: YUVConverter?
    /// Whether `GL_UNPACK_ROW_LENGTH` can be set (`GLESCapabilities.unpackRowLength`); without
    /// it a region narrower than its rows is packed before upload.
    var unpackRowLength = true
    private var packed: [UInt8] = []
    /// Video pictures in dma-buf memory imported in place, and mapped and copied instead.
    private(set) var dmabufImported = 0
    private(set) var dmabufCopied = 0
    /// Sources whose texture could not be made (larger than the GL limit, out of memory):
    /// drawn as nothing, not retried every frame.
    private var failed: [UInt64: WeakSource] = [:]
    struct WeakSource { weak var source: ImageSource? }

    /// Whether `source` could not be given a texture.
    func hasFailed(_ source: ImageSource) -> Bool { failed[source.id] != nil }

    /// Whether `source` has a texture already (made in an earlier frame): drawing it cannot
    /// fail for want of one, so its opaque pixels may hide what lies behind (`Occlusion`).
    func isResident(_ source: ImageSource) -> Bool {
        !source.isDestroyed && source.width > 0 && source.height > 0 && entries[source.id] != nil && failed[source.id] == nil
    }

    /// The texture for `source`, brought up to its latest generation (and given mipmaps when
    /// `mipmaps` asks), bound to `GL_TEXTURE_2D` on the active unit. Returns whether it holds
    /// its rows bottom row first (a video frame's, an opaque client picture's: draws read it
    /// with v flipped).
    @discardableResult
    func bind(_ source: ImageSource, mipmaps: Bool) throws(GLESError) -> Bool {
        var existing = entries[source.id]
        if let e = existing, e.packedDMABuf != Self.isPackedDMABuf(source) {
            // Packed RGB dma-bufs are imported into a top-down texture, every other video frame
            // is converted or copied into a bottom-up one: start again with the new kind.
            release(e)
            entries[source.id] = nil
            existing = nil
        }
        if var e = existing {
            glBindTexture(GLenum(GL_TEXTURE_2D), e.texture)
            if let region = source.changedRegion(since: e.generation) {
                if e.bottomUp, source.isVideo {
                    uploadBottomUp(source, texture: e.texture)
                } else if e.bottomUp {
                    // A client's picture: only what changed, rows reversed. The client may
                    // have written translucent pixels since they were read: what is uploaded
                    // is read again.
                    let opaque = uploadRowsReversed(source, region)
                    e.uploadedOpaque = opaque && (e.uploadedOpaque || region == Self.whole(source))
                } else if !attach(source, to: &e) {
                    if let image = e.image {
                        // It sampled an imported picture: give it storage of its own again.
                        importer?.release(image)
                        e.image = nil
                        glTexImage2D(GLenum(GL_TEXTURE_2D), 0, GL_RGBA, GLsizei(source.width), GLsizei(source.height), 0,
                                     GLenum(GL_RGBA), GLenum(GL_UNSIGNED_BYTE), nil)
                        upload(source, Self.whole(source))
                    } else {
                        upload(source, region)
                    }
                }
                e.generation = source.generation
                e.mipmapsStale = e.hasMipmaps
            }
            // An imported picture is sampled as it is (no mipmaps of a decoder's buffer).
            if mipmaps, e.image == nil, !e.hasMipmaps || e.mipmapsStale {
                glGenerateMipmap(GLenum(GL_TEXTURE_2D))
                e.hasMipmaps = true
                e.mipmapsStale = false
            }
            e.usedInFrame = true
            entries[source.id] = e
            return e.bottomUp
        }
        var texture: GLuint = 0
        glGenTextures(1, &texture)
        glBindTexture(GLenum(GL_TEXTURE_2D), texture)
        glTexParameteri(GLenum(GL_TEXTURE_2D), GLenum(GL_TEXTURE_WRAP_S), GL_CLAMP_TO_EDGE)
        glTexParameteri(GLenum(GL_TEXTURE_2D), GLenum(GL_TEXTURE_WRAP_T), GL_CLAMP_TO_EDGE)
        var entry = Entry(texture: texture, source: source, generation: source.generation,
                          hasMipmaps: false, mipmapsStale: false, usedInFrame: true)
        // A video's frames in system memory, and YUV ones in dma-buf memory (converted into
        // the texture): whole frames every time, kept bottom row first. A client's picture
        // read opaque is kept so too where the target takes the copy (its changed rectangles
        // uploaded rows reversed): drawn one texel to a pixel it is copied rather than drawn
        // (a wallpaper under moving UI).
        entry.packedDMABuf = Self.isPackedDMABuf(source)
        entry.bottomUp = (source.isVideo || opaquePicturesBottomUp && source.pixelsReadOpaque) && !entry.packedDMABuf && !mipmaps
        if !entry.bottomUp, attach(source, to: &entry) {
            entries[source.id] = entry
            return false
        }
        glTexImage2D(GLenum(GL_TEXTURE_2D), 0, GL_RGBA, GLsizei(source.width), GLsizei(source.height), 0,
                     GLenum(GL_RGBA), GLenum(GL_UNSIGNED_BYTE), nil)
        let error = glGetError()
        guard error == GLenum(GL_NO_ERROR) else {
            glDeleteTextures(1, &texture)
            failed[source.id] = WeakSource(source: source)
            throw .callFailed(call: "glTexImage2D(\(source.width)×\(source.height)) for image \(source.number) of \(source.owner)", code: error)
        }
        if entry.bottomUp, source.isVideo {
            uploadBottomUp(source, texture: texture)
        } else if entry.bottomUp {
            entry.uploadedOpaque = uploadRowsReversed(source, Self.whole(source))
        } else {
            upload(source, Self.whole(source))
        }
        if mipmaps { glGenerateMipmap(GLenum(GL_TEXTURE_2D)) }
        entry.hasMipmaps = mipmaps
        entries[source.id] = entry
        return entry.bottomUp
    }

    /// Makes the entry's texture sample `source`'s dma-buf picture in place; false when the
    /// source has none or it must be copied (uploaded) instead.
    private func attach(_ source: ImageSource, to e: inout Entry) -> Bool {
        guard let picture = source.dmabuf else { return false }
        guard let importer, let image = importer.attach(picture, to: e.texture) else {
            dmabufCopied += 1
            return false
        }
        if let old = e.image { importer.release(old) }
        e.image = image
        dmabufImported += 1
        return true
    }

    /// A framebuffer that reads `source`'s bottom-up texture (made once, kept with it), or nil
    /// where the texture may hold alpha below 255 (a copy would write it).
    func readFramebuffer(for source: ImageSource) -> GLuint? {
        guard var e = entries[source.id], e.bottomUp, e.uploadedOpaque, e.image == nil else { return nil }
        if e.readFramebuffer == 0 {
            glGenFramebuffers(1, &e.readFramebuffer)
            glBindFramebuffer(GLenum(GL_READ_FRAMEBUFFER), e.readFramebuffer)
            glFramebufferTexture2D(GLenum(GL_READ_FRAMEBUFFER), GLenum(GL_COLOR_ATTACHMENT0), GLenum(GL_TEXTURE_2D), e.texture, 0)
            guard glCheckFramebufferStatus(GLenum(GL_READ_FRAMEBUFFER)) == GLenum(GL_FRAMEBUFFER_COMPLETE) else {
                glDeleteFramebuffers(1, &e.readFramebuffer)
                e.readFramebuffer = 0
                return nil
            }
            entries[source.id] = e
        }
        return e.readFramebuffer
    }

    /// The whole image, rows reversed on the way (one pass over memory the upload reads anyway);
    /// a planar YUV picture converted into the texture on the GPU, bottom row first too.
    private func uploadBottomUp(_ source: ImageSource, texture: GLuint) {
        if let planar = source.planar, let yuv, yuv.convert(planar, into: texture) { return }
        if let picture = source.dmabuf, picture.isYUV {
            // Imported in place as an external image where the driver takes it; else its planes
            // are mapped and copied out, and converted the same way (or on the CPU, below).
            if let yuv, let importer, yuv.convert(picture, importer: importer, into: texture) {
                dmabufImported += 1
                return
            }
            dmabufCopied += 1
            if let yuv, let planar = picture.copyPlanar(), yuv.convert(planar, into: texture) { return }
        }
        // A video frame's opacity was read when it was converted (`PackedPixels`).
        uploadRowsReversed(source, Self.whole(source), readingAlpha: false)
    }

    private static func whole(_ source: ImageSource) -> PixelRect {
        PixelRect(x: 0, y: 0, width: UInt32(source.width), height: UInt32(source.height))
    }

    /// The rectangle `r` (top-down image pixels) of a bottom-up texture: its rows reversed on
    /// the way (one pass over memory the upload reads anyway), landing at GL row
    /// height − r.y − r.height. Returns whether every alpha uploaded was 255 (`readingAlpha`;
    /// else true).
    @discardableResult
    private func uploadRowsReversed(_ source: ImageSource, _ r: PixelRect, readingAlpha: Bool = true) -> Bool {
        let x0 = min(Int(r.x), source.width), y0 = min(Int(r.y), source.height)
        let w = min(Int(r.width), source.width - x0), h = min(Int(r.height), source.height - y0)
        guard w > 0, h > 0 else { return true }
        var opaque = true
        let rect = PixelRect(x: UInt32(x0), y: UInt32(y0), width: UInt32(w), height: UInt32(h))
        source.withPremultipliedRGBA(rect, scratch: &scratch) { pixels, rowLength in
            if flipped.count < w * h * 4 { flipped = [UInt8](repeating: 0, count: w * h * 4) }
            flipped.withUnsafeMutableBytes { out in
                for row in 0..<h {
                    (out.baseAddress! + (h - 1 - row) * w * 4).copyMemory(from: pixels + row * rowLength * 4, byteCount: w * 4)
                }
            }
            glPixelStorei(GLenum(GL_UNPACK_ALIGNMENT), 4)
            flipped.withUnsafeBytes {
                if readingAlpha { opaque = PackedPixels.allOpaque(UnsafeRawBufferPointer(rebasing: $0[0 ..< w * h * 4])) }
                glTexSubImage2D(GLenum(GL_TEXTURE_2D), 0, GLint(x0), GLint(source.height - y0 - h), GLsizei(w), GLsizei(h),
                                GLenum(GL_RGBA), GLenum(GL_UNSIGNED_BYTE), $0.baseAddress)
            }
        }
        return opaque
    }

    private func upload(_ source: ImageSource, _ r: PixelRect) {
        source.withPremultipliedRGBA(r, scratch: &scratch) { pixels, rowLength in
            glPixelStorei(GLenum(GL_UNPACK_ALIGNMENT), 4)
            if !unpackRowLength {
                let w = Int(r.width), h = Int(r.height)
                if rowLength == w {
                    glTexSubImage2D(GLenum(GL_TEXTURE_2D), 0, GLint(r.x), GLint(r.y), GLsizei(w), GLsizei(h),
                                    GLenum(GL_RGBA), GLenum(GL_UNSIGNED_BYTE), pixels)
                    return
                }
                if packed.count < w * h * 4 { packed = [UInt8](repeating: 0, count: w * h * 4) }
                packed.withUnsafeMutableBytes { out in
                    for row in 0..<h {
                        (out.baseAddress! + row * w * 4).copyMemory(from: pixels + row * rowLength * 4, byteCount: w * 4)
                    }
                    glTexSubImage2D(GLenum(GL_TEXTURE_2D), 0, GLint(r.x), GLint(r.y), GLsizei(w), GLsizei(h),
                                    GLenum(GL_RGBA), GLenum(GL_UNSIGNED_BYTE), out.baseAddress)
                }
                return
            }
            glPixelStorei(GLenum(GL_UNPACK_ROW_LENGTH), GLint(rowLength))
            glTexSubImage2D(GLenum(GL_TEXTURE_2D), 0, GLint(r.x), GLint(r.y), GLsizei(r.width), GLsizei(r.height),
                            GLenum(GL_RGBA), GLenum(GL_UNSIGNED_BYTE), pixels)
            glPixelStorei(GLenum(GL_UNPACK_ROW_LENGTH), 0)
        }
    }

    /// Whether `source` holds a packed RGB picture in dma-buf memory.
    private static func isPackedDMABuf(_ source: ImageSource) -> Bool { source.dmabuf.map { !$0.isYUV } ?? false }

    /// Deletes an entry's GL objects and lets its imported picture go.
    private func release(_ e: Entry) {
        var t = e.texture
        glDeleteTextures(1, &t)
        if let image = e.image { importer?.release(image) }
        if e.readFramebuffer != 0 { var f = e.readFramebuffer; glDeleteFramebuffers(1, &f) }
    }

    /// Frees the textures of destroyed sources that this frame did not draw.
    func endFrame() {
        if !failed.isEmpty { failed = failed.filter { $0.value.source.map { !$0.isDestroyed } ?? false } }
        for (id, e) in entries {
            if e.source.isDestroyed && !e.usedInFrame {
                release(e)
                entries[id] = nil
            } else if e.usedInFrame {
                entries[id]!.usedInFrame = false
            }
        }
    }

    var usage: TextureUsage {
        var u = TextureUsage()
        for e in entries.values {
            u.bytes[e.source.owner, default: 0] += e.bytes
            u.textures[e.source.owner, default: 0] += 1
        }
        return u
    }
}

extension GLESRenderer {
    /// The textures held for contents, by owner.
    public var textureUsage: TextureUsage { textures.usage }

    /// Draws a `contents` command: the nine-slice textured quad of `Shaders.contents`.
    func drawContents(_ c: DrawCommand) {
        guard let d = c.contents, c.opacity > 0 else { return }
        let source = d.source
        guard !source.isDestroyed, source.width > 0, source.height > 0 else { return }
        // An image the GL cannot hold (over GL_MAX_TEXTURE_SIZE, out of memory) draws nothing;
        // it must not fail the frame for everyone else.
        guard !textures.hasFailed(source) else { return }
        // A texture kept bottom row first is read with v flipped.
        let bottomUp: Bool
        do { bottomUp = try textures.bind(source, mipmaps: d.minificationFilter == .trilinear) } catch { return }
        func filter(_ f: ContentsFilter, minifying: Bool) -> GLint {
            switch f {
            case .nearest: GL_NEAREST
            case .linear: GL_LINEAR
            case .trilinear: minifying ? GL_LINEAR_MIPMAP_LINEAR : GL_LINEAR
            }
        }
        let dr = d.destination
        let sr = bottomUp ? Rect(x: d.sourceRect.minX, y: 1 - d.sourceRect.minY, width: d.sourceRect.width, height: -d.sourceRect.height)
            : d.sourceRect
        // Pixels known opaque: the layer promised it, or the image's own pixels are (a video
        // frame without alpha, a client picture whose every alpha is 255).
        let opaque = d.isOpaque || source.isOpaqueThroughout
        // The whole image (or its contentsRect part) over a rectangle whose edges land on pixels,
        // without nine slices or a rounded mask: the plain program, no coverage to compute.
        let aligned = Self.landsOnPixels(dr, c.transform)
        let plain = d.clip == nil && d.destinationInsets == .zero && d.sourceInsets == .zero && aligned
        // One texel to one pixel, texel centres on pixel centres: nearest sampling reads what
        // linear would, for less.
        let part = d.sourceRect
        let texelForPixel = plain && part.width > 0 && part.height > 0
            && abs(dr.width * c.transform.m11 - part.width * Double(source.width)) < 1e-6
            && abs(dr.height * c.transform.m22 - part.height * Double(source.height)) < 1e-6
        // Nowhere minified: the magnification filter throughout, as GL's λ ≤ 0 asks, rather than
        // both filters where an axis is one to one and λ rounds either side of 0.
        let magnified = !texelForPixel && d.isMagnified(under: c.transform)
        let minFilter = texelForPixel ? GL_NEAREST
            : magnified ? filter(d.magnificationFilter, minifying: false) : filter(d.minificationFilter, minifying: true)
        let magFilter = texelForPixel ? GL_NEAREST : filter(d.magnificationFilter, minifying: false)
        glTexParameteri(GLenum(GL_TEXTURE_2D), GLenum(GL_TEXTURE_MIN_FILTER), minFilter)
        glTexParameteri(GLenum(GL_TEXTURE_2D), GLenum(GL_TEXTURE_MAG_FILTER), magFilter)
        // Linear filtering near the part's edge must not read texels outside it.
        let hu = 0.5 / Double(source.width), hv = 0.5 / Double(source.height)
        let u0 = min(sr.minX, sr.maxX), u1 = max(sr.minX, sr.maxX), v0 = min(sr.minY, sr.maxY), v1 = max(sr.minY, sr.maxY)
        let clampRect = (GLfloat(min(u0 + hu, (u0 + u1) / 2)), GLfloat(min(v0 + hv, (v0 + v1) / 2)),
                         GLfloat(max(u1 - hu, (u0 + u1) / 2)), GLfloat(max(v1 - hv, (v0 + v1) / 2)))
        // An opaque image at full opacity whose edges land on pixels needs no blending.
        let skipBlend = opaque && c.opacity >= 1 && d.clip == nil && !hasActiveClips && aligned
        // (Not while drawing around a clip's corners: a copy would ignore the scissor.)
        if texelForPixel, skipBlend, bottomUp, usesContentsBlit, capabilities.framebufferBlit, targetIsRGBA8, frame.groups.isEmpty,
           !drawingAroundCorners,
           blit(source, part: part, to: dr, c.transform) {
            return
        }
        // Inside one rounded clip: the clip's inside is drawn without it (the clip covers it
        // wholly there), only its corners through it (`drawAroundCorners`).
        if !drawingAroundCorners, hasActiveClips {
            drawingAroundCorners = true
            defer { drawingAroundCorners = false }
            if drawAroundCorners({ drawContents(c) }) { return }
        }
        if plain {
            let program = use(programs.plainContents)
            // The edges land on pixels: the quad is the destination exactly, no margin.
            setQuad(program, c.transform, dr)
            glUniform4f(program.uniforms.destRect, GLfloat(dr.minX), GLfloat(dr.minY), GLfloat(dr.width), GLfloat(dr.height))
            glUniform4f(program.uniforms.sourceRect, GLfloat(sr.minX), GLfloat(sr.minY), GLfloat(sr.maxX), GLfloat(sr.maxY))
            glUniform4f(program.uniforms.clampRect, clampRect.0, clampRect.1, clampRect.2, clampRect.3)
            glUniform1f(program.uniforms.opacity, GLfloat(c.opacity))
            glUniform1f(program.uniforms.opaque, opaque ? 1 : 0)
            if skipBlend { glDisable(GLenum(GL_BLEND)) }
            glDrawArrays(GLenum(GL_TRIANGLE_STRIP), 0, 4)
            if skipBlend { glEnable(GLenum(GL_BLEND)) }
            return
        }

        let program = use(programs.contents, continuous: d.clip?.radii.curve == .continuous)
        var area = d.destination
        if let clip = d.clip {
            // Only the part inside the clip can show.
            let x0 = max(area.minX, clip.rect.minX), y0 = max(area.minY, clip.rect.minY)
            let x1 = min(area.maxX, clip.rect.maxX), y1 = min(area.maxY, clip.rect.maxY)
            guard x1 > x0, y1 > y0 else { return }
            area = Rect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
        }
        setQuad(program, c.transform, area.insetBy(-antialiasingPad(c.transform, area)))
        let di = d.destinationInsets
        // Flipped rows run the other way: the top and bottom edges' texture extents too.
        let si = bottomUp ? EdgeInsets(left: d.sourceInsets.left, top: -d.sourceInsets.top, right: d.sourceInsets.right,
                                       bottom: -d.sourceInsets.bottom) : d.sourceInsets
        glUniform4f(program.uniforms.destRect, GLfloat(dr.minX), GLfloat(dr.minY), GLfloat(dr.width), GLfloat(dr.height))
        glUniform4f(program.uniforms.destInsets, GLfloat(di.left), GLfloat(di.top), GLfloat(di.right), GLfloat(di.bottom))
        glUniform4f(program.uniforms.sourceRect, GLfloat(sr.minX), GLfloat(sr.minY), GLfloat(sr.maxX), GLfloat(sr.maxY))
        glUniform4f(program.uniforms.sourceInsets, GLfloat(si.left), GLfloat(si.top), GLfloat(si.right), GLfloat(si.bottom))
        glUniform4f(program.uniforms.clampRect, clampRect.0, clampRect.1, clampRect.2, clampRect.3)
        if let clip = d.clip {
            glUniform4f(program.uniforms.maskRect, GLfloat(clip.rect.minX), GLfloat(clip.rect.minY), GLfloat(clip.rect.width), GLfloat(clip.rect.height))
            setRadii(program.uniforms.maskRadii, clip.radii)
            glUniform1f(program.uniforms.useMask, 1)
        } else {
            glUniform1f(program.uniforms.useMask, 0)
        }
        glUniform1f(program.uniforms.opacity, GLfloat(c.opacity))
        glUniform1f(program.uniforms.opaque, opaque ? 1 : 0)
        if skipBlend {
            glDisable(GLenum(GL_BLEND))
            // Without blending the antialiasing margin would write transparent black around
            // the image: the edges land on pixels, so the quad is the image exactly.
            setQuad(program, c.transform, area)
        }
        glDrawArrays(GLenum(GL_TRIANGLE_STRIP), 0, 4)
        if skipBlend { glEnable(GLenum(GL_BLEND)) }
    }

    /// Copies the part of a bottom-up texture one texel to a pixel into the output, where the
    /// destination (whole pixels, the caller checked) meets the damage box; false when the
    /// texture cannot be read as a framebuffer (then it is drawn).
    /// The corresponding C function is `glBlitFramebuffer`.
    private func blit(_ source: ImageSource, part: Rect, to destination: Rect, _ t: Transform3D) -> Bool {
        guard let read = textures.readFramebuffer(for: source) else { return false }
        let x0 = (destination.minX * t.m11 + t.m41).rounded(), y0 = (destination.minY * t.m22 + t.m42).rounded()
        let x1 = (destination.maxX * t.m11 + t.m41).rounded(), y1 = (destination.maxY * t.m22 + t.m42).rounded()
        let box = PixelBox(x0: x0, y0: y0, x1: x1, y1: y1).intersection(frame.outputLimit ?? frame.viewport).intersection(frame.viewport)
        defer { bindCurrentTarget() }
        guard !box.isEmpty else { return true }
        // The part's top-left texel, top-down; the texture holds rows bottom first.
        let u = (part.minX * Double(source.width)).rounded(), v = (part.minY * Double(source.height)).rounded()
        let sx0 = u + (box.x0 - x0), sx1 = sx0 + (box.x1 - box.x0)
        let top = v + (box.y0 - y0), bottom = top + (box.y1 - box.y0)
        let h = Double(source.height), fh = Double(frame.height)
        // Unscissored (a scissored blit is drawn, not copied): the box is the clip.
        glDisable(GLenum(GL_SCISSOR_TEST))
        glBindFramebuffer(GLenum(GL_READ_FRAMEBUFFER), read)
        glBindFramebuffer(GLenum(GL_DRAW_FRAMEBUFFER), frame.output)
        glBlitFramebuffer(GLint(saturating: sx0), GLint(saturating: h - bottom), GLint(saturating: sx1), GLint(saturating: h - top),
                          GLint(saturating: box.x0), GLint(saturating: fh - box.y1), GLint(saturating: box.x1), GLint(saturating: fh - box.y0),
                          GLbitfield(GL_COLOR_BUFFER_BIT), GLenum(GL_NEAREST))
        contentsBlits += 1
        return true
    }
}
