import CGLES
import Glibc
import LaminaCore
import LaminaServer

/// Draws a `DrawList` with OpenGL ES 3 into whatever framebuffer is bound: the headless
/// backend's `GLESFramebuffer`, or a KMS output's window surface.
///
/// One static unit-square vertex buffer, a streamed buffer for the cells of the edge-band split
/// (`EdgeBands`), and one small program per kind of draw (`Shaders`), each with and without the
/// clip stack: rounded rectangles with borders, analytic shadows, group compositing and blur passes.
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
    var vertexArray: GLuint = 0
    private var vertexBuffer: GLuint = 0
    /// Rectangles in layer coordinates, two triangles each, streamed per draw (edge bands).
    private var streamArray: GLuint = 0
    private var streamBuffer: GLuint = 0
    private var streamVertices: [GLfloat] = []
    private var bands = EdgeBands()
    /// The size of the last list drawn: what `readPixels` reads.
    private var drawnSize: (width: Int, height: Int)?
    private let maximumViewport: Int

    // Per-frame state, kept between frames so drawing allocates nothing once warm.
    var frame = FrameState()
    /// Offscreen targets: `groupTargets[d]` holds the group open at nesting depth d.
    var groupTargets: [OffscreenTarget] = []
    /// The scratch targets of a shadow's blur passes.
    var blurTargets: [OffscreenTarget] = []
    /// What gradients, masks and path shadows keep between frames (GLESRenderer+Looks.swift).
    var looks = LooksState()
    /// Reused for uniform arrays so uploads allocate nothing.
    private var matrix = [GLfloat](repeating: 0, count: 16)
    private var clipMatrices = [GLfloat](repeating: 0, count: 9 * Shaders.maximumClips)
    private var clipRects = [GLfloat](repeating: 0, count: 4 * Shaders.maximumClips)
    private var clipRadii = [GLfloat](repeating: 0, count: 4 * Shaders.maximumClips)
    /// Whether a `masksToBounds` clip is in force for what is drawn now.
    var hasActiveClips: Bool { frame.clips.count > frame.clipBase }
    /// Textures of contents images (client images and server rasters), by source.
    let textures = TextureCache()
    /// How video pictures in dma-buf memory are shown (`Renderer.videoImport`).
    public let videoImport: String
    public var videoImportRefusal: String? { textures.importer?.refusal }
    /// Shadow-casting offscreen groups kept while unchanged (`GroupCache`).
    let groupCache = GroupCache()
    /// Where a group to keep is composited (output-sized), before it is copied into the cache.
    var appearanceTarget: OffscreenTarget?
    /// Whether `groupCache` is used; off draws every group again (tests compare the two).
    public var cachesGroups = true
    /// Layers waiting to be drawn in one instanced draw (`ShapeBatch`).
    var batch = ShapeBatch()
    var batchPrograms: (flat: BatchProgram, shaded: BatchProgram)?
    /// Whether layers are batched; off draws each with its own calls (tests compare the two).
    public var usesBatching = true
    /// Instanced batch draws made, for benchmarks.
    public internal(set) var batchDraws = 0
    /// Whether draws hidden by an opaque layer drawn later are skipped (`Occlusion`); tests
    /// compare with it off.
    public var occlusionEnabled = true
    /// Draws and groups skipped because an opaque layer drawn later hid them, since start.
    public internal(set) var occludedDraws = 0

    /// Whether layers are split into flat cells and antialiased edge bands (`EdgeBands`).
    /// On by default; off draws every layer with the distance-field shader over its whole
    /// quad, which must give the same pixels (tests compare the two).
    public var usesEdgeBands = true

    /// Compiles the shader programs and uploads the unit square. `context` must be current.
    public init(context: GLESContext) throws(GLESError) {
        guard context.isCurrent else { throw .contextNotCurrent }
        self.context = context
        info = context.glInfo()
        let dmabuf = DMABufImporter.make(display: context.display, renderer: info.renderer)
        textures.importer = dmabuf.importer
        videoImport = dmabuf.importer == nil
            ? "copied: \(dmabuf.reason)" : "imported in place (\(dmabuf.reason)) where the driver accepts the buffer"
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
        glVertexAttribPointer(Shaders.unitVertexLocation, 2, GLenum(GL_FLOAT), GLboolean(GL_FALSE), 0, nil)
        glEnableVertexAttribArray(Shaders.unitVertexLocation)
        glGenVertexArrays(1, &streamArray)
        glBindVertexArray(streamArray)
        glGenBuffers(1, &streamBuffer)
        glBindBuffer(GLenum(GL_ARRAY_BUFFER), streamBuffer)
        glVertexAttribPointer(Shaders.unitVertexLocation, 2, GLenum(GL_FLOAT), GLboolean(GL_FALSE), 0, nil)
        glEnableVertexAttribArray(Shaders.unitVertexLocation)
        glBindVertexArray(0)
        batchPrograms = (try BatchProgram(name: "flat batch", fragment: Shaders.batchFlat, unitSquare: vertexBuffer),
                         try BatchProgram(name: "shape batch", fragment: Shaders.batchShaded, unitSquare: vertexBuffer))
        frame.uploadedClipVersion = [Int](repeating: -1, count: programs.all.count)
        frame.uploadedFrame = [Int](repeating: -1, count: programs.all.count)
        try GLESError.check("creating the unit-square vertex array")
    }

    /// "OpenGL ES 3.2 Mesa 22.3.6 on llvmpipe (LLVM 15.0.6, 256 bits)".
    public var name: String { info.description }

    /// How many offscreen targets the renderer holds (groups and blur scratch), for stats.
    public var offscreenTargetCount: Int { groupTargets.count + blurTargets.count + (looks.pathTarget == nil ? 0 : 1) }

    /// Clears to the list's background and paints its commands back to front.
    /// The context must be current with the target framebuffer bound.
    public func draw(_ list: DrawList) throws(GLESError) {
        try draw(list, damage: nil)
    }

    /// Binds `target` (a framebuffer or window surface of this context) and draws `damage` of
    /// the frame into it.
    public func draw(_ list: DrawList, into target: any RenderTarget, damage: DamageRegion?) throws {
        guard let t = target as? any GLESRenderTarget else { throw GLESError.foreignTarget("\(type(of: target))") }
        try t.bindForDrawing()
        try draw(list, damage: damage)
    }

    /// Draws the part of the frame in `damage` (all of it for nil), leaving the rest of the
    /// bound framebuffer as it was: one pass per damage box, scissored to it, in which every
    /// draw and group that cannot touch the box is skipped. Offscreen groups that reach into
    /// a box are drawn whole (a blur reads around every pixel) and composited scissored.
    /// The context must be current with the target framebuffer bound.
    public func draw(_ list: DrawList, damage: DamageRegion?) throws(GLESError) {
        guard context.isCurrent else { throw .contextNotCurrent }
        guard list.width > 0, list.height > 0, list.width <= maximumViewport, list.height <= maximumViewport else {
            throw .invalidSize(width: list.width, height: list.height, maximum: maximumViewport)
        }
        drawnSize = nil
        var bound: GLint = 0
        glGetIntegerv(GLenum(GL_FRAMEBUFFER_BINDING), &bound)
        let viewport = PixelBox(width: list.width, height: list.height)
        var boxes = damage.map { $0.clipped(to: viewport).boxes }
        // Each box is a pass over the list, and a draw that straddles boxes is set up once per
        // box: where the boxes fill most of the box around them, one pass over that is cheaper.
        if let b = boxes, b.count > 1 {
            let around = b.reduce(PixelBox.empty) { $0.union($1) }
            let sum = b.reduce(0) { $0 + $1.area }
            if around.area <= 1.5 * sum { boxes = [around] }
        }

        let commands = list.commands
        frame.occlusion.measure(occlusionEnabled ? commands : [])
        if boxes != nil || !frame.occlusion.covers.isEmpty || commands.contains(where: { $0.kind == .beginGroup }) {
            frame.extents.measure(commands, within: viewport)
        }
        for box in boxes ?? [viewport] {
            frame.begin(width: list.width, height: list.height, output: GLuint(bound))
            frame.damage = boxes == nil ? nil : box
            try drawPass(list)
        }
        if boxes?.isEmpty == true { glBindFramebuffer(GLenum(GL_FRAMEBUFFER), GLuint(bound)) }
        textures.endFrame()
        groupCache.endFrame(frame.number)
        try GLESError.check("drawing \(commands.count) commands at \(list.width)×\(list.height)")
        drawnSize = (list.width, list.height)
    }

    /// One pass over the list, within `frame.damage` where there is one.
    private func drawPass(_ list: DrawList) throws(GLESError) {
        glViewport(0, 0, GLsizei(list.width), GLsizei(list.height))
        glDisable(GLenum(GL_DEPTH_TEST))
        glDisable(GLenum(GL_CULL_FACE))
        glDisable(GLenum(GL_STENCIL_TEST))
        bindCurrentTarget()
        let background = list.background.premultiplied
        glClearColor(GLfloat(background.0), GLfloat(background.1), GLfloat(background.2), GLfloat(background.3))
        glClear(GLbitfield(GL_COLOR_BUFFER_BIT))

        glEnable(GLenum(GL_BLEND))
        glBlendFunc(GLenum(GL_ONE), GLenum(GL_ONE_MINUS_SRC_ALPHA))
        glBindVertexArray(vertexArray)
        glActiveTexture(GLenum(GL_TEXTURE0))

        let commands = list.commands
        let damage = frame.damage
        var skipping = 0  // > 0 while skipping the inside of a group that covers nothing
        var resumeAt = -1  // the end of a group copied from the cache: its content is skipped
        for (index, command) in commands.enumerated() {
            if index < resumeAt { continue }
            if skipping > 0 {
                switch command.kind {
                case .beginGroup: skipping += 1
                case .endGroup, .endMask: skipping -= 1
                default: break
                }
                continue
            }
            // Outside groups, what cannot reach the damage box is not drawn, nor what an opaque
            // layer drawn later hides there.
            if frame.groups.isEmpty, damage != nil || !frame.occlusion.covers.isEmpty {
                let region = damage ?? frame.viewport
                switch command.kind {
                case .layer, .shadow, .contents, .gradient, .pathShadow:
                    let box = frame.extents.boxes[index]
                    if !box.intersects(region) { continue }
                    if frame.occlusion.hides(box, drawnAt: index, within: region) {
                        occludedDraws += 1
                        continue
                    }
                case .beginGroup:
                    if let reach = frame.extents.groupReach(index) {
                        if !reach.intersects(region) {
                            skipping = 1
                            continue
                        }
                        if frame.occlusion.hides(reach, drawnAt: index, within: region) {
                            occludedDraws += 1
                            skipping = 1
                            continue
                        }
                    }
                default: break
                }
            }
            if command.kind != .layer { flushBatch() }
            switch command.kind {
            case .layer: drawShape(command)
            case .shadow: drawShapeShadow(command)
            case .pushClip: pushClip(command)
            case .popClip: popClip()
            case .contents: drawContents(command)
            case .beginGroup:
                switch try beginGroup(index, command, commands) {
                case .drawn: break
                case .empty: skipping = 1
                case .cached(let end): resumeAt = end + 1
                }
            case .endGroup: try endGroup(commands)
            case .gradient: drawGradient(command)
            case .pathShadow: try drawPathShadow(command)
            case .beginMask: try beginMask(index)
            case .endMask: try endMask(commands)
            }
        }
        flushBatch()
        // A list whose groups do not close is still drawn whole.
        while let open = frame.groups.last {
            if open.isMask { try endMask(commands) } else { try endGroup(commands) }
        }
        glBindVertexArray(0)
        glDisable(GLenum(GL_SCISSOR_TEST))
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
        if batches(c), let margin = c.transform.layerUnitsPerPixel {
            queue(c, margin: margin, fillAlpha: fillAlpha, borderAlpha: borderAlpha)
            return
        }
        flushBatch()
        if borderAlpha == 0, c.cornerRadii == .zero, Self.landsOnPixels(c.bounds, c.transform) {
            let program = use(programs.fill)
            setQuad(program, c.transform, c.bounds)
            setPremultiplied(program.uniforms.fillColor, c.color, c.opacity)
            glDrawArrays(GLenum(GL_TRIANGLE_STRIP), 0, 4)
            return
        }
        let b = c.bounds
        let borderWidth = borderAlpha > 0 ? c.borderWidth : 0
        let pad = antialiasingPad(c.transform, b)
        func setShapeUniforms() -> ShaderProgram<ShapeUniforms> {
            let program = use(programs.shape)
            glUniform4f(program.uniforms.rect, GLfloat(b.minX), GLfloat(b.minY), GLfloat(b.width), GLfloat(b.height))
            setRadii(program.uniforms.radii, c.cornerRadii)
            glUniform1f(program.uniforms.borderWidth, GLfloat(borderWidth))
            setPremultiplied(program.uniforms.fillColor, c.color, c.opacity)
            setPremultiplied(program.uniforms.borderColor, c.borderColor, c.opacity)
            return program
        }
        guard usesEdgeBands, c.transform.isAffineInPlane, let margin = c.transform.layerUnitsPerPixel else {
            // Perspective: the pixel footprint varies over the layer; the shader does it all.
            let program = setShapeUniforms()
            setQuad(program, c.transform, b.insetBy(-pad))
            glDrawArrays(GLenum(GL_TRIANGLE_STRIP), 0, 4)
            return
        }
        // The edge-band split: flat cells take the plain fill, only the bands and corners
        // run the distance-field shader.
        bands.split(b, radii: c.cornerRadii, borderWidth: borderWidth, margin: margin, pad: pad)
        if !bands.shaded.isEmpty {
            drawRects(setShapeUniforms(), c.transform, bands.shaded)
        }
        if fillAlpha > 0, !bands.fill.isEmpty {
            let fill = use(programs.fill)
            setPremultiplied(fill.uniforms.fillColor, c.color, c.opacity)
            drawRects(fill, c.transform, bands.fill)
        }
        if !bands.border.isEmpty {
            // The ring shows the border over the fill, as the shader composes them.
            let fa = c.color.alpha * c.opacity, ba = c.borderColor.alpha * c.opacity
            let k = fa * (1 - ba)
            let fill = use(programs.fill)
            glUniform4f(fill.uniforms.fillColor, GLfloat(c.borderColor.red * ba + c.color.red * k),
                        GLfloat(c.borderColor.green * ba + c.color.green * k),
                        GLfloat(c.borderColor.blue * ba + c.color.blue * k), GLfloat(ba + fa * (1 - ba)))
            drawRects(fill, c.transform, bands.border)
        }
    }

    /// Queues a layer in the batch: the same cells, colours and coverage as drawing it now.
    private func queue(_ c: DrawCommand, margin: Double, fillAlpha: Double, borderAlpha: Double) {
        func premultiplied(_ color: Color) -> SIMD4<Float> {
            let a = color.alpha * c.opacity
            return SIMD4(Float(color.red * a), Float(color.green * a), Float(color.blue * a), Float(a))
        }
        let fill = premultiplied(c.color), border = premultiplied(c.borderColor)
        let b = c.bounds
        batch.prepare(width: frame.width, height: frame.height)
        func box(_ r: Rect, grow: Double) -> PixelBox { c.transform.displayBox(of: r, within: frame.viewport).expanded(by: grow) }
        if borderAlpha == 0, c.cornerRadii == .zero, Self.landsOnPixels(b, c.transform) {
            // Flat cells go before the queue's shaded ones: wait if this one lies under one.
            if batch.conflicts(box(b, grow: 1)) { flushBatch() }
            batch.add([b], transform: c.transform, rect: b, radii: .zero, fill: fill, border: border, borderWidth: 0, flat: fill)
            return
        }
        let borderWidth = borderAlpha > 0 ? c.borderWidth : 0
        // Edges that stay horizontal and vertical on the display: cells can merge without seams.
        let axisAligned = c.transform.m12 == 0 && c.transform.m21 == 0
        bands.split(b, radii: c.cornerRadii, borderWidth: borderWidth, margin: margin, pad: antialiasingPad(c.transform, b),
                    merge: axisAligned)
        if bands.fill.contains(where: { batch.conflicts(box($0, grow: 1)) })
            || bands.border.contains(where: { batch.conflicts(box($0, grow: 1)) }) { flushBatch() }
        for cell in bands.shaded { batch.markShaded(box(cell, grow: 1)) }
        batch.add(bands.shaded, transform: c.transform, rect: b, radii: c.cornerRadii, fill: fill, border: border,
                  borderWidth: borderWidth, flat: nil)
        if fillAlpha > 0 {
            batch.add(bands.fill, transform: c.transform, rect: b, radii: c.cornerRadii, fill: fill, border: border,
                      borderWidth: borderWidth, flat: fill)
        }
        if !bands.border.isEmpty {
            // The ring shows the border over the fill, as the shader composes them.
            let fa = c.color.alpha * c.opacity, ba = c.borderColor.alpha * c.opacity
            let k = fa * (1 - ba)
            let ring = SIMD4(Float(c.borderColor.red * ba + c.color.red * k), Float(c.borderColor.green * ba + c.color.green * k),
                             Float(c.borderColor.blue * ba + c.color.blue * k), Float(ba + fa * (1 - ba)))
            batch.add(bands.border, transform: c.transform, rect: b, radii: c.cornerRadii, fill: fill, border: border,
                      borderWidth: borderWidth, flat: ring)
        }
    }

    /// Draws rectangles given in the layer coordinates of `t` with `program` (already in use,
    /// its own uniforms set). Neighbouring rectangles share exact vertex values, so (with
    /// `invariant gl_Position`) they meet without gaps or double-blended seams.
    private func drawRects<U>(_ program: ShaderProgram<U>, _ t: Transform3D, _ rects: [Rect]) {
        upload(t, to: program.layerToDisplay)
        glUniform4f(program.quad, 0, 0, 1, 1)
        streamVertices.removeAll(keepingCapacity: true)
        for r in rects {
            let ax = GLfloat(r.minX), ay = GLfloat(r.minY), bx = GLfloat(r.maxX), by = GLfloat(r.maxY)
            streamVertices.append(contentsOf: [ax, ay, bx, ay, ax, by, ax, by, bx, ay, bx, by])
        }
        glBindVertexArray(streamArray)
        glBindBuffer(GLenum(GL_ARRAY_BUFFER), streamBuffer)
        // New storage every time (orphaning), so the driver never waits for earlier draws.
        glBufferData(GLenum(GL_ARRAY_BUFFER), streamVertices.count * MemoryLayout<GLfloat>.stride,
                     streamVertices, GLenum(GL_STREAM_DRAW))
        glDrawArrays(GLenum(GL_TRIANGLES), 0, GLsizei(rects.count * 6))
        glBindVertexArray(vertexArray)
    }

    private func drawShapeShadow(_ c: DrawCommand) {
        guard let s = c.shadow, s.color.alpha * s.opacity * c.opacity > 0, c.bounds.width > 0, c.bounds.height > 0 else { return }
        let program = use(programs.shadow)
        let sigma = s.radius / 2
        let rect = Rect(x: c.bounds.minX + s.offset.width, y: c.bounds.minY + s.offset.height,
                        width: c.bounds.width, height: c.bounds.height)
        setQuad(program, c.transform, rect.insetBy(-(3 * sigma + antialiasingPad(c.transform, rect))))
        glUniform4f(program.uniforms.rect, GLfloat(rect.minX), GLfloat(rect.minY), GLfloat(rect.width), GLfloat(rect.height))
        setRadii(program.uniforms.radii, c.cornerRadii)
        glUniform1f(program.uniforms.sigma, GLfloat(sigma))
        setPremultiplied(program.uniforms.color, s.color, s.opacity * c.opacity)
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

    enum GroupStart { case drawn, empty, cached(end: Int) }

    /// Opens an offscreen group: `.empty` (and opens nothing) when it covers no pixel, `.cached`
    /// when its pixels were copied from `groupCache` (the commands up to `end` are skipped).
    private func beginGroup(_ index: Int, _ c: DrawCommand, _ commands: [DrawCommand]) throws(GLESError) -> GroupStart {
        let box = frame.extents.boxes[index].intersection(frame.viewport).pixelAligned
        guard !box.isEmpty, c.opacity > 0 else { return .empty }
        let depth = frame.groups.count
        if depth == groupTargets.count {
            groupTargets.append(try OffscreenTarget(context: context, width: frame.width, height: frame.height))
        } else if groupTargets[depth].width != frame.width || groupTargets[depth].height != frame.height {
            groupTargets[depth] = try OffscreenTarget(context: context, width: frame.width, height: frame.height)
        }
        // A top-level group (a shadow of its pixels, or group opacity) that ends plainly, under no
        // clip: its appearance (shadow and pixels composited at its opacity) is kept in the
        // cache and drawn from there while its commands stay the same.
        var toCache: (hash: Int, generations: [UInt64], end: Int)?
        if cachesGroups, depth == 0, frame.clips.isEmpty, !c.compositesAdditively,
           let end = frame.extents.ends[index], commands[end].kind == .endGroup || commands[end].kind == .endMask {
            let key = GroupCache.key(commands, index...end)
            if let hit = groupCache.lookup(commands, index...end, hash: key.hash, generations: key.generations,
                                           width: frame.width, height: frame.height, frame: frame.number) {
                bindCurrentTarget()
                drawAppearance(hit)
                return .cached(end: end)
            }
            toCache = (key.hash, key.generations, end)
        }
        glBindFramebuffer(GLenum(GL_FRAMEBUFFER), groupTargets[depth].framebuffer)
        // A shadow's blur reads around the box (at most twice the reach of a full-resolution
        // kernel, sigma < 3: 18 pixels): clear that too, so nothing an earlier group left there
        // leaks into the shadow.
        scissor(c.shadow == nil ? box : box.expanded(by: 20).intersection(frame.viewport))
        glClearColor(0, 0, 0, 0)
        glClear(GLbitfield(GL_COLOR_BUFFER_BIT))
        scissor(box)
        frame.groups.append(OpenGroup(command: index, box: box, clipBase: frame.clipBase, toCache: toCache))
        // Clips already in force apply when the group is composited, not inside it.
        frame.clipBase = frame.clips.count
        frame.clipVersion += 1
        return .drawn
    }

    private func endGroup(_ commands: [DrawCommand]) throws(GLESError) {
        if frame.groups.last?.isMask == true { return try endMask(commands) }
        guard let group = frame.groups.popLast() else { return }
        if frame.clips.count > frame.clipBase { frame.clips.removeSubrange(frame.clipBase...) }
        frame.clipBase = group.clipBase
        frame.clipVersion += 1
        let source = groupTargets[frame.groups.count]
        let c = commands[group.command]
        let capture = try beginCapture(group, commands)
        bindCurrentTarget()
        if let shadow = c.shadow { try drawGroupShadow(source, group.box, c, shadow) }

        let program = use(programs.composite)
        glBindTexture(GLenum(GL_TEXTURE_2D), source.texture)
        setQuad(program, .identity, group.box.rect)
        glUniform1f(program.uniforms.opacity, GLfloat(c.opacity))
        glUniform2i(program.uniforms.origin, 0, 0)
        if c.compositesAdditively { glBlendFunc(GLenum(GL_ONE), GLenum(GL_ONE)) }
        glDrawArrays(GLenum(GL_TRIANGLE_STRIP), 0, 4)
        if c.compositesAdditively { glBlendFunc(GLenum(GL_ONE), GLenum(GL_ONE_MINUS_SRC_ALPHA)) }
        endCapture(capture)
    }

    /// A group being kept: where its composite went instead of the output.
    struct Capture {
        let entry: GroupCache.Entry
        let hash: Int
        let output: GLuint
        let damage: PixelBox?
    }

    /// For a group to keep (`toCache`): points the frame's output at the scratch appearance
    /// target, cleared over the group's reach, so the group composites there instead. Nil when
    /// the group is not kept (or the cache has no room for it).
    func beginCapture(_ group: OpenGroup, _ commands: [DrawCommand]) throws(GLESError) -> Capture? {
        guard let key = group.toCache, let reach = frame.extents.groupReach(group.command)?.intersection(frame.viewport).pixelAligned,
              !reach.isEmpty, groupCache.makeRoom(Int(reach.x1 - reach.x0) * Int(reach.y1 - reach.y0) * 4, frame: frame.number)
        else { return nil }
        if appearanceTarget?.width != frame.width || appearanceTarget?.height != frame.height {
            appearanceTarget = try OffscreenTarget(context: context, width: frame.width, height: frame.height)
        }
        let kept = try OffscreenTarget(context: context, width: Int(reach.x1 - reach.x0), height: Int(reach.y1 - reach.y0))
        let entry = GroupCache.Entry(commands: Array(commands[group.command...key.end]), generations: key.generations,
                                     width: frame.width, height: frame.height, reach: reach, appearance: kept, frame: frame.number)
        let capture = Capture(entry: entry, hash: key.hash, output: frame.output, damage: frame.damage)
        frame.output = appearanceTarget!.framebuffer
        frame.damage = nil
        glBindFramebuffer(GLenum(GL_FRAMEBUFFER), frame.output)
        scissor(reach)
        glClearColor(0, 0, 0, 0)
        glClear(GLbitfield(GL_COLOR_BUFFER_BIT))
        return capture
    }

    /// The captured group's appearance goes into the cache, the output comes back, and the
    /// appearance is drawn there like a cached one.
    func endCapture(_ capture: Capture?) {
        guard let capture else { return }
        let kept = capture.entry.appearance
        blit(from: frame.output, capture.entry.reach, height: frame.height,
             to: kept.framebuffer, PixelBox(width: kept.width, height: kept.height), height: kept.height)
        (frame.output, frame.damage) = (capture.output, capture.damage)
        groupCache.insert(capture.entry, hash: capture.hash)
        bindCurrentTarget()
        drawAppearance(capture.entry)
    }

    /// Draws a cached group's appearance into the current target, over the reach it was kept for.
    private func drawAppearance(_ entry: GroupCache.Entry) {
        let program = use(programs.composite)
        glBindTexture(GLenum(GL_TEXTURE_2D), entry.appearance.texture)
        setQuad(program, .identity, entry.reach.rect)
        glUniform1f(program.uniforms.opacity, 1)
        // The kept texture starts at the reach's bottom-left corner (framebuffer rows count up).
        glUniform2i(program.uniforms.origin, GLint(saturating: entry.reach.x0), GLint(saturating: Double(frame.height) - entry.reach.y1))
        glDrawArrays(GLenum(GL_TRIANGLE_STRIP), 0, 4)
    }

    /// The shadow of a group's pixels: their alpha blurred (separable Gaussian) in scratch
    /// targets, then drawn into the current target at the offset, in the shadow colour.
    ///
    /// Blurs with sigma of 3 display pixels or more are done at half resolution: the group's
    /// alpha is box-filtered down (one bilinear read per 2×2 block), blurred across and down
    /// there and read back up with bilinear filtering, about a quarter of the work per pass.
    /// Taps come in pairs read between two texels (the linear-sampling trick) with weights
    /// computed once on the CPU, so each pass reads about half as many texels as it has taps.
    func drawGroupShadow(_ source: OffscreenTarget, _ box: PixelBox, _ c: DrawCommand, _ s: DrawShadow) throws(GLESError) {
        let tint = s.color.alpha * s.opacity * c.opacity
        guard tint > 0 else { return }
        // The blur is done in display pixels: sigma and the offset follow the layer's transform.
        let sigma = s.radius / 2 * c.transform.approximateScale
        let offset = c.transform.displayOffset(of: s.offset, at: Point(x: c.bounds.midX, y: c.bounds.midY))
        let factor = sigma >= 3 ? 2.0 : 1.0
        let kernel = BlurKernel(sigma: sigma / factor)
        let spread = kernel.reach * factor

        for k in 0..<2 where blurTargets.count <= k || blurTargets[k].width != frame.width || blurTargets[k].height != frame.height {
            let target = try OffscreenTarget(context: context, width: frame.width, height: frame.height)
            if blurTargets.count <= k { blurTargets.append(target) } else { blurTargets[k] = target }
        }
        let (a, b) = (blurTargets[0], blurTargets[1])
        let size = (GLfloat(frame.width), GLfloat(frame.height))
        // What the blur covers in display pixels, and the same in the scratch targets' pixels.
        let extent = box.expanded(by: spread).intersection(frame.viewport).pixelAligned
        let work = scaled(extent, by: 1 / factor)
        let margin = kernel.reach + 2

        func pass(_ from: OffscreenTarget, into target: GLuint, over region: PixelBox, clear: PixelBox?, scale: Double,
                  shift: Size, direction: (GLfloat, GLfloat), taps: BlurKernel?, color: Color?, clipped: Bool?) {
            glBindFramebuffer(GLenum(GL_FRAMEBUFFER), target)
            if let clear {
                scissor(clear)
                glClearColor(0, 0, 0, 0)
                glClear(GLbitfield(GL_COLOR_BUFFER_BIT))
            }
            // Scratch passes replace what is there; only the last one blends.
            if target == currentTarget {
                bindCurrentTarget()
                glEnable(GLenum(GL_BLEND))
            } else {
                scissor(region)
                glDisable(GLenum(GL_BLEND))
            }
            let program = use(programs.blur, clipped: clipped)
            glBindTexture(GLenum(GL_TEXTURE_2D), from.texture)
            setQuad(program, .identity, region.rect)
            glUniform2f(program.uniforms.sourceSize, size.0, size.1)
            // Framebuffer y runs up, display y down.
            glUniform2f(program.uniforms.sourceOffset, GLfloat(shift.width), GLfloat(-shift.height))
            glUniform2f(program.uniforms.direction, direction.0, direction.1)
            glUniform1f(program.uniforms.scale, GLfloat(scale))
            if let taps {
                glUniform1i(program.uniforms.taps, GLint(taps.count))
                glUniform1fv(program.uniforms.weights, GLsizei(taps.count + 1), taps.weights)
                glUniform1fv(program.uniforms.offsets, GLsizei(taps.count + 1), taps.offsets)
            } else {
                glUniform1i(program.uniforms.taps, 0)
                glUniform1fv(program.uniforms.weights, 1, [1])
                glUniform1fv(program.uniforms.offsets, 1, [0])
            }
            if let color { setPremultiplied(program.uniforms.color, color, s.opacity * c.opacity) } else { glUniform4f(program.uniforms.color, 1, 1, 1, 1) }
            glDrawArrays(GLenum(GL_TRIANGLE_STRIP), 0, 4)
        }
        let final = currentTarget
        let shadowBox = PixelBox(x0: extent.x0 + offset.width, y0: extent.y0 + offset.height,
                                 x1: extent.x1 + offset.width, y1: extent.y1 + offset.height).intersection(frame.viewport)
        if factor == 1 {
            // Across into A, then down into the current target, tinted and at the offset.
            pass(source, into: a.framebuffer, over: extent, clear: extent.expanded(by: margin).intersection(frame.viewport),
                 scale: 1, shift: .zero, direction: (1, 0), taps: kernel, color: nil, clipped: false)
            pass(a, into: final, over: shadowBox, clear: nil, scale: 1, shift: offset, direction: (0, 1), taps: kernel,
                 color: s.color, clipped: nil)
        } else {
            let clear = work.expanded(by: margin).intersection(frame.viewport)
            // Down-sample into B, across into A, down into B, then up into the current target.
            let inside = scaled(box.expanded(by: 1).intersection(frame.viewport).pixelAligned, by: 1 / factor)
            pass(source, into: b.framebuffer, over: inside, clear: clear, scale: factor, shift: .zero, direction: (0, 0),
                 taps: nil, color: nil, clipped: false)
            pass(b, into: a.framebuffer, over: work, clear: clear, scale: 1, shift: .zero, direction: (1, 0),
                 taps: kernel, color: nil, clipped: false)
            pass(a, into: b.framebuffer, over: work, clear: nil, scale: 1, shift: .zero, direction: (0, 1),
                 taps: kernel, color: nil, clipped: false)
            pass(b, into: final, over: shadowBox, clear: nil, scale: 1 / factor, shift: offset, direction: (0, 0),
                 taps: nil, color: s.color, clipped: nil)
        }
        bindCurrentTarget()
    }

    /// `box` in the pixels of a target drawn at `scale` times the display's resolution, in the
    /// display coordinates (y down from the top of the full-size target) the passes draw in:
    /// framebuffer rows count from the bottom, so the scaled region hugs the bottom-left corner.
    private func scaled(_ box: PixelBox, by scale: Double) -> PixelBox {
        if scale == 1 { return box }
        let h = Double(frame.height)
        let rowLow = ((h - box.y1) * scale).rounded(.down), rowHigh = ((h - box.y0) * scale).rounded(.up)
        return PixelBox(x0: (box.x0 * scale).rounded(.down), y0: h - rowHigh, x1: (box.x1 * scale).rounded(.up), y1: h - rowLow)
    }

    /// Binds the target of the innermost open group, or the output, with its scissor.
    func bindCurrentTarget() {
        if let open = frame.groups.last {
            glBindFramebuffer(GLenum(GL_FRAMEBUFFER), groupTargets[frame.groups.count - 1].framebuffer)
            scissor(open.box)
        } else {
            glBindFramebuffer(GLenum(GL_FRAMEBUFFER), frame.output)
            if let damage = frame.damage { scissor(damage) } else { glDisable(GLenum(GL_SCISSOR_TEST)) }
        }
    }

    /// The framebuffer commands draw into: the innermost open group's, or the output.
    var currentTarget: GLuint {
        frame.groups.isEmpty ? frame.output : groupTargets[frame.groups.count - 1].framebuffer
    }

    func scissor(_ box: PixelBox) {
        glEnable(GLenum(GL_SCISSOR_TEST))
        // Scissor boxes count rows from the bottom.
        glScissor(GLint(saturating: box.x0), GLint(saturating: Double(frame.height) - box.y1),
                  GLsizei(saturating: box.x1 - box.x0), GLsizei(saturating: box.y1 - box.y0))
    }

    // MARK: Uniforms

    /// Makes the program for `kind` current, with the clip stack when clips are in force (or
    /// as `clipped` says), brings its per-frame and clip uniforms up to date and returns it.
    @discardableResult
    func use<U>(_ variants: ProgramVariants<U>, clipped: Bool? = nil) -> ShaderProgram<U> {
        let withClips = clipped ?? (frame.clips.count > frame.clipBase)
        let program = variants[clipped: withClips]
        let index = program.slot
        if frame.currentProgram != program.program {
            glUseProgram(program.program)
            frame.currentProgram = program.program
        }
        if frame.uploadedFrame[index] != frame.number {
            glUniform2f(program.pointsToClip, GLfloat(2 / Double(frame.width)), GLfloat(2 / Double(frame.height)))
            glUniform1f(program.displayHeight, GLfloat(frame.height))
            frame.uploadedFrame[index] = frame.number
        }
        if withClips, frame.uploadedClipVersion[index] != frame.clipVersion {
            uploadClips(program)
            frame.uploadedClipVersion[index] = frame.clipVersion
        }
        return program
    }

    private func uploadClips<U>(_ program: ShaderProgram<U>) {
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
    func setQuad<U>(_ program: ShaderProgram<U>, _ t: Transform3D, _ r: Rect) {
        upload(t, to: program.layerToDisplay)
        glUniform4f(program.quad, GLfloat(r.minX), GLfloat(r.minY), GLfloat(r.width), GLfloat(r.height))
    }

    func setRadii(_ location: GLint, _ r: CornerRadii) {
        glUniform4f(location, GLfloat(r.minXMinY), GLfloat(r.maxXMinY), GLfloat(r.maxXMaxY), GLfloat(r.minXMaxY))
    }

    func setPremultiplied(_ location: GLint, _ c: Color, _ opacity: Double) {
        let a = c.alpha * opacity
        glUniform4f(location, GLfloat(c.red * a), GLfloat(c.green * a), GLfloat(c.blue * a), GLfloat(a))
    }

    /// Uploads `t`'s entries in row-major order, which GLSL reads column-major as the
    /// column-vector form of the same transform.
    @inline(__always)
    func upload(_ t: Transform3D, to location: GLint) {
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
        blurTargets.forEach { $0.release() }
        groupCache.releaseAll()
        appearanceTarget?.release()
        releaseLooks()
        glDeleteBuffers(1, &vertexBuffer)
        glDeleteVertexArrays(1, &vertexArray)
        glDeleteBuffers(1, &streamBuffer)
        glDeleteVertexArrays(1, &streamArray)
        programs.delete()
        batchPrograms?.flat.delete()
        batchPrograms?.shaded.delete()
    }
}

// MARK: - Frame state

/// A `masksToBounds` clip as the fragment shaders take it.
struct ClipPlane {
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

struct OpenGroup {
    /// The index of the group's `beginGroup`.
    var command: Int
    /// What it covers, pixel-aligned.
    var box: PixelBox
    /// The enclosing group's first clip.
    var clipBase: Int
    /// True for a group's mask (opened by `beginMask`, drawn one target above the group).
    var isMask = false
    /// A group to keep in the cache once drawn: its key.
    var toCache: (hash: Int, generations: [UInt64], end: Int)?
}

struct FrameState {
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
    /// What each command touches (`CommandExtents`), measured where groups, damage or
    /// occlusion need it.
    var extents = CommandExtents()
    /// The opaque layers that hide what is drawn before them (`Occlusion`).
    var occlusion = Occlusion()
    /// The damage box being drawn: everything drawn into the output is scissored to it and
    /// what lies outside it is skipped. Nil when the frame is drawn whole.
    var damage: PixelBox?

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

extension Rect {
    /// The rectangle grown by `-d` on every side (shrunk for positive `d`).
    func insetBy(_ d: Double) -> Rect {
        Rect(x: minX + d, y: minY + d, width: width - 2 * d, height: height - 2 * d)
    }
}

/// The taps of one pass of a separable Gaussian blur, for `Shaders.blur`: a centre weight, then
/// `count` taps each side at `offsets[1...]`. Neighbouring texels are read in pairs, between
/// the two at the point where bilinear filtering gives them their two weights (the
/// linear-sampling trick); blurs wider than the arrays hold sample further apart instead.
struct BlurKernel {
    static let maximumTaps = 32

    var weights: [GLfloat] = []
    var offsets: [GLfloat] = []
    /// How far the kernel reaches each side, in texels.
    var reach: Double = 0
    var count: Int { weights.count - 1 }

    /// The widest blur drawn, in texels: wider is as flat as the display is large, and a
    /// client's shadowRadius of 1e308 (or a huge scale) must not size an array or trap.
    static let maximumSigma = 4096.0

    init(sigma requested: Double) {
        let sigma = requested.isFinite ? min(requested, Self.maximumSigma) : (requested.isNaN ? 0 : Self.maximumSigma)
        let n = Int((3 * sigma).rounded(.up))
        guard sigma >= 0.05, n >= 1 else {
            weights = [1]
            offsets = [0]
            return
        }
        var w = (0...n).map { k in exp(-Double(k * k) / (2 * sigma * sigma)) }
        let total = w[0] + 2 * w[1...].reduce(0, +)
        w = w.map { $0 / total }
        weights = [GLfloat(w[0])]
        offsets = [0]
        if (n + 1) / 2 <= Self.maximumTaps {
            var k = 1
            while k <= n {
                let w1 = w[k], w2 = k + 1 <= n ? w[k + 1] : 0
                weights.append(GLfloat(w1 + w2))
                offsets.append(GLfloat((Double(k) * w1 + Double(k + 1) * w2) / (w1 + w2)))
                k += 2
            }
            reach = Double(n)
        } else {
            // Too wide: `maximumTaps` taps each side, spaced evenly (linear filtering averages
            // between them), each weighing the Gaussian over its stretch.
            let spacing = Double(n) / Double(Self.maximumTaps)
            var sum = w[0]
            var taps: [Double] = []
            for i in 1...Self.maximumTaps {
                let x = Double(i) * spacing
                let v = exp(-x * x / (2 * sigma * sigma)) * spacing
                taps.append(v)
                sum += 2 * v
                offsets.append(GLfloat(x))
            }
            weights = [GLfloat(w[0] / sum)] + taps.map { GLfloat($0 / sum) }
            reach = Double(n)
        }
    }
}
