import CGLES
import LaminaCore
import LaminaCompositor

/// Making a program current and setting what every draw sets: the transform, the quad,
/// corner radii and premultiplied colours.
extension GLESRenderer {
    /// Makes the program of `variants` current, with the clip stack when clips are in force (or
    /// as `clipped` says), and with continuous corners where the draw's own corners are
    /// continuous (`continuous`) or a clip in force is; brings its per-frame and clip uniforms
    /// up to date and returns it.
    @discardableResult
    func use<U>(_ variants: ProgramVariants<U>, clipped: Bool? = nil, continuous: Bool = false) -> ShaderProgram<U> {
        let withClips = clipped ?? (frame.clips.count > frame.clipBase)
        let program = continuous || withClips && hasContinuousClips ? variants.continuous : variants[clipped: withClips]
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
        } else if !withClips, program.slot == variants.continuous.slot {
            // The continuous variant has the clip stack; this draw takes none.
            glUniform1i(program.clipCount, 0)
            frame.uploadedClipVersion[index] = -1
        }
        return program
    }

    /// Sets the transform and the rectangle the unit square covers.
    func setQuad<U>(_ program: ShaderProgram<U>, _ t: Transform3D, _ r: Rect) {
        upload(t, to: program.layerToDisplay)
        glUniform4f(program.quad, GLfloat(r.minX), GLfloat(r.minY), GLfloat(r.width), GLfloat(r.height))
    }

    /// Uploads corner radii as the shaders take them (a continuous corner's negated).
    func setRadii(_ location: GLint, _ r: CornerRadii) {
        let k = r.shaderRadii
        glUniform4f(location, k.x, k.y, k.z, k.w)
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

    /// Sets one over a texture's size where a program reads it by texel on the ES 2 path
    /// (`ShaderProgram.texelSize`); a location of -1 (the ES 3 path) sets nothing.
    func setTexelSize(_ location: GLint, _ size: (width: Int, height: Int)) {
        guard location >= 0, size.width > 0, size.height > 0 else { return }
        glUniform2f(location, GLfloat(1 / Double(size.width)), GLfloat(1 / Double(size.height)))
    }
}
