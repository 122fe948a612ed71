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

    /// A square clip on whole pixels (no corners, not turned) is exactly a scissor box: outside
    /// any group, and with no shader clip in force, it is taken as one (`frame.scissorClip`),
    /// kept below `clipBase` so the shaders' clip stack leaves it out. A scrolling list that
    /// masks to its bounds is such a clip: its rows cut by the edges are then drawn with the
    /// programs without the clip stack (on llvmpipe the stack's test at each pixel of two cut
    /// 1,248-point rows cost about a quarter of the frame).
    func pushClip(_ c: DrawCommand) {
        var plane = ClipPlane(c)
        if scissorsSquareClips, frame.groups.isEmpty, frame.clips.count == frame.clipBase,
           let box = plane.displayBox, plane.cornerReach == 0 {
            plane.isScissor = true
            frame.clips.append(plane)
            frame.clipBase = frame.clips.count
            frame.scissorClip = frame.scissorClip.map { $0.intersection(box) } ?? box
            scissoredClips += 1
            bindCurrentTarget()
            return
        }
        frame.clips.append(plane)
        frame.clipVersion += 1
    }

    /// Draws `draw` (a contents command) inside the one clip
    /// in force in two parts when that clip is a display-aligned rounded rectangle: its inside
    /// away from the corners without the clip (no coverage to compute per pixel; opaque
    /// contents also skip blending: an app window or photo in a rounded layer is mostly that),
    /// then the four corner squares through the
    /// clipped program. Each part is scissored to its boxes within the damage. Returns false
    /// when the clip is not such a rectangle (the caller draws the whole as usual).
    func drawAroundCorners(_ draw: () -> Void) -> Bool {
        guard frame.groups.isEmpty, frame.clips.count - frame.clipBase == 1, let clip = frame.clips.last,
              let (inside, corners) = clip.cornerSplit else { return false }
        let limit = (frame.outputLimit ?? frame.viewport).intersection(frame.viewport)
        func drawScissored(_ boxes: [PixelBox]) {
            for part in boxes {
                let b = part.intersection(limit)
                guard !b.isEmpty else { continue }
                scissor(b)
                draw()
            }
        }
        defer { bindCurrentTarget() }
        // The inside with the clip set aside (the clip stack's base above it), then the corners.
        let base = frame.clipBase
        frame.clipBase = frame.clips.count
        frame.clipVersion += 1
        drawScissored(inside)
        frame.clipBase = base
        frame.clipVersion += 1
        drawScissored(corners)
        clippedSplits += 1
        return true
    }

    func popClip() {
        if frame.groups.isEmpty, frame.clips.count == frame.clipBase, frame.clips.last?.isScissor == true {
            frame.clips.removeLast()
            frame.clipBase = frame.clips.count
            frame.scissorClip = frame.clips.reduce(nil) { box, clip in
                guard let b = clip.displayBox else { return box }
                return box.map { $0.intersection(b) } ?? b
            }
            bindCurrentTarget()
            return
        }
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
    /// Taken as a scissor box (`frame.scissorClip`), not tested by the shaders.
    var isScissor = false
    /// Where the clip's plane is the display's, moved and scaled only, with its edges on whole
    /// pixels: its box in display pixels and how far its corners' curves reach (pixels), so what
    /// lies inside the box away from the corners is known to be uncut. Nil otherwise.
    var displayBox: PixelBox?
    var cornerReach = 0.0

    /// For a clip on whole pixels (`displayBox`), its box in the parts the clip leaves whole
    /// (`inside`: a cross of three boxes) and the four corner squares its curves cut (a
    /// corner's reach and a pixel of antialiasing); nil otherwise, or when the corners meet.
    var cornerSplit: (inside: [PixelBox], corners: [PixelBox])? {
        guard let box = displayBox else { return nil }
        let r = (cornerReach + 1).rounded(.up)
        guard box.x1 - box.x0 > 2 * r, box.y1 - box.y0 > 2 * r else { return nil }
        return ([PixelBox(x0: box.x0, y0: box.y0 + r, x1: box.x1, y1: box.y1 - r),
                 PixelBox(x0: box.x0 + r, y0: box.y0, x1: box.x1 - r, y1: box.y0 + r),
                 PixelBox(x0: box.x0 + r, y0: box.y1 - r, x1: box.x1 - r, y1: box.y1)],
                [PixelBox(x0: box.x0, y0: box.y0, x1: box.x0 + r, y1: box.y0 + r),
                 PixelBox(x0: box.x1 - r, y0: box.y0, x1: box.x1, y1: box.y0 + r),
                 PixelBox(x0: box.x0, y0: box.y1 - r, x1: box.x0 + r, y1: box.y1),
                 PixelBox(x0: box.x1 - r, y0: box.y1 - r, x1: box.x1, y1: box.y1)])
    }

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
        if t.m12 == 0, t.m13 == 0, t.m14 == 0, t.m21 == 0, t.m23 == 0, t.m24 == 0, t.m44 == 1, t.m11 > 0, t.m22 > 0 {
            let x0 = b.minX * t.m11 + t.m41, x1 = b.maxX * t.m11 + t.m41
            let y0 = b.minY * t.m22 + t.m42, y1 = b.maxY * t.m22 + t.m42
            if [x0, x1, y0, y1].allSatisfy({ $0.isFinite && abs($0 - $0.rounded()) < 1e-6 }) {
                displayBox = PixelBox(x0: x0.rounded(), y0: y0.rounded(), x1: x1.rounded(), y1: y1.rounded())
                cornerReach = r.reaches(within: b.size).largest * max(t.m11, t.m22)
            }
        }
    }
}
