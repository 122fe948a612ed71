import CGLES
import LaminaCore
import LaminaCompositor

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
///
/// This file holds the renderer's state, the frame (damage boxes, occlusion) and its target
/// binding, and the walk over the list; each kind of draw is beside it: GLESRenderer+Shapes
/// (layers, edge bands, the batch), +Clips, +Groups, +Shadows (closed-form and blurred),
/// +Looks (gradients, masks, shadow paths), +Uniforms, and ContentsRendering.swift.
public final class GLESRenderer: Renderer {
    /// The context the renderer's GL objects belong to; it must be current to draw.
    public let context: GLESContext
    /// The GL strings of the context, read once when the renderer was made.
    public let info: GLInfo
    /// The path the renderer takes (ES 3 or ES 2) and what the context lets it use there,
    /// decided when it was made (`GLESCapabilities`).
    public let capabilities: GLESCapabilities
    let programs: RendererPrograms
    var vertexArray: GLuint = 0
    private(set) var vertexBuffer: GLuint = 0
    /// `InstanceExpansion.quadIndices()`: the index buffer of draws that expand instances.
    private(set) var quadIndexBuffer: GLuint = 0
    /// Rectangles in layer coordinates, two triangles each, streamed per draw (edge bands).
    var streamArray: GLuint = 0
    var streamBuffer: GLuint = 0
    var streamVertices: [GLfloat] = []
    var bands = EdgeBands()
    /// The size of the last list drawn: what `readPixels` reads.
    private var drawnSize: (width: Int, height: Int)?
    private let maximumViewport: Int

    // Per-frame state, kept between frames so drawing allocates nothing once warm.
    var frame = FrameState()
    /// Offscreen targets: `groupTargets[d]` holds the group open at nesting depth d.
    var groupTargets: [OffscreenTarget] = []
    /// The scratch targets of a shadow's blur passes.
    var blurTargets: [OffscreenTarget] = []
    /// The scratch target a group's `filters` ping-pong with (GLESRenderer+Filters.swift).
    var filterTarget: OffscreenTarget?
    /// Filter passes drawn since start (a blur counts two).
    public internal(set) var filterPasses = 0
    /// What background filters keep between frames, and their counts (GLESRenderer+Backdrop.swift).
    var backdrops = BackdropState()
    /// Where a backdrop is copied before its filters run (output-sized).
    var backdropSource: OffscreenTarget?
    /// Where a wide backdrop blur runs at a half or a quarter of the resolution (output-sized,
    /// used in its bottom-left part).
    var backdropLow: OffscreenTarget?
    /// Whether filtered backdrops are kept while unchanged; off filters every one again (tests
    /// compare the two).
    public var cachesBackdrops = true
    /// What gradients, masks and path shadows keep between frames (GLESRenderer+Looks.swift).
    var looks = LooksState()
    /// Reused for uniform arrays so uploads allocate nothing.
    var matrix = [GLfloat](repeating: 0, count: 16)
    var clipMatrices = [GLfloat](repeating: 0, count: 9 * Shaders.maximumClips)
    var clipRects = [GLfloat](repeating: 0, count: 4 * Shaders.maximumClips)
    var clipRadii = [GLfloat](repeating: 0, count: 4 * Shaders.maximumClips)
    /// Textures of contents images (client images and server rasters), by source.
    let textures = TextureCache()
    /// How video pictures in dma-buf memory are shown (`Renderer.videoImport`).
    public let videoImport: String
    public var videoImportRefusal: String? { textures.importer?.refusal }
    /// Shadow-casting offscreen groups kept while unchanged (`GroupCache`).
    let groupCache = GroupCache()
    /// Where a group to keep is composited (output-sized), before it is copied into the cache.
    var appearanceTarget: OffscreenTarget?
    /// A copy of what lies behind a blended group (output-sized), where the backdrop is not
    /// read with framebuffer fetch (GLESRenderer+Blend.swift).
    var backdropTarget: OffscreenTarget?
    /// Whether blended groups read their backdrop with framebuffer fetch where the context has
    /// it; off copies it (tests compare the two).
    public var usesFramebufferFetch = true
    /// Whether the context can fetch the framebuffer in a shader (GL_EXT_shader_framebuffer_fetch).
    public var hasFramebufferFetch: Bool { programs.fetchBlend != nil }
    /// Blended groups composited, and backdrops copied for them, since start.
    public internal(set) var blendedComposites = 0
    public internal(set) var backdropCopies = 0
    /// Whether `groupCache` is used; off draws every group again (tests compare the two).
    public var cachesGroups = true
    /// Layers waiting to be drawn in one instanced draw (`ShapeBatch`).
    var batch = ShapeBatch()
    var batchPrograms: (flat: BatchProgram, shaded: BatchProgram, shadedSimilar: BatchProgram, shadedContinuous: BatchProgram)?
    /// Emitter cells' instanced draws (ParticleRendering.swift), made on first use; and how many.
    var particleProgram: ParticleProgram?
    /// The same under `masksToBounds` clips, made on first use.
    var particleClippedProgram: ParticleProgram?
    var particleDraws = 0
    /// The expanded particle and batch vertices, without instancing (`InstanceExpansion`).
    var particleVertices: [GLfloat] = []
    /// Zeros for the particles missing from a draw's last instance (`ParticleProgram.perInstance`).
    let particlePadding = [GLfloat](repeating: 0, count: DrawParticles.stride * ParticleProgram.perInstance)
    var batchVertices: [GLfloat] = []
    /// Whether layers are batched; off draws each with its own calls (tests compare the two).
    public var usesBatching = true
    /// Whether an opaque video frame or client picture (kept bottom row first) drawn one texel
    /// to a pixel, unclipped and outside groups, is copied into an RGBA8 target (it also decides,
    /// when a client picture's texture is made, whether it is kept bottom row first) with `glBlitFramebuffer` rather than drawn (llvmpipe
    /// copies an unflipped, unscissored same-format blit with memcpy: a 720p frame in about
    /// 0.07 ms, against about 4.4 ms for the textured quad). Off for comparison in tests.
    public var usesContentsBlit = true
    /// The software rasteriser `renderer` (GL_RENDERER) names, if it is one: it runs shaders on
    /// the CPU, so it neither imports dma-bufs nor converts YUV (`DMABufImporter.make`, `planarVideo`).
    static func softwareRasterizer(_ renderer: String) -> String? {
        ["llvmpipe", "softpipe", "swrast", "SwiftShader"].first { renderer.contains($0) }
    }

