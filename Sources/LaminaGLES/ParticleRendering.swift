import CGLES
import LaminaCore
import LaminaCompositor

extension Shaders {
    /// What both particle vertex shaders share: `placeParticle` puts a unit-square corner of one
    /// particle on the display, sized, turned (y down: positive angles turn clockwise on screen,
    /// as layers do) and carried by the emitter layer's transform, and passes its texture
    /// coordinate and colour (times the layer's opacity) on.
    static let particlePlacement = """
        uniform mat4 layerToDisplay;
        uniform vec2 pointsToClip;
        uniform vec2 size;                        // a particle at scale 1, layer units
        uniform vec4 sourceRect;                  // u0, v0, u1, v1
        uniform float opacity;                    // the layer's
        out vec2 uv;
        flat out vec4 color;
        void placeParticle(vec2 unitVertex, vec4 placeIn, float rotationIn, vec4 colorIn) {
            vec2 corner = (unitVertex - 0.5) * size * placeIn.w;
            float c = cos(rotationIn), s = sin(rotationIn);
            vec2 local = placeIn.xy + vec2(corner.x * c - corner.y * s, corner.x * s + corner.y * c);
            vec4 d = layerToDisplay * vec4(local, placeIn.z, 1.0);
            gl_Position = vec4(d.x * pointsToClip.x - d.w, d.w - d.y * pointsToClip.y, 0.0, d.w);
            uv = mix(sourceRect.xy, sourceRect.zw, unitVertex);
            color = colorIn * opacity;
        }

        """

    /// The expanded particle program's vertex shader (the ES 2 path): each vertex carries its
    /// corner of the unit square and its particle's values.
    static let particleVertex = """
        #version 300 es
        layout(location = 0) in vec2 unitVertex;
        layout(location = 1) in vec4 placeIn;     // x, y, z, scale
        layout(location = 2) in float rotationIn; // radians
        layout(location = 3) in vec4 colorIn;     // premultiplied

        """ + particlePlacement + """
        void main() { placeParticle(unitVertex, placeIn, rotationIn, colorIn); }
        """

    /// The instanced particle program's vertex shader: each instance carries
    /// `ParticleProgram.perInstance` particles (their values side by side, as `DrawParticles`
    /// lists them), and its vertices are that many unit squares, each corner knowing which of
    /// them it belongs to. Fewer, larger instances: llvmpipe runs its vertex pipeline once per
    /// instance, with an allocation each time.
    static let particleVertexGrouped = """
        #version 300 es
        layout(location = 0) in vec3 corner;      // the unit square's corner; which particle
        layout(location = 1) in vec4 place0;      // x, y, z, scale
        layout(location = 2) in vec4 place1;
        layout(location = 3) in vec4 place2;
        layout(location = 4) in vec4 place3;
        layout(location = 5) in float rotation0;  // radians
        layout(location = 6) in float rotation1;
        layout(location = 7) in float rotation2;
        layout(location = 8) in float rotation3;
        layout(location = 9) in vec4 color0;      // premultiplied
        layout(location = 10) in vec4 color1;
        layout(location = 11) in vec4 color2;
        layout(location = 12) in vec4 color3;

        """ + particlePlacement + """
        void main() {
            int k = int(corner.z);
            placeParticle(corner.xy, k == 0 ? place0 : k == 1 ? place1 : k == 2 ? place2 : place3,
                          k == 0 ? rotation0 : k == 1 ? rotation1 : k == 2 ? rotation2 : rotation3,
                          k == 0 ? color0 : k == 1 ? color1 : k == 2 ? color2 : color3);
        }
        """

    /// The image times the particle's colour and the layer's opacity (both in `color`),
    /// premultiplied.
    static let particleFragment = """
        #version 300 es
        precision highp float;
        in vec2 uv;
        flat in vec4 color;
        uniform sampler2D image;
        out vec4 fragColor;
        void main() {
            fragColor = texture(image, uv) * color;
        }
        """

