import CGLES
import LaminaCore
import LaminaCompositor

/// The `masksToBounds` clip stack: every fragment shader of the clipped variants tests the
/// innermost `Shaders.maximumClips` clips of the current group, antialiased, under any transform.
extension GLESRenderer {
    /// Whether a `masksToBounds` clip is in force for what is drawn now.
    var hasActiveClips: Bool { frame.clips.count > frame.clipBase }

    /// Whether one of the clips the shaders test (the innermost in force) has continuous corners.
    var hasContinuousClips: Bool {
        let first = max(frame.clipBase, frame.clips.count - Shaders.maximumClips)
        return first < frame.clips.count && frame.clips[first...].contains { $0.isContinuous }
    }

    func pushClip(_ c: DrawCommand) {
        frame.clips.append(ClipPlane(c))
        frame.clipVersion += 1
    }

    func popClip() {
        guard frame.clips.count > frame.clipBase else { return }
        frame.clips.removeLast()
        frame.clipVersion += 1
    }

    /// Uploads the clips in force (the innermost ones, up to the shader's limit) to `program`.
    func uploadClips<U>(_ program: ShaderProgram<U>) {
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
}

/// A `masksToBounds` clip as the fragment shaders take it.
struct ClipPlane {
    /// The inverse of the clip plane's homography (layer point → display point), column-major
    /// in the first nine lanes: maps a display point into the layer's plane.
    var fromDisplay: SIMD16<Float>
    var rect: SIMD4<Float>
    var radii: SIMD4<Float>
    /// Its corners are continuous: the shaders need their continuous variant.
    var isContinuous: Bool

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
        radii = r.shaderRadii
        isContinuous = r.curve == .continuous
    }
}