    /// A GPU converts planar YUV in a shader for next to nothing; a software rasteriser runs the
    /// shader on the CPU, where it cost about three times what `videoconvert`'s SIMD code does
    /// (720p30 at 60 fps on llvmpipe: 8.9 against 2.8 ms a frame).
    public var planarVideo: (preferred: Bool, reason: String) {
        if let software = GLESRenderer.softwareRasterizer(info.renderer) {
            return (false, "the renderer is \(software), a software rasteriser (its shader would cost more CPU than videoconvert)")
        }
        return (true, "converted in the renderer's shader")
    }

    /// Apps' buffers in dma-buf memory (`Renderer.dmabufFormats`): the packed 32-bit RGB
    /// layouts a Wayland app draws (ARGB, XRGB, ABGR, XBGR 8888), as EGL imports them; where
    /// this renderer does not import (a software rasteriser), the same layouts in linear
    /// memory, which it maps and copies by the app's damage as it does shared memory.
    public var dmabufFormats: (formats: [DMABufFormat], how: String) {
        let wanted = DRMFourCC.packedRGB
        guard let importer = textures.importer else {
            return (wanted.map { DMABufFormat(fourcc: $0, modifiers: [DRMFourCC.linearModifier]) }, "linear only, mapped and copied (\(videoImport))")
        }
        return (importer.formats(wanted), "imported in place")
    }

