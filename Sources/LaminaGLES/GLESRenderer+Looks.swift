import CGLES
import LaminaCore
import LaminaCompositor

/// What the gradient, mask and shadow-path drawing keeps from frame to frame.
struct LooksState {
    /// Where a shadow path's coverage is drawn before it is blurred (output-sized).
    var pathTarget: OffscreenTarget?
    /// The triangles of a shadow path, uploaded per draw.
    var pathVertexArray: GLuint = 0
    var pathVertexBuffer: GLuint = 0
    var pathVertices: [GLfloat] = []
    /// Reused uniform arrays for gradient stops.
    var stopColors = [GLfloat](repeating: 0, count: 4 * Shaders.maximumGradientStops)
    var stopLocations = [GLfloat](repeating: 0, count: Shaders.maximumGradientStops)
}

extension GLESRenderer {
    // MARK: Gradients

    /// Draws a gradient layer's gradient over its rounded bounds.
    func drawGradient(_ c: DrawCommand) {
        guard let g = c.gradient, g.colors.count >= 2, c.opacity > 0, c.bounds.width > 0, c.bounds.height > 0 else { return }
        let program = use(programs.gradient, continuous: c.cornerRadii.curve == .continuous)
        let b = c.bounds
        setQuad(program, c.transform, b.insetBy(-antialiasingPad(c.transform, b)))
        glUniform4f(program.uniforms.rect, GLfloat(b.minX), GLfloat(b.minY), GLfloat(b.width), GLfloat(b.height))
        setRadii(program.uniforms.radii, c.cornerRadii)
        let type: GLint = switch g.type {
        case .axial: 0
        case .radial: 1
        case .conic: 2
        }
        glUniform1i(program.uniforms.gradientType, type)
        glUniform2f(program.uniforms.startPoint, GLfloat(g.start.x), GLfloat(g.start.y))
        glUniform2f(program.uniforms.endPoint, GLfloat(g.end.x), GLfloat(g.end.y))
        // Up to the program's limit the stops go as they are; longer lists are resampled.
        let limit = Shaders.maximumGradientStops
        let count = min(g.colors.count, limit)
        for i in 0..<count {
            let (color, location): (Color, Double)
            if g.colors.count <= limit {
                (color, location) = (g.colors[i], g.locations[i])
            } else {
                location = Double(i) / Double(limit - 1)
                color = Self.sample(g, at: location)
            }
            let a = color.alpha * c.opacity
            looks.stopColors[4 * i] = GLfloat(color.red * a)
            looks.stopColors[4 * i + 1] = GLfloat(color.green * a)
            looks.stopColors[4 * i + 2] = GLfloat(color.blue * a)
            looks.stopColors[4 * i + 3] = GLfloat(a)
            looks.stopLocations[i] = GLfloat(location)
        }
        glUniform1i(program.uniforms.stopCount, GLint(count))
        glUniform4fv(program.uniforms.stopColors, GLsizei(count), looks.stopColors)
        glUniform4fv(program.uniforms.stopLocations, GLsizei((count + 3) / 4), looks.stopLocations)
        glDrawArrays(GLenum(GL_TRIANGLE_STRIP), 0, 4)
    }

    /// The gradient's colour at `t`, interpolated premultiplied (for resampling long lists).
    static func sample(_ g: DrawGradient, at t: Double) -> Color {
        guard let upper = g.locations.firstIndex(where: { $0 >= t }) else { return g.colors[g.colors.count - 1] }
        guard upper > 0 else { return g.colors[0] }
        let a = g.colors[upper - 1], b = g.colors[upper]
        let span = g.locations[upper] - g.locations[upper - 1]
        let f = span > 0 ? (t - g.locations[upper - 1]) / span : 1
        let alpha = a.alpha + (b.alpha - a.alpha) * f
        guard alpha > 0 else { return .clear }
        func channel(_ x: Double, _ y: Double) -> Double { (x * a.alpha + (y * b.alpha - x * a.alpha) * f) / alpha }
        return Color(red: channel(a.red, b.red), green: channel(a.green, b.green), blue: channel(a.blue, b.blue), alpha: alpha)
    }

