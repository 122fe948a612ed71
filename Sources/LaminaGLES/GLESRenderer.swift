import CGLES
import LaminaCore
import LaminaServer

/// Draws a `DrawList` with OpenGL ES 3 into whatever framebuffer is bound: the headless
/// backend's `GLESFramebuffer`, or a KMS output's window surface.
///
/// One static unit-square vertex buffer and one small program per kind of draw (`Shaders`):
/// rounded rectangles with borders, analytic shadows, group compositing and blur passes.
/// Blending is premultiplied (`GL_ONE, GL_ONE_MINUS_SRC_ALPHA`) and there is no depth test:
/// commands are painted in list order, as Core Animation flattens each layer.
///
/// Edges are antialiased analytically in the fragment shaders from each shape's distance
/// function. `masksToBounds` clips are evaluated the same way in every fragment shader, so
/// they are antialiased and follow any transform; a fragment honours the innermost
/// `Shaders.maximumClips` clips of its group. Offscreen groups (group opacity, shadows of
/// composited pixels) are drawn into output-sized textures kept from frame to frame, with the
/// scissor limited to what the group covers.
public final class GLESRenderer: Renderer {
    /// The context the renderer's GL objects belong to; it must be current to draw.
    public let context: GLESContext
    /// The GL strings of the context, read once when the renderer was made.
    public let info: GLInfo
    let programs: RendererPrograms
    private var vertexArray: GLuint = 0
    private var vertexBuffer: GLuint = 0
    /// The size of the last list drawn: what `readPixels` reads.
    private var drawnSize: (width: Int, height: Int)?
    private let maximumViewport: Int

    // Per-frame state, kept between frames so drawing allocates nothing once warm.
    private var frame = FrameState()
    /// Offscreen targets: `groupTargets[d]` holds the group open at nesting depth d.
    private var groupTargets: [OffscreenTarget] = []
    /// The scratch target of a shadow's first blur pass.
    private var blurTarget: OffscreenTarget?
    /// Reused for uniform arrays so uploads allocate nothing.
    private var matrix = [GLfloat](repeating: 0, count: 16)
    private var clipMatrices = [GLfloat](repeating: 0, count: 9 * Shaders.maximumClips)
    private var clipRects = [GLfloat](repeating: 0, count: 4 * Shaders.maximumClips)
    private var clipRadii = [GLfloat](repeating: 0, count: 4 * Shaders.maximumClips)
    /// Whether a `masksToBounds` clip is in force for what is drawn now.
    var hasActiveClips: Bool { frame.clips.count > frame.clipBase }
    /// Textures of contents images (client images and server rasters), by source.
    let textures = TextureCache()

    /// Compiles the shader programs and uploads the unit square. `context` must be current.
    public init(context: GLESContext) throws(GLESError) {
        guard context.isCurrent else { throw .contextNotCurrent }
        self.context = context
        info = context.glInfo()
        programs = try RendererPrograms()
        var dimensions: [GLint] = [0, 0]
        glGetIntegerv(GLenum(GL_MAX_VIEWPORT_DIMS), &dimensions)
        maximumViewport = Int(min(dimensions[0], dimensions[1]))

        let unitSquare: [GLfloat] = [0, 0, 1, 0, 0, 1, 1, 1]  // a triangle strip
        glGenVertexArrays(1, &vertexArray)
        glBindVertexArray(vertexArray)
        glGenBuffers(1, &vertexBuffer)
        glBindBuffer(GLenum(GL_ARRAY_BUFFER), vertexBuffer)
        glBufferData(GLenum(GL_ARRAY_BUFFER), unitSquare.count * MemoryLayout<GLfloat>.stride,
                     unitSquare, GLenum(GL_STATIC_DRAW))
        glVertexAttribPointer(ShaderProgram.unitVertexLocation, 2, GLenum(GL_FLOAT), GLboolean(GL_FALSE), 0, nil)
        glEnableVertexAttribArray(ShaderProgram.unitVertexLocation)
        glBindVertexArray(0)
        // Samplers read texture unit 0, set once.
        for program in [programs.composite, programs.blur, programs.contents] {
            glUseProgram(program.program)
            glUniform1i(program.extra[0], 0)
        }
        glUseProgram(0)
        frame.uploadedClipVersion = [Int](repeating: -1, count: programs.all.count)
        frame.uploadedFrame = [Int](repeating: -1, count: programs.all.count)
        try GLESError.check("creating the unit-square vertex array")
    }

