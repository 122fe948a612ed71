import CGLES
import Glibc
import LaminaCore
import LaminaCompositor

/// Shadows: a layer's own in closed form (`Shaders.shadow`, erf), and the shadow of a group's
/// pixels (or a shadow path's coverage) by a separable Gaussian blur in scratch targets.
extension GLESRenderer {
    /// Draws a `shadow` command: the shadow of the layer's rounded bounds, in closed form.
    func drawShapeShadow(_ c: DrawCommand) {
        guard let s = c.shadow, s.color.alpha * s.opacity * c.opacity > 0, c.bounds.width > 0, c.bounds.height > 0 else { return }
        let program = use(programs.shadow, continuous: c.cornerRadii.curve == .continuous)
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

    /// The shadow of a group's pixels: their alpha blurred (separable Gaussian) in scratch
    /// targets, then drawn into the current target at the offset, in the shadow colour.
    ///
    /// Wide blurs are done at a reduced resolution (`shadowFactor`: a half from σ 3 display
    /// pixels, a quarter from 8, an eighth from 16), as backdrops are: the group's alpha is
    /// box-averaged down (one bilinear read per 2×2 block, or `Shaders.downsample4` per 4×4),
    /// blurred across and down there with σ reduced by the variance the averaging and the
    /// bilinear way back up add (`reducedSigma`), and read back up. There the blur has σ of
    /// 1.4 to 4 texels whatever the radius (up to σ 32), drawn by a program that loops its
    /// exact count of taps (`RendererPrograms.narrowBlurs`); a 24-point shadow costs about what
    /// a 6-point one does. Taps come in pairs read between two texels (the linear-sampling
    /// trick) with weights computed once on the CPU, so each pass reads about half as many
    /// texels as it has taps.
    func drawGroupShadow(_ source: OffscreenTarget, _ box: PixelBox, _ c: DrawCommand, _ s: DrawShadow) throws(GLESError) {
        let tint = s.color.alpha * s.opacity * c.opacity
        guard tint > 0 else { return }
        // The blur is done in display pixels: sigma and the offset follow the layer's transform.
        let sigma = s.radius / 2 * c.transform.approximateScale
        let offset = c.transform.displayOffset(of: s.offset, at: Point(x: c.bounds.midX, y: c.bounds.midY))
        let steps = Self.shadowFactor(sigma: sigma)
        let factor = Double(steps)
        let kernel = BlurKernel(sigma: Self.reducedSigma(sigma, factor: steps))
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
            let program: ShaderProgram<BlurUniforms>
            if let taps, !(clipped ?? hasActiveClips), (1...RendererPrograms.narrowShadowTaps).contains(taps.count) {
                program = use(programs.narrowBlurs[taps.count - 1], clipped: false)
            } else {
                program = use(taps == nil ? programs.blurResample : programs.blur, clipped: clipped)
            }
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
            let around = box.expanded(by: 1).intersection(frame.viewport).pixelAligned
            let inside = scaled(around, by: 1 / factor)
            func downsample4(into target: OffscreenTarget, over region: PixelBox, clear: PixelBox) {
                glBindFramebuffer(GLenum(GL_FRAMEBUFFER), target.framebuffer)
                scissor(clear)
                glClearColor(0, 0, 0, 0)
                glClear(GLbitfield(GL_COLOR_BUFFER_BIT))
                self.downsample4(source, into: target, over: region)
            }
            switch steps {
            case 2:
                pass(source, into: b.framebuffer, over: inside, clear: clear, scale: 2, shift: .zero, direction: (0, 0),
                     taps: nil, color: nil, clipped: false)
            case 4:
                downsample4(into: b, over: inside, clear: clear)
            default:
                // A quarter in A (cleared a little around: the next pass's reads round outward),
                // then half of that into B.
                let quarter = scaled(around, by: 1 / 4)
                downsample4(into: a, over: quarter, clear: quarter.expanded(by: 2).intersection(frame.viewport))
                pass(a, into: b.framebuffer, over: inside, clear: clear, scale: 2, shift: .zero, direction: (0, 0),
                     taps: nil, color: nil, clipped: false)
            }
            pass(b, into: a.framebuffer, over: work, clear: clear, scale: 1, shift: .zero, direction: (1, 0),
                 taps: kernel, color: nil, clipped: false)
            pass(a, into: b.framebuffer, over: work, clear: nil, scale: 1, shift: .zero, direction: (0, 1),
                 taps: kernel, color: nil, clipped: false)
            pass(b, into: final, over: shadowBox, clear: nil, scale: 1 / factor, shift: offset, direction: (0, 0),
                 taps: nil, color: s.color, clipped: nil)
        }
        bindCurrentTarget()
    }

    /// Draws `region` of `target` (a scaled box, `scaled`) as the average of the 4 × 4 blocks of
    /// `source` below it (`Shaders.downsample4`), unblended; blending is left off.
    func downsample4(_ source: OffscreenTarget, into target: OffscreenTarget, over region: PixelBox) {
        glBindFramebuffer(GLenum(GL_FRAMEBUFFER), target.framebuffer)
        scissor(region)
        glDisable(GLenum(GL_BLEND))
        let program = use(programs.downsample, clipped: false)
        glBindTexture(GLenum(GL_TEXTURE_2D), source.texture)
        glUniform2f(program.uniforms.sourceSize, GLfloat(frame.width), GLfloat(frame.height))
        setQuad(program, .identity, region.rect)
        glDrawArrays(GLenum(GL_TRIANGLE_STRIP), 0, 4)
    }

    /// The resolution a shadow of the pixels with σ display pixels is blurred at, as a divisor:
    /// 1 below σ 3, 2 below 8, 4 below 16, then 8. (An eighth from σ 12 showed 6 levels of 255
    /// against the closed form near a shadow's corners; from 16, σ stays 2 texels or more.)
    static func shadowFactor(sigma: Double) -> Int { sigma >= 16 ? 8 : sigma >= 8 ? 4 : sigma >= 3 ? 2 : 1 }

    /// σ in texels of the blur at a resolution reduced by `factor`, so that with the box
    /// average down ((f² − 1) / 12 display pixels² per axis) and the bilinear way back up
    /// (f² / 6) the whole is a Gaussian of `sigma` display pixels (shadows, and backdrops'
    /// widest blur).
    static func reducedSigma(_ sigma: Double, factor: Int) -> Double {
        guard factor > 1, sigma.isFinite else { return sigma }
        let f = Double(factor)
        return Swift.max(sigma * sigma - (f * f - 1) / 12 - f * f / 6, 0.25).squareRoot() / f
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