    // MARK: Masks

    /// Ends the content of the innermost group and opens its mask, one target above it, over
    /// the same box.
    func beginMask(_ index: Int) throws(GLESError) {
        guard let group = frame.groups.last, !group.isMask else { return }
        let depth = frame.groups.count
        if depth == groupTargets.count {
            groupTargets.append(try OffscreenTarget(context: context, width: frame.width, height: frame.height))
        } else if groupTargets[depth].width != frame.width || groupTargets[depth].height != frame.height {
            groupTargets[depth] = try OffscreenTarget(context: context, width: frame.width, height: frame.height)
        }
        // Clips opened inside the group's content have been closed; the mask has its own.
        if frame.clips.count > frame.clipBase { frame.clips.removeSubrange(frame.clipBase...) }
        glBindFramebuffer(GLenum(GL_FRAMEBUFFER), groupTargets[depth].framebuffer)
        scissor(group.box)
        glClearColor(0, 0, 0, 0)
        glClear(GLbitfield(GL_COLOR_BUFFER_BIT))
        frame.groups.append(OpenGroup(command: group.command, box: group.box, clipBase: frame.clipBase, isMask: true))
        frame.clipBase = frame.clips.count
        frame.clipVersion += 1
    }

    /// Closes a mask and its group: the group's pixels times the mask's alpha, with the
    /// group's opacity, into the target below (under the clips in force there).
    func endMask(_ commands: [DrawCommand]) throws(GLESError) {
        guard let mask = frame.groups.popLast() else { return }
        if frame.clips.count > frame.clipBase { frame.clips.removeSubrange(frame.clipBase...) }
        frame.clipBase = mask.clipBase
        guard mask.isMask, let group = frame.groups.popLast() else {
            // A mask without its group: nothing to composite.
            frame.clipVersion += 1
            bindCurrentTarget()
            return
        }
        if frame.clips.count > frame.clipBase { frame.clips.removeSubrange(frame.clipBase...) }
        frame.clipBase = group.clipBase
        frame.clipVersion += 1
        let maskTarget = groupTargets[frame.groups.count + 1]
        let c = commands[group.command]
        // The filters apply to the group's pixels, and the mask to what they make.
        var source = groupTargets[frame.groups.count]
        if let filters = c.filters { source = try applyFilters(filters, to: source, group.box, transform: c.transform) }
        // A masked group the cache keeps composites into its appearance first.
        let capture = try beginCapture(group, commands)
        bindCurrentTarget()
        if let shadow = c.shadow { try drawGroupShadow(source, group.box, c, shadow) }
        if let mode = c.blendMode {
            try drawBlended(source, mask: maskTarget, group.box, opacity: c.opacity, mode)
            endCapture(capture)
            return
        }

        let program = use(programs.maskedComposite)
        glActiveTexture(GLenum(GL_TEXTURE1))
        glBindTexture(GLenum(GL_TEXTURE_2D), maskTarget.texture)
        glActiveTexture(GLenum(GL_TEXTURE0))
        glBindTexture(GLenum(GL_TEXTURE_2D), source.texture)
        setTexelSize(program.texelSize.source, (source.width, source.height))
        setTexelSize(program.texelSize.mask, (maskTarget.width, maskTarget.height))
        setQuad(program, .identity, group.box.rect)
        glUniform1f(program.uniforms.opacity, GLfloat(c.opacity))
        glDrawArrays(GLenum(GL_TRIANGLE_STRIP), 0, 4)
        endCapture(capture)
    }

    // MARK: Shadow paths