    /// "OpenGL ES 3.2 Mesa 22.3.6 on llvmpipe (LLVM 15.0.6, 256 bits)".
    public var name: String { info.description }

    /// How many offscreen targets the renderer holds (groups and blur scratch), for stats.
    public var offscreenTargetCount: Int { groupTargets.count + (blurTarget == nil ? 0 : 1) }

    /// Clears to the list's background and paints its commands back to front.
    /// The context must be current with the target framebuffer bound.
    public func draw(_ list: DrawList) throws(GLESError) {
        guard context.isCurrent else { throw .contextNotCurrent }
        guard list.width > 0, list.height > 0, list.width <= maximumViewport, list.height <= maximumViewport else {
            throw .invalidSize(width: list.width, height: list.height, maximum: maximumViewport)
        }
        drawnSize = nil
        var bound: GLint = 0
        glGetIntegerv(GLenum(GL_FRAMEBUFFER_BINDING), &bound)
        frame.begin(width: list.width, height: list.height, output: GLuint(bound))

        glViewport(0, 0, GLsizei(list.width), GLsizei(list.height))
        glDisable(GLenum(GL_DEPTH_TEST))
        glDisable(GLenum(GL_SCISSOR_TEST))
        glDisable(GLenum(GL_CULL_FACE))
        glDisable(GLenum(GL_STENCIL_TEST))
        let background = list.background.premultiplied
        glClearColor(GLfloat(background.0), GLfloat(background.1), GLfloat(background.2), GLfloat(background.3))
        glClear(GLbitfield(GL_COLOR_BUFFER_BIT))

        glEnable(GLenum(GL_BLEND))
        glBlendFunc(GLenum(GL_ONE), GLenum(GL_ONE_MINUS_SRC_ALPHA))
        glBindVertexArray(vertexArray)
        glActiveTexture(GLenum(GL_TEXTURE0))

        let commands = list.commands
        if commands.contains(where: { $0.kind == .beginGroup }) { measureGroups(commands) }
        var skipping = 0  // > 0 while skipping the inside of a group that covers nothing
        for (index, command) in commands.enumerated() {
            if skipping > 0 {
                if command.kind == .beginGroup { skipping += 1 } else if command.kind == .endGroup { skipping -= 1 }
                continue
            }
            switch command.kind {
            case .layer: drawShape(command)
            case .shadow: drawShapeShadow(command)
            case .pushClip: pushClip(command)
            case .popClip: popClip()
            case .contents: drawContents(command)
            case .beginGroup:
                if try !beginGroup(index, command) { skipping = 1 }
            case .endGroup: try endGroup(commands)
            }
        }
        // A list whose groups do not close is still drawn whole.
        while !frame.groups.isEmpty { try endGroup(commands) }
        textures.endFrame()
        glBindVertexArray(0)
        glDisable(GLenum(GL_SCISSOR_TEST))
        try GLESError.check("drawing \(commands.count) commands at \(list.width)×\(list.height)")
        drawnSize = (list.width, list.height)
    }

    // MARK: Shapes

    /// Whether `r` under `t` covers whole pixels exactly: `t` only scales and translates (no
    /// rotation, no perspective) and every edge lands on a pixel boundary. Such a rectangle
    /// needs no antialiasing ramp, so it can take the plain fill.
    static func landsOnPixels(_ r: Rect, _ t: Transform3D) -> Bool {
        guard t.m12 == 0, t.m21 == 0, t.m14 == 0, t.m24 == 0, t.m44 == 1, t.m11 > 0, t.m22 > 0 else { return false }
        func onGrid(_ v: Double) -> Bool { abs(v - v.rounded()) < 1e-4 }
        return onGrid(r.minX * t.m11 + t.m41) && onGrid(r.maxX * t.m11 + t.m41)
            && onGrid(r.minY * t.m22 + t.m42) && onGrid(r.maxY * t.m22 + t.m42)
    }