    /// The variant under `masksToBounds` clips: the common clip stack (continuous corners
    /// included) multiplies each particle's pixels, as it does every layer's.
    static let particleFragmentClipped = fragmentCommon.insertingAfterVersion("#define HAS_CLIPS 1\n#define CONTINUOUS_CORNERS 1") + """
        in vec2 uv;
        flat in vec4 color;
        uniform sampler2D image;
        void main() {
            fragColor = texture(image, uv) * color * clipCoverage();
        }
        """
}

/// The particle program and its vertex array: the unit square, and an instance buffer of
/// `DrawParticles.stride` floats per particle.
struct ParticleProgram {
    let program: GLuint
    let layerToDisplay: GLint
    let pointsToClip: GLint
    let size: GLint
    let sourceRect: GLint
    let opacity: GLint
    /// The clip stack's uniforms (-1 in the unclipped variant).
    let displayHeight, clipCount, clipFromDisplay, clipRect, clipRadii: GLint
    var vertexArray: GLuint = 0
    var instanceBuffer: GLuint = 0
    /// The instanced form's corners (`perInstance` unit squares, x, y and which particle).
    var cornerBuffer: GLuint = 0
    /// Whether the particles are instances of `perInstance` unit squares (ES 3), or, without
    /// instancing (the ES 2 path), four indexed corners each in `instanceBuffer`, every vertex
    /// carrying its corner of the unit square and its particle's values (`expandedStride` floats).
    let instanced: Bool
    /// The most particles drawn in one call (what the expanded form's 16-bit indices reach);
    /// a longer list is drawn in parts.
    static let maximumInstances = InstanceExpansion.maximumInstances
    /// Particles an instance of the instanced form carries (`Shaders.particleVertexGrouped`).
    static let perInstance = 4
    /// Floats a vertex of the expanded form: the unit-square corner, then the particle's.
    static let expandedStride = InstanceExpansion.vertexStride(DrawParticles.stride)

    init(quadIndices: GLuint, clipped: Bool = false, instanced: Bool = true) throws(GLESError) {
        self.instanced = instanced
        program = try Shaders.link(name: clipped ? "particles (clipped)" : "particles",
                                   vertex: instanced ? Shaders.particleVertexGrouped : Shaders.particleVertex,
                                   fragment: clipped ? Shaders.particleFragmentClipped : Shaders.particleFragment)
        displayHeight = glGetUniformLocation(program, "displayHeight")
        clipCount = glGetUniformLocation(program, "clipCount")
        clipFromDisplay = glGetUniformLocation(program, "clipFromDisplay")
        clipRect = glGetUniformLocation(program, "clipRect")
        clipRadii = glGetUniformLocation(program, "clipRadii")
        layerToDisplay = glGetUniformLocation(program, "layerToDisplay")
        pointsToClip = glGetUniformLocation(program, "pointsToClip")
        size = glGetUniformLocation(program, "size")
        sourceRect = glGetUniformLocation(program, "sourceRect")
        opacity = glGetUniformLocation(program, "opacity")
        glUseProgram(program)
        glUniform1i(glGetUniformLocation(program, "image"), 0)
        glGenVertexArrays(1, &vertexArray)
        glBindVertexArray(vertexArray)
        glGenBuffers(1, &instanceBuffer)
        if instanced {
            // `perInstance` unit squares, drawn as the first quads of `quadIndices`.
            var corners: [GLfloat] = []
            for k in 0..<Self.perInstance {
                for (x, y) in InstanceExpansion.corners { corners += [x, y, GLfloat(k)] }
            }
            glGenBuffers(1, &cornerBuffer)
            glBindBuffer(GLenum(GL_ARRAY_BUFFER), cornerBuffer)
            glBufferData(GLenum(GL_ARRAY_BUFFER), corners.count * MemoryLayout<GLfloat>.stride, corners, GLenum(GL_STATIC_DRAW))
            glVertexAttribPointer(0, 3, GLenum(GL_FLOAT), GLboolean(GL_FALSE), 0, nil)
            glEnableVertexAttribArray(0)
            glBindBuffer(GLenum(GL_ELEMENT_ARRAY_BUFFER), quadIndices)
            glBindBuffer(GLenum(GL_ARRAY_BUFFER), instanceBuffer)
            let float = MemoryLayout<GLfloat>.stride, stride = GLsizei(DrawParticles.stride * Self.perInstance * float)
            for k in 0..<Self.perInstance {
                let first = k * DrawParticles.stride
                for (location, size, offset) in [(1 + k, 4, 0), (5 + k, 1, 4), (9 + k, 4, 5)] {
                    glVertexAttribPointer(GLuint(location), GLint(size), GLenum(GL_FLOAT), GLboolean(GL_FALSE), stride,
                                          UnsafeRawPointer(bitPattern: (first + offset) * float))
                    glEnableVertexAttribArray(GLuint(location))
                    glVertexAttribDivisor(GLuint(location), 1)
                }
            }
        } else {
            InstanceExpansion.setUpAttributes([(1, 4, 0), (2, 1, 4), (3, 4, 5)], stride: DrawParticles.stride,
                                              instanced: false, unitSquare: 0 /* instanced only */, instanceBuffer: instanceBuffer,
                                              quadIndices: quadIndices)
        }
        glBindVertexArray(0)
        try GLESError.check("creating the particle vertex array")
    }