    /// `shadowPath`: the path's coverage is drawn into a scratch target (even-odd, by toggling:
    /// every triangle of a fan from one pivot over every edge inverts what it covers), then
    /// blurred and tinted into the current target exactly like a group's pixel shadow. The
    /// layer itself is never drawn offscreen. The coverage is aliased; the blur smooths it.
    func drawPathShadow(_ c: DrawCommand) throws(GLESError) {
        guard let s = c.shadow, s.color.alpha * s.opacity * c.opacity > 0,
              let pivot = c.polygons.first?.first else { return }
        let box = c.pathShadowBox(within: frame.viewport).intersection(frame.viewport).pixelAligned
        guard !box.isEmpty, let shape = DrawCommand.boundingRect(c.polygons) else { return }
        let pathBox = c.transform.displayBox(of: shape, within: frame.viewport).expanded(by: 1)
            .intersection(frame.viewport).pixelAligned
        if looks.pathTarget == nil || looks.pathTarget!.width != frame.width || looks.pathTarget!.height != frame.height {
            looks.pathTarget = try OffscreenTarget(context: context, width: frame.width, height: frame.height)
        }
        if looks.pathVertexArray == 0 {
            glGenVertexArrays(1, &looks.pathVertexArray)
            glBindVertexArray(looks.pathVertexArray)
            glGenBuffers(1, &looks.pathVertexBuffer)
            glBindBuffer(GLenum(GL_ARRAY_BUFFER), looks.pathVertexBuffer)
            glVertexAttribPointer(Shaders.unitVertexLocation, 2, GLenum(GL_FLOAT), GLboolean(GL_FALSE), 0, nil)
            glEnableVertexAttribArray(Shaders.unitVertexLocation)
        }
        looks.pathVertices.removeAll(keepingCapacity: true)
        for polygon in c.polygons {
            for (k, a) in polygon.enumerated() {
                let b = polygon[(k + 1) % polygon.count]
                looks.pathVertices += [GLfloat(pivot.x), GLfloat(pivot.y), GLfloat(a.x), GLfloat(a.y), GLfloat(b.x), GLfloat(b.y)]
            }
        }
        let target = looks.pathTarget!
        glBindFramebuffer(GLenum(GL_FRAMEBUFFER), target.framebuffer)
        let cleared = box.union(pathBox).intersection(frame.viewport)
        scissor(cleared)
        glClearColor(0, 0, 0, 0)
        glClear(GLbitfield(GL_COLOR_BUFFER_BIT))
        // Coverage only: the clips apply when the blurred shadow is drawn.
        let program = use(programs.fill, clipped: false)
        // The vertices are layer points: the unit square's stretch is the identity.
        setQuad(program, c.transform, Rect(x: 0, y: 0, width: 1, height: 1))
        glUniform4f(program.uniforms.fillColor, 1, 1, 1, 1)
        glBlendFunc(GLenum(GL_ONE_MINUS_DST_COLOR), GLenum(GL_ZERO))
        glBindVertexArray(looks.pathVertexArray)
        glBindBuffer(GLenum(GL_ARRAY_BUFFER), looks.pathVertexBuffer)
        looks.pathVertices.withUnsafeBufferPointer { v in
            glBufferData(GLenum(GL_ARRAY_BUFFER), v.count * MemoryLayout<GLfloat>.stride, v.baseAddress, GLenum(GL_STREAM_DRAW))
        }
        glDrawArrays(GLenum(GL_TRIANGLES), 0, GLsizei(looks.pathVertices.count / 2))
        glBindVertexArray(vertexArray)
        glBlendFunc(GLenum(GL_ONE), GLenum(GL_ONE_MINUS_SRC_ALPHA))
        bindCurrentTarget()
        try drawGroupShadow(target, pathBox, c, s)
    }

    /// Deletes what `LooksState` holds. The context must be current.
    func releaseLooks() {
        looks.pathTarget?.release()
        if looks.pathVertexBuffer != 0 { glDeleteBuffers(1, &looks.pathVertexBuffer) }
        if looks.pathVertexArray != 0 { glDeleteVertexArrays(1, &looks.pathVertexArray) }
    }
}