    private func drawShape(_ c: DrawCommand) {
        let fillAlpha = c.color.alpha * c.opacity
        let borderAlpha = c.borderWidth > 0 ? c.borderColor.alpha * c.opacity : 0
        // `!(x > 0)` also skips NaN.
        guard fillAlpha > 0 || borderAlpha > 0, c.bounds.width > 0, c.bounds.height > 0 else { return }
        if borderAlpha == 0, c.cornerRadii == .zero, Self.landsOnPixels(c.bounds, c.transform) {
            let program = programs.fill
            use(program, index: 4)
            setQuad(program, c.transform, c.bounds)
            setPremultiplied(program.extra[0], c.color, c.opacity)
            glDrawArrays(GLenum(GL_TRIANGLE_STRIP), 0, 4)
            return
        }
        let program = programs.shape
        use(program, index: 0)
        let b = c.bounds
        setQuad(program, c.transform, b.insetBy(-antialiasingPad(c.transform, b)))
        glUniform4f(program.extra[0], GLfloat(b.minX), GLfloat(b.minY), GLfloat(b.width), GLfloat(b.height))
        setRadii(program.extra[1], c.cornerRadii)
        glUniform1f(program.extra[2], GLfloat(borderAlpha > 0 ? c.borderWidth : 0))
        setPremultiplied(program.extra[3], c.color, c.opacity)
        setPremultiplied(program.extra[4], c.borderColor, c.opacity)
        glDrawArrays(GLenum(GL_TRIANGLE_STRIP), 0, 4)
    }

    private func drawShapeShadow(_ c: DrawCommand) {
        guard let s = c.shadow, s.color.alpha * s.opacity * c.opacity > 0, c.bounds.width > 0, c.bounds.height > 0 else { return }
        let program = programs.shadow
        use(program, index: 1)
        let sigma = s.radius / 2
        let rect = Rect(x: c.bounds.minX + s.offset.width, y: c.bounds.minY + s.offset.height,
                        width: c.bounds.width, height: c.bounds.height)
        setQuad(program, c.transform, rect.insetBy(-(3 * sigma + antialiasingPad(c.transform, rect))))
        glUniform4f(program.extra[0], GLfloat(rect.minX), GLfloat(rect.minY), GLfloat(rect.width), GLfloat(rect.height))
        setRadii(program.extra[1], c.cornerRadii)
        glUniform1f(program.extra[2], GLfloat(sigma))
        setPremultiplied(program.extra[3], s.color, s.opacity * c.opacity)
        glDrawArrays(GLenum(GL_TRIANGLE_STRIP), 0, 4)
    }

    // MARK: Clips

    private func pushClip(_ c: DrawCommand) {
        frame.clips.append(ClipPlane(c))
        frame.clipVersion += 1
    }

    private func popClip() {
        guard frame.clips.count > frame.clipBase else { return }
        frame.clips.removeLast()
        frame.clipVersion += 1
    }

    // MARK: Groups

    /// Opens an offscreen group; returns false (and opens nothing) when it covers no pixel.
    private func beginGroup(_ index: Int, _ c: DrawCommand) throws(GLESError) -> Bool {
        let box = frame.boxes[index].intersection(frame.viewport).pixelAligned
        guard !box.isEmpty, c.opacity > 0 else { return false }
        let depth = frame.groups.count
        if depth == groupTargets.count {
            groupTargets.append(try OffscreenTarget(context: context, width: frame.width, height: frame.height))
        } else if groupTargets[depth].width != frame.width || groupTargets[depth].height != frame.height {
            groupTargets[depth] = try OffscreenTarget(context: context, width: frame.width, height: frame.height)
        }
        glBindFramebuffer(GLenum(GL_FRAMEBUFFER), groupTargets[depth].framebuffer)
        scissor(box)
        glClearColor(0, 0, 0, 0)
        glClear(GLbitfield(GL_COLOR_BUFFER_BIT))
        frame.groups.append(OpenGroup(command: index, box: box, clipBase: frame.clipBase))
        // Clips already in force apply when the group is composited, not inside it.
        frame.clipBase = frame.clips.count
        frame.clipVersion += 1
        return true
    }