    mutating func delete() {
        glDeleteBuffers(1, &instanceBuffer)
        if cornerBuffer != 0 { glDeleteBuffers(1, &cornerBuffer) }
        glDeleteVertexArrays(1, &vertexArray)
        glDeleteProgram(program)
    }
}

extension GLESRenderer {
    /// Draws a cell's particles in one instanced draw (per `maximumInstances`), added to what
    /// lies below with `additive`, clipped by the `masksToBounds` clips in force.
    func drawParticles(_ c: DrawCommand) {
        guard let d = c.particles, c.opacity > 0, d.count > 0 else { return }
        let source = d.source
        guard !source.isDestroyed, source.width > 0, source.height > 0, !textures.hasFailed(source) else { return }
        let clipped = hasActiveClips
        if clipped, particleClippedProgram == nil {
            particleClippedProgram = try? ParticleProgram(quadIndices: quadIndexBuffer, clipped: true, instanced: capabilities.instancedArrays)
        } else if !clipped, particleProgram == nil {
            particleProgram = try? ParticleProgram(quadIndices: quadIndexBuffer, instanced: capabilities.instancedArrays)
        }
        guard let p = clipped ? particleClippedProgram : particleProgram else { return }
        glActiveTexture(GLenum(GL_TEXTURE0))
        let bottomUp: Bool
        do { bottomUp = try textures.bind(source, mipmaps: d.minificationFilter == .trilinear) } catch { return }
        func filter(_ f: ContentsFilter, minifying: Bool) -> GLint {
            switch f {
            case .nearest: GL_NEAREST
            case .linear: GL_LINEAR
            case .trilinear: minifying ? GL_LINEAR_MIPMAP_LINEAR : GL_LINEAR
            }
        }
        glTexParameteri(GLenum(GL_TEXTURE_2D), GLenum(GL_TEXTURE_MIN_FILTER), filter(d.minificationFilter, minifying: true))
        glTexParameteri(GLenum(GL_TEXTURE_2D), GLenum(GL_TEXTURE_MAG_FILTER), filter(d.magnificationFilter, minifying: false))
        glUseProgram(p.program)
        frame.currentProgram = p.program
        upload(c.transform, to: p.layerToDisplay)
        glUniform2f(p.pointsToClip, GLfloat(2 / Double(frame.width)), GLfloat(2 / Double(frame.height)))
        glUniform2f(p.size, GLfloat(d.size.width), GLfloat(d.size.height))
        let r = d.sourceRect
        let v0 = bottomUp ? 1 - r.minY : r.minY, v1 = bottomUp ? 1 - r.maxY : r.maxY
        glUniform4f(p.sourceRect, GLfloat(r.minX), GLfloat(v0), GLfloat(r.maxX), GLfloat(v1))
        glUniform1f(p.opacity, GLfloat(c.opacity))
        if clipped { uploadParticleClips(p) }
        if d.additive { glBlendFunc(GLenum(GL_ONE), GLenum(GL_ONE)) }
        glBindVertexArray(p.vertexArray)
        glBindBuffer(GLenum(GL_ARRAY_BUFFER), p.instanceBuffer)
        let stride = DrawParticles.stride
        let total = d.count
        var start = 0
        if !p.instanced {
            drawExpanded(d.instances, count: total)
        } else {
        // `perInstance` particles an instance; the last one's missing particles are zeros (no
        // size, no colour: nothing drawn).
        let group = ParticleProgram.perInstance, float = MemoryLayout<GLfloat>.stride
        d.instances.withUnsafeBufferPointer { all in
            while start < total {
                let n = min(ParticleProgram.maximumInstances, total - start)
                let instances = (n + group - 1) / group
                let bytes = n * stride * float, padded = instances * group * stride * float
                glBufferData(GLenum(GL_ARRAY_BUFFER), padded, nil, GLenum(GL_STREAM_DRAW))
                glBufferSubData(GLenum(GL_ARRAY_BUFFER), 0, bytes, all.baseAddress! + start * stride)
                if padded > bytes {
                    particlePadding.withUnsafeBufferPointer { zeros in
                        glBufferSubData(GLenum(GL_ARRAY_BUFFER), bytes, padded - bytes, zeros.baseAddress)
                    }
                }
                glDrawElementsInstanced(GLenum(GL_TRIANGLES), GLsizei(6 * group), GLenum(GL_UNSIGNED_SHORT), nil, GLsizei(instances))
                start += n
            }
        }
        }
        if d.additive { glBlendFunc(GLenum(GL_ONE), GLenum(GL_ONE_MINUS_SRC_ALPHA)) }
        glBindVertexArray(vertexArray)
        particleDraws += 1
    }
}