    /// The target being drawn is RGBA8 (set by `draw(_:into:damage:)`).
    var targetIsRGBA8 = false
    /// Contents drawn around a rounded clip's corners (`drawAroundCorners`; stats
    /// `contents.clipSplits`), and whether one is being drawn.
    var clippedSplits = 0
    var drawingAroundCorners = false
    /// Whether a square clip on whole pixels outside any group is a scissor box rather than
    /// the shaders' clip stack (`pushClip`); off draws every clip through the shaders (tests).
    var scissorsSquareClips = true
    /// Clips taken as scissor boxes since start (stats `clips.scissored`).
    var scissoredClips = 0
    /// Frames copied by the blit (stats `contents.blits`).
    var contentsBlits = 0
    /// Instanced batch draws made, for benchmarks.
    public internal(set) var batchDraws = 0
    /// Batches whose shaded cells were drawn by the similarity program (`batchShadedSimilar`).
    public internal(set) var similarBatchDraws = 0
    /// Whether draws hidden by an opaque layer drawn later are skipped (`Occlusion`); tests
    /// compare with it off.
    public var occlusionEnabled = true
    /// Draws and groups skipped because an opaque layer drawn later hid them, since start.
    public internal(set) var occludedDraws = 0
    /// Damage passes whose clear was skipped, an opaque layer covering their box (`occlusion.clearsSkipped`).
    public internal(set) var skippedClears = 0

    /// Whether layers are split into flat cells and antialiased edge bands (`EdgeBands`).
    /// On by default; off draws every layer with the distance-field shader over its whole
    /// quad, which must give the same pixels (tests compare the two).
    public var usesEdgeBands = true

    /// Compiles the shader programs and uploads the unit square. `context` must be current.
    public init(context: GLESContext) throws(GLESError) {
        guard context.isCurrent else { throw .contextNotCurrent }
        self.context = context
        info = context.glInfo()
        capabilities = context.capabilities()
        if let missing = capabilities.missing { throw .unsupportedContext("the \(capabilities.path) path needs \(missing)") }
        let dmabuf = DMABufImporter.make(display: context.display, renderer: info.renderer)
        textures.importer = dmabuf.importer
        textures.unpackRowLength = capabilities.unpackRowLength
        videoImport = dmabuf.importer == nil
            ? "copied: \(dmabuf.reason)" : "imported in place (\(dmabuf.reason)) where the driver accepts the buffer"
        programs = try RendererPrograms(framebufferFetch: capabilities.framebufferFetch)
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
        let indices = InstanceExpansion.quadIndices()
        glGenBuffers(1, &quadIndexBuffer)
        glBindBuffer(GLenum(GL_ELEMENT_ARRAY_BUFFER), quadIndexBuffer)
        glBufferData(GLenum(GL_ELEMENT_ARRAY_BUFFER), indices.count * MemoryLayout<UInt16>.stride, indices, GLenum(GL_STATIC_DRAW))
        glBindBuffer(GLenum(GL_ELEMENT_ARRAY_BUFFER), 0)
        textures.yuv = try YUVConverter(vertexArray: vertexArray, capabilities: capabilities)
        // Instanced draws, or without instancing (the ES 2 path) expanded triangles.
        let instanced = capabilities.instancedArrays
        batchPrograms = (try BatchProgram(name: "flat batch", fragment: Shaders.batchFlat, unitSquare: vertexBuffer, quadIndices: quadIndexBuffer, instanced: instanced),
                         try BatchProgram(name: "shape batch", fragment: Shaders.batchShaded(continuous: false), unitSquare: vertexBuffer,
                                          quadIndices: quadIndexBuffer, instanced: instanced),
                         try BatchProgram(name: "similar shape batch", vertex: Shaders.similarVertex,
                                          fragment: Shaders.batchShadedSimilar, unitSquare: vertexBuffer, quadIndices: quadIndexBuffer, instanced: instanced),
                         try BatchProgram(name: "continuous shape batch", fragment: Shaders.batchShaded(continuous: true),
                                          unitSquare: vertexBuffer, quadIndices: quadIndexBuffer, instanced: instanced))
        frame.uploadedClipVersion = [Int](repeating: -1, count: programs.all.count)
        frame.uploadedFrame = [Int](repeating: -1, count: programs.all.count)
        try GLESError.check("creating the unit-square vertex array")
    }