    private func endGroup(_ commands: [DrawCommand]) throws(GLESError) {
        guard let group = frame.groups.popLast() else { return }
        if frame.clips.count > frame.clipBase { frame.clips.removeSubrange(frame.clipBase...) }
        frame.clipBase = group.clipBase
        frame.clipVersion += 1
        let source = groupTargets[frame.groups.count]
        let c = commands[group.command]
        bindCurrentTarget()
        if let shadow = c.shadow { try drawGroupShadow(source, group.box, c, shadow) }

        let program = programs.composite
        use(program, index: 2)
        glBindTexture(GLenum(GL_TEXTURE_2D), source.texture)
        setQuad(program, .identity, group.box.rect)
        glUniform1f(program.extra[1], GLfloat(c.opacity))
        glDrawArrays(GLenum(GL_TRIANGLE_STRIP), 0, 4)
    }

    /// The shadow of a group's pixels: their alpha blurred across into the scratch target,
    /// then down into the current target at the offset, in the shadow colour.
    private func drawGroupShadow(_ source: OffscreenTarget, _ box: PixelBox, _ c: DrawCommand, _ s: DrawShadow) throws(GLESError) {
        let tint = s.color.alpha * s.opacity * c.opacity
        guard tint > 0 else { return }
        // The blur is done in display pixels: sigma and the offset follow the layer's transform.
        let sigma = s.radius / 2 * c.transform.approximateScale
        let offset = c.transform.displayOffset(of: s.offset, at: Point(x: c.bounds.midX, y: c.bounds.midY))
        // At most 32 samples each side: wider blurs sample further apart (linear filtering
        // averages between samples).
        let reach = 3 * sigma
        let spacing = max(1, reach / 32)
        let taps = Int((reach / spacing).rounded(.up))
        let sigmaInSamples = max(sigma / spacing, 0.1)
        let spread = Double(taps) * spacing

        if blurTarget == nil || blurTarget!.width != frame.width || blurTarget!.height != frame.height {
            blurTarget = try OffscreenTarget(context: context, width: frame.width, height: frame.height)
        }
        let scratch = blurTarget!
        let program = programs.blur
        use(program, index: 3)
        let size = (GLfloat(frame.width), GLfloat(frame.height))

        // Pass 1: across, unclipped, into the scratch target.
        let across = PixelBox(x0: box.x0 - spread, y0: box.y0, x1: box.x1 + spread, y1: box.y1)
            .intersection(frame.viewport).pixelAligned
        glBindFramebuffer(GLenum(GL_FRAMEBUFFER), scratch.framebuffer)
        scissor(across)
        glClearColor(0, 0, 0, 0)
        glClear(GLbitfield(GL_COLOR_BUFFER_BIT))
        glUniform1i(program.clipCount, 0)
        frame.uploadedClipVersion[3] = -1
        glBindTexture(GLenum(GL_TEXTURE_2D), source.texture)
        setQuad(program, .identity, across.rect)
        glUniform2f(program.extra[1], size.0, size.1)
        glUniform2f(program.extra[2], 0, 0)
        glUniform2f(program.extra[3], GLfloat(spacing), 0)
        glUniform1i(program.extra[4], GLint(taps))
        glUniform1f(program.extra[5], GLfloat(sigmaInSamples))
        glUniform4f(program.extra[6], 1, 1, 1, 1)
        glDrawArrays(GLenum(GL_TRIANGLE_STRIP), 0, 4)

        // Pass 2: down, tinted, at the offset, clipped, into the group's parent.
        bindCurrentTarget()
        use(program, index: 3)
        let down = PixelBox(x0: across.x0 + offset.width, y0: across.y0 + offset.height - spread,
                            x1: across.x1 + offset.width, y1: across.y1 + offset.height + spread)
            .intersection(frame.viewport)
        glBindTexture(GLenum(GL_TEXTURE_2D), scratch.texture)
        setQuad(program, .identity, down.rect)
        // Framebuffer y runs up, display y down.
        glUniform2f(program.extra[2], GLfloat(offset.width), GLfloat(-offset.height))
        glUniform2f(program.extra[3], 0, GLfloat(spacing))
        setPremultiplied(program.extra[6], s.color, s.opacity * c.opacity)
        glDrawArrays(GLenum(GL_TRIANGLE_STRIP), 0, 4)
    }