extension GLESRenderer {
    /// Without instancing: every particle as two triangles (`InstanceExpansion`), in parts of
    /// `maximumInstances`, one draw each. The particle program's buffer is bound.
    private func drawExpanded(_ instances: [GLfloat], count total: Int) {
        var start = 0
        instances.withUnsafeBufferPointer { all in
            while start < total {
                let n = min(ParticleProgram.maximumInstances, total - start)
                InstanceExpansion.draw(all, start: start, count: n, stride: DrawParticles.stride, scratch: &particleVertices)
                start += n
            }
        }
    }

    /// The clips in force (the innermost, up to the shader's limit) for the clipped particle
    /// program, as `uploadClips` gives them to the layer programs.
    func uploadParticleClips(_ p: ParticleProgram) {
        glUniform1f(p.displayHeight, GLfloat(frame.height))
        let count = min(frame.clips.count - frame.clipBase, Shaders.maximumClips)
        glUniform1i(p.clipCount, GLint(count))
        guard count > 0 else { return }
        let first = frame.clips.count - count
        for k in 0..<count {
            let clip = frame.clips[first + k]
            for j in 0..<9 { clipMatrices[k * 9 + j] = clip.fromDisplay[j] }
            for j in 0..<4 { clipRects[k * 4 + j] = clip.rect[j]; clipRadii[k * 4 + j] = clip.radii[j] }
        }
        glUniformMatrix3fv(p.clipFromDisplay, GLsizei(count), GLboolean(GL_FALSE), clipMatrices)
        glUniform4fv(p.clipRect, GLsizei(count), clipRects)
        glUniform4fv(p.clipRadii, GLsizei(count), clipRadii)
    }
}