    /// "OpenGL ES 3.2 Mesa 22.3.6 on llvmpipe (LLVM 15.0.6, 256 bits), ES 3 path (context ES 3.2)"
    /// (`GLESCapabilities`): what laminad's start-up line names.
    public var name: String { "\(info.description), \(capabilities.path) path (\(capabilities.description.drop { $0 != "(" }.dropFirst().dropLast()))" }

    /// How many offscreen targets the renderer holds (groups and blur scratch), for stats.
    public var offscreenTargetCount: Int {
        groupTargets.count + blurTargets.count + (looks.pathTarget == nil ? 0 : 1) + (backdropTarget == nil ? 0 : 1)
    }

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
        targetIsRGBA8 = t.isRGBA8
        defer { targetIsRGBA8 = false; textures.opaquePicturesBottomUp = false }
        // Opaque client pictures are kept bottom row first only where they can be copied into
        // the target; elsewhere (KMS's XRGB surfaces) reversing their rows would be a copy for
        // nothing on every update of an app's buffer.
        textures.opaquePicturesBottomUp = t.isRGBA8 && usesContentsBlit && capabilities.framebufferBlit
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
        // A backdrop reads what was drawn before it over its whole read box: that must all be
        // drawn in the same pass (the damage boxes that touch it merged with it, after
        // `BackdropRegions.grow` grew the damage over it), and nothing behind it there may be
        // skipped as hidden by what is drawn after it. Damage away from every backdrop keeps
        // boxes of its own.
        let hasBackdrops = commands.contains { $0.kind == .backdrop }
        backdrops.drawNumber += 1
        backdrops.pixelsThisFrame = 0
        if hasBackdrops { frame.extents.measure(commands, within: viewport) }
        // What a backdrop reads is not hidden by a cover drawn after it (`Occlusion.barriers`).
        let reads = hasBackdrops ? commands.indices.filter { commands[$0].kind == .backdrop }
            .map { (index: $0, box: BackdropRegions.readBox(commands[$0], box: frame.extents.boxes[$0], within: viewport)) } : []
        // Contents hide what is behind only once their texture exists: one that cannot be made
        // draws nothing, and what it would have hidden must be drawn (and cleared).
        frame.occlusion.measure(occlusionEnabled ? commands : [], reads: reads) { c in
            c.contents.map { textures.isResident($0.source) } ?? true
        }
        if !hasBackdrops, boxes != nil || !frame.occlusion.covers.isEmpty || commands.contains(where: { $0.kind == .beginGroup }) {
            frame.extents.measure(commands, within: viewport)
        }
        if hasBackdrops, let b = boxes, b.count > 1 { boxes = BackdropRegions.passes(b, reads: reads.map(\.box)) }
        for box in boxes ?? [viewport] {
            frame.begin(width: list.width, height: list.height, output: GLuint(bound))
            frame.background = list.background
            frame.damage = boxes == nil ? nil : box
            try drawPass(list)
        }
        if boxes?.isEmpty == true { glBindFramebuffer(GLenum(GL_FRAMEBUFFER), GLuint(bound)) }
        textures.endFrame()
        groupCache.endFrame(frame.number)
        backdrops.cache.endDraw(backdrops.drawNumber)
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
        // A damage box an opaque layer covers needs no clear: the layer paints every pixel of
        // it. (Only a box less than the frame: a scissored clear is a drawn quad on some
        // drivers, llvmpipe among them, where a whole-frame clear is nearly free, and tilers
        // want the whole-frame clear to skip loading the old frame.)
        if let damage = frame.damage, damage != frame.viewport, frame.occlusion.hides(damage, drawnAt: -1, within: damage) {
            skippedClears += 1
        } else {
            let background = list.background.premultiplied
            glClearColor(GLfloat(background.0), GLfloat(background.1), GLfloat(background.2), GLfloat(background.3))
            glClear(GLbitfield(GL_COLOR_BUFFER_BIT))
        }

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
                case .layer, .shadow, .contents, .gradient, .pathShadow, .particles, .backdrop:
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
            case .particles: drawParticles(command)
            case .backdrop: if try drawBackdrop(index, command, commands) { resumeAt = index + 2 }
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

    // MARK: Targets

    /// Binds the target of the innermost open group, or the output, with its scissor.
    func bindCurrentTarget() {
        if let open = frame.groups.last {
            glBindFramebuffer(GLenum(GL_FRAMEBUFFER), groupTargets[frame.groups.count - 1].framebuffer)
            scissor(open.box)
        } else {
            glBindFramebuffer(GLenum(GL_FRAMEBUFFER), frame.output)
            if let limit = frame.outputLimit { scissor(limit) } else { glDisable(GLenum(GL_SCISSOR_TEST)) }
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

    // MARK: Readback

    /// Reads back the last frame drawn from the bound framebuffer, top row first.
    /// The corresponding C function is `glReadPixels`.
    public func readPixels() throws(GLESError) -> Bitmap {
        guard context.isCurrent else { throw .contextNotCurrent }
        guard let (width, height) = drawnSize else { throw .nothingDrawn }
        return try GLESFramebuffer.readBound(width: width, height: height, maximum: maximumViewport)
    }

    /// `rows` (each `rowBytes` long) in the opposite order: GL's bottom-first rows top first.
    static func flipped(_ rows: [UInt8], rowBytes: Int) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(rows.count)
        for row in stride(from: rows.count / rowBytes - 1, through: 0, by: -1) {
            out.append(contentsOf: rows[row * rowBytes ..< (row + 1) * rowBytes])
        }
        return out
    }

    deinit {
        guard context.makeCurrentForCleanup() else { return }
        groupTargets.forEach { $0.release() }
        blurTargets.forEach { $0.release() }
        groupCache.releaseAll()
        appearanceTarget?.release()
        backdropTarget?.release()
        backdropSource?.release()
        backdropLow?.release()
        backdrops.cache.releaseAll()
        releaseLooks()
        glDeleteBuffers(1, &vertexBuffer)
        glDeleteBuffers(1, &quadIndexBuffer)
        glDeleteVertexArrays(1, &vertexArray)
        glDeleteBuffers(1, &streamBuffer)
        glDeleteVertexArrays(1, &streamArray)
        programs.delete()
        textures.yuv?.delete()
        batchPrograms?.flat.delete()
        batchPrograms?.shaded.delete()
        batchPrograms?.shadedSimilar.delete()
        batchPrograms?.shadedContinuous.delete()
        particleProgram?.delete()
        particleClippedProgram?.delete()
    }
}

/// What the renderer knows of the frame being drawn: its size and output, the clip stack,
/// the open groups, and what each program was last given.
struct FrameState {
    var number = 0
    var width = 0
    var height = 0
    /// The framebuffer bound when `draw` began: where the frame goes.
    var output: GLuint = 0
    var currentProgram: GLuint = 0
    var clips: [ClipPlane] = []
    /// The first clip of the innermost open group: clips below it apply when it is composited.
    /// Outside groups, the clips below it are the scissored ones (`scissorClip`).
    var clipBase = 0
    /// Where the scissored clips in force meet (display pixels): a square clip on whole pixels
    /// pushed outside any group while no shader clip is in force is this box, not a shader
    /// clip (`pushClip`). Everything drawn into the output is scissored to it, as to `damage`.
    var scissorClip: PixelBox?
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
    /// The list's background colour (a backdrop's cache key).
    var background = Color.clear

    var viewport: PixelBox { PixelBox(x0: 0, y0: 0, x1: Double(width), y1: Double(height)) }

    /// What draws into the output are scissored to: the damage box and the scissored clips;
    /// nil when neither is in force.
    var outputLimit: PixelBox? {
        switch (damage, scissorClip) {
        case (nil, nil): nil
        case (let d?, nil): d
        case (nil, let c?): c.intersection(viewport)
        case (let d?, let c?): d.intersection(c)
        }
    }

    mutating func begin(width: Int, height: Int, output: GLuint) {
        number += 1
        self.width = width
        self.height = height
        self.output = output
        currentProgram = 0
        clips.removeAll(keepingCapacity: true)
        clipBase = 0
        scissorClip = nil
        clipVersion += 1
        groups.removeAll(keepingCapacity: true)
    }
}