    /// Binds the target of the innermost open group, or the output, with its scissor.
    private func bindCurrentTarget() {
        if let open = frame.groups.last {
            glBindFramebuffer(GLenum(GL_FRAMEBUFFER), groupTargets[frame.groups.count - 1].framebuffer)
            scissor(open.box)
        } else {
            glBindFramebuffer(GLenum(GL_FRAMEBUFFER), frame.output)
            glDisable(GLenum(GL_SCISSOR_TEST))
        }
    }

    private func scissor(_ box: PixelBox) {
        glEnable(GLenum(GL_SCISSOR_TEST))
        // Scissor boxes count rows from the bottom.
        glScissor(GLint(box.x0), GLint(Double(frame.height) - box.y1), GLsizei(box.x1 - box.x0), GLsizei(box.y1 - box.y0))
    }

    /// What each group covers on the display, in `frame.boxes[index of its beginGroup]`: the
    /// union of its commands' extents. A group's own extent, for the group around it, adds
    /// its shadow.
    private func measureGroups(_ commands: [DrawCommand]) {
        frame.boxes.removeAll(keepingCapacity: true)
        frame.openBoxes.removeAll(keepingCapacity: true)
        let everything = frame.viewport
        for (i, c) in commands.enumerated() {
            var box = PixelBox.empty
            switch c.kind {
            case .layer:
                box = c.transform.displayBox(of: c.bounds, within: everything).expanded(by: 2)
            case .shadow:
                if let s = c.shadow {
                    let reach = 1.5 * s.radius + 2
                    let rect = Rect(x: c.bounds.minX + s.offset.width - reach, y: c.bounds.minY + s.offset.height - reach,
                                    width: c.bounds.width + 2 * reach, height: c.bounds.height + 2 * reach)
                    box = c.transform.displayBox(of: rect, within: everything).expanded(by: 2)
                }
            case .beginGroup:
                frame.openBoxes.append(i)
            case .endGroup:
                guard let begin = frame.openBoxes.popLast() else { break }
                let content = frame.boxes[begin]
                box = content
                let g = commands[begin]
                if let s = g.shadow, !content.isEmpty {
                    let reach = 1.5 * s.radius * g.transform.approximateScale + 2
                    let o = g.transform.displayOffset(of: s.offset, at: Point(x: g.bounds.midX, y: g.bounds.midY))
                    box = box.union(PixelBox(x0: content.x0 + o.width, y0: content.y0 + o.height,
                                             x1: content.x1 + o.width, y1: content.y1 + o.height).expanded(by: reach))
                }
            case .contents:
                if let d = c.contents {
                    let extent = d.clip?.rect ?? d.destination
                    box = c.transform.displayBox(of: extent, within: everything).expanded(by: 2)
                }
            case .pushClip, .popClip:
                break
            }
            frame.boxes.append(box)
            if !box.isEmpty, c.kind != .beginGroup, let open = frame.openBoxes.last {
                frame.boxes[open] = frame.boxes[open].union(box)
            }
        }
    }

    // MARK: Uniforms

    /// Makes `program` current and brings its per-frame and clip uniforms up to date.
    func use(_ program: ShaderProgram, index: Int) {
        if frame.currentProgram != program.program {
            glUseProgram(program.program)
            frame.currentProgram = program.program
        }
        if frame.uploadedFrame[index] != frame.number {
            glUniform2f(program.pointsToClip, GLfloat(2 / Double(frame.width)), GLfloat(2 / Double(frame.height)))
            glUniform1f(program.displayHeight, GLfloat(frame.height))
            frame.uploadedFrame[index] = frame.number
        }
        if frame.uploadedClipVersion[index] != frame.clipVersion {
            uploadClips(program)
            frame.uploadedClipVersion[index] = frame.clipVersion
        }
    }

    private func uploadClips(_ program: ShaderProgram) {
        let active = frame.clips.count - frame.clipBase
        let count = min(active, Shaders.maximumClips)
        glUniform1i(program.clipCount, GLint(count))
        guard count > 0 else { return }
        let first = frame.clips.count - count  // the innermost ones
        for k in 0..<count {
            let clip = frame.clips[first + k]
            for j in 0..<9 { clipMatrices[k * 9 + j] = clip.fromDisplay[j] }
            for j in 0..<4 { clipRects[k * 4 + j] = clip.rect[j]; clipRadii[k * 4 + j] = clip.radii[j] }
        }
        glUniformMatrix3fv(program.clipFromDisplay, GLsizei(count), GLboolean(GL_FALSE), clipMatrices)
        glUniform4fv(program.clipRect, GLsizei(count), clipRects)
        glUniform4fv(program.clipRadii, GLsizei(count), clipRadii)
    }

    /// Sets the transform and the rectangle the unit square covers.
    func setQuad(_ program: ShaderProgram, _ t: Transform3D, _ r: Rect) {
        upload(t, to: program.layerToDisplay)
        glUniform4f(program.quad, GLfloat(r.minX), GLfloat(r.minY), GLfloat(r.width), GLfloat(r.height))
    }

    func setRadii(_ location: GLint, _ r: CornerRadii) {
        glUniform4f(location, GLfloat(r.minXMinY), GLfloat(r.maxXMinY), GLfloat(r.maxXMaxY), GLfloat(r.minXMaxY))
    }

    private func setPremultiplied(_ location: GLint, _ c: Color, _ opacity: Double) {
        let a = c.alpha * opacity
        glUniform4f(location, GLfloat(c.red * a), GLfloat(c.green * a), GLfloat(c.blue * a), GLfloat(a))
    }

    /// Uploads `t`'s entries in row-major order, which GLSL reads column-major as the
    /// column-vector form of the same transform.
    @inline(__always)
    private func upload(_ t: Transform3D, to location: GLint) {
        matrix.withUnsafeMutableBufferPointer { m in
            m[0] = GLfloat(t.m11); m[1] = GLfloat(t.m12); m[2] = GLfloat(t.m13); m[3] = GLfloat(t.m14)
            m[4] = GLfloat(t.m21); m[5] = GLfloat(t.m22); m[6] = GLfloat(t.m23); m[7] = GLfloat(t.m24)
            m[8] = GLfloat(t.m31); m[9] = GLfloat(t.m32); m[10] = GLfloat(t.m33); m[11] = GLfloat(t.m34)
            m[12] = GLfloat(t.m41); m[13] = GLfloat(t.m42); m[14] = GLfloat(t.m43); m[15] = GLfloat(t.m44)
            glUniformMatrix4fv(location, 1, GLboolean(GL_FALSE), m.baseAddress)
        }
    }

    /// One display pixel in the layer's units: how far a quad must reach past the shape so the
    /// outer half of its antialiased edge is rasterised.
    func antialiasingPad(_ t: Transform3D, _ r: Rect) -> Double {
        let scale = t.approximateScale
        guard scale > 1e-4, scale.isFinite else { return 1 }
        return min(1 / scale, max(r.width, r.height))
    }

    // MARK: Readback

    /// Reads back the last frame drawn from the bound framebuffer, top row first.
    /// The corresponding C function is `glReadPixels`.
    public func readPixels() throws(GLESError) -> Bitmap {
        guard context.isCurrent else { throw .contextNotCurrent }
        guard let (width, height) = drawnSize else { throw .nothingDrawn }
        let rowBytes = width * 4
        var bottomUp = [UInt8](repeating: 0, count: rowBytes * height)
        glPixelStorei(GLenum(GL_PACK_ALIGNMENT), 1)
        glReadPixels(0, 0, GLsizei(width), GLsizei(height), GLenum(GL_RGBA), GLenum(GL_UNSIGNED_BYTE), &bottomUp)
        try GLESError.check("glReadPixels(\(width)×\(height))")
        // GL's row 0 is the bottom of the display; a Bitmap's is the top.
        var topDown: [UInt8] = []
        topDown.reserveCapacity(bottomUp.count)
        for row in stride(from: height - 1, through: 0, by: -1) {
            topDown.append(contentsOf: bottomUp[row * rowBytes ..< (row + 1) * rowBytes])
        }
        guard let bitmap = Bitmap(width: width, height: height, bytes: topDown) else {
            throw .invalidSize(width: width, height: height, maximum: maximumViewport)
        }
        return bitmap
    }

    deinit {
        guard context.makeCurrentForCleanup() else { return }
        groupTargets.forEach { $0.release() }
        blurTarget?.release()
        glDeleteBuffers(1, &vertexBuffer)
        glDeleteVertexArrays(1, &vertexArray)
        programs.delete()
    }
}

// MARK: - Frame state

/// A `masksToBounds` clip as the fragment shaders take it.
private struct ClipPlane {
    /// The inverse of the clip plane's homography (layer point → display point), column-major
    /// in the first nine lanes: maps a display point into the layer's plane.
    var fromDisplay: SIMD16<Float>
    var rect: SIMD4<Float>
    var radii: SIMD4<Float>

    init(_ c: DrawCommand) {
        let t = c.transform
        // Column-vector homography of the plane z = 0: (X·W, Y·W, W) = H · (x, y, 1), with
        // H = [h0 h1 h2; h3 h4 h5; h6 h7 h8].
        let (h0, h1, h2) = (t.m11, t.m21, t.m41)
        let (h3, h4, h5) = (t.m12, t.m22, t.m42)
        let (h6, h7, h8) = (t.m14, t.m24, t.m44)
        // The inverse through the adjugate.
        let a0 = h4 * h8 - h5 * h7, a1 = h5 * h6 - h3 * h8, a2 = h3 * h7 - h4 * h6
        let det = h0 * a0 + h1 * a1 + h2 * a2
        var m = SIMD16<Float>(repeating: 0)
        if det != 0, det.isFinite {
            let inverse = [a0, h2 * h7 - h1 * h8, h1 * h5 - h2 * h4,
                           a1, h0 * h8 - h2 * h6, h2 * h3 - h0 * h5,
                           a2, h1 * h6 - h0 * h7, h0 * h4 - h1 * h3]
            // Row-major to GLSL's column-major.
            for row in 0..<3 { for column in 0..<3 { m[column * 3 + row] = Float(inverse[row * 3 + column] / det) } }
        } else {
            m[8] = -1  // a singular plane: w = −1 everywhere, which clips everything
        }
        fromDisplay = m
        let b = c.bounds, r = c.cornerRadii
        rect = SIMD4(Float(b.minX), Float(b.minY), Float(b.width), Float(b.height))
        radii = SIMD4(Float(r.minXMinY), Float(r.maxXMinY), Float(r.maxXMaxY), Float(r.minXMaxY))
    }
}

private struct OpenGroup {
    /// The index of the group's `beginGroup`.
    var command: Int
    /// What it covers, pixel-aligned.
    var box: PixelBox
    /// The enclosing group's first clip.
    var clipBase: Int
}

private struct FrameState {
    var number = 0
    var width = 0
    var height = 0
    /// The framebuffer bound when `draw` began: where the frame goes.
    var output: GLuint = 0
    var currentProgram: GLuint = 0
    var clips: [ClipPlane] = []
    /// The first clip of the innermost open group: clips below it apply when it is composited.
    var clipBase = 0
    var clipVersion = 0
    var uploadedClipVersion: [Int] = []
    var uploadedFrame: [Int] = []
    var groups: [OpenGroup] = []
    var boxes: [PixelBox] = []
    var openBoxes: [Int] = []

    var viewport: PixelBox { PixelBox(x0: 0, y0: 0, x1: Double(width), y1: Double(height)) }

    mutating func begin(width: Int, height: Int, output: GLuint) {
        number += 1
        self.width = width
        self.height = height
        self.output = output
        currentProgram = 0
        clips.removeAll(keepingCapacity: true)
        clipBase = 0
        clipVersion += 1
        groups.removeAll(keepingCapacity: true)
    }
}

/// A box on the display, in points (y down).
struct PixelBox: Equatable {
    var x0: Double, y0: Double, x1: Double, y1: Double

    static let empty = PixelBox(x0: 0, y0: 0, x1: 0, y1: 0)
    var isEmpty: Bool { !(x1 > x0 && y1 > y0) }
    var rect: Rect { Rect(x: x0, y: y0, width: x1 - x0, height: y1 - y0) }

    func union(_ o: PixelBox) -> PixelBox {
        if isEmpty { return o }
        if o.isEmpty { return self }
        return PixelBox(x0: min(x0, o.x0), y0: min(y0, o.y0), x1: max(x1, o.x1), y1: max(y1, o.y1))
    }
    func intersection(_ o: PixelBox) -> PixelBox {
        let b = PixelBox(x0: max(x0, o.x0), y0: max(y0, o.y0), x1: min(x1, o.x1), y1: min(y1, o.y1))
        return b.isEmpty ? .empty : b
    }
    func expanded(by d: Double) -> PixelBox {
        isEmpty ? self : PixelBox(x0: x0 - d, y0: y0 - d, x1: x1 + d, y1: y1 + d)
    }
    /// Grown outwards to whole pixels.
    var pixelAligned: PixelBox {
        PixelBox(x0: x0.rounded(.down), y0: y0.rounded(.down), x1: x1.rounded(.up), y1: y1.rounded(.up))
    }
}

extension Rect {
    /// The rectangle grown by `-d` on every side (shrunk for positive `d`).
    func insetBy(_ d: Double) -> Rect {
        Rect(x: minX + d, y: minY + d, width: width - 2 * d, height: height - 2 * d)
    }
}

extension Transform3D {
    /// How many display points one layer unit spans, near the layer's origin: the geometric
    /// mean of the scales of the 2D part (perspective ignored).
    var approximateScale: Double {
        abs(m11 * m22 - m12 * m21).squareRoot()
    }

    /// Where a layer-space displacement `d` at `p` lands on the display, as a display vector.
    func displayOffset(of d: Size, at p: Point) -> Size {
        guard let a = apply(to: p), let b = apply(to: Point(x: p.x + d.width, y: p.y + d.height)) else { return d }
        return Size(width: b.x - a.x, height: b.y - a.y)
    }

    /// The display box of `r`'s corners, or `everything` where a corner is behind the eye.
    func displayBox(of r: Rect, within everything: PixelBox) -> PixelBox {
        var box = PixelBox(x0: .infinity, y0: .infinity, x1: -.infinity, y1: -.infinity)
        for i in 0..<4 {
            let corner = Point(x: i & 1 == 0 ? r.minX : r.maxX, y: i & 2 == 0 ? r.minY : r.maxY)
            guard let p = apply(to: corner) else { return everything }
            box = PixelBox(x0: min(box.x0, p.x), y0: min(box.y0, p.y), x1: max(box.x1, p.x), y1: max(box.y1, p.y))
        }
        return box.isEmpty ? .empty : box
    }
}
