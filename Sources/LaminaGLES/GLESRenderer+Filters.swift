import CGLES
import LaminaCore
import LaminaCompositor

/// Filtered groups (`filters`): when a group with filters ends, its pixels go through the
/// filters' passes, back and forth between the group's target and `filterTarget` (both
/// output-sized, so every pass reads and writes pixels where they lie), and the last target
/// written is composited as the group.
///
/// A run of colour filters is one pass (`ColorMatrix`, composed on the CPU); a gaussianBlur is
/// two (across, then down) with `BlurKernel`'s taps. The group's box already holds the blurs'
/// reach (CommandExtents), and the ring around it that the taps read is cleared when the group
/// opens, so nothing another group left there bleeds in.
extension GLESRenderer {
    /// Applies `filters` to `source`'s pixels inside `box`; returns the target holding the
    /// result (`source` itself, or `filterTarget`).
    func applyFilters(_ filters: DrawFilters, to source: OffscreenTarget, _ box: PixelBox,
                      transform: Transform3D) throws(GLESError) -> OffscreenTarget {
        if filterTarget?.width != frame.width || filterTarget?.height != frame.height {
            filterTarget = try OffscreenTarget(context: context, width: frame.width, height: frame.height)
        }
        let scratch = filterTarget!
        var current = source
        let margin = Self.filterMargin(filters, transform)
        let cleared = box.expanded(by: margin).intersection(frame.viewport).pixelAligned
        glDisable(GLenum(GL_BLEND))

        func pass(into target: OffscreenTarget, _ draw: () -> Void) {
            glBindFramebuffer(GLenum(GL_FRAMEBUFFER), target.framebuffer)
            if target !== source {
                // The scratch target's ring around the box reads as clear, like the group's.
                scissor(cleared)
                glClearColor(0, 0, 0, 0)
                glClear(GLbitfield(GL_COLOR_BUFFER_BIT))
            }
            scissor(box)
            glBindTexture(GLenum(GL_TEXTURE_2D), current.texture)
            draw()
            glDrawArrays(GLenum(GL_TRIANGLE_STRIP), 0, 4)
            current = target
            filterPasses += 1
        }

        for stage in filters.stages {
            switch stage {
            case .color(let m):
                let program = use(programs.colorMatrix, clipped: false)
                pass(into: current === source ? scratch : source) {
                    setQuad(program, .identity, box.rect)
                    setTexelSize(program.texelSize.source, (current.width, current.height))
                    // mat4 is column-major: column j holds input channel j's coefficients.
                    var columns: [GLfloat] = []
                    for col in 0..<4 { for row in 0..<4 { columns.append(GLfloat(m.at(row, col))) } }
                    glUniformMatrix4fv(program.uniforms.matrix, 1, GLboolean(GL_FALSE), columns)
                    glUniform4f(program.uniforms.bias, GLfloat(m.at(0, 4)), GLfloat(m.at(1, 4)), GLfloat(m.at(2, 4)), GLfloat(m.at(3, 4)))
                }
            case .blur(let radius):
                let scale = transform.approximateScale
                let kernel = BlurKernel(sigma: radius / 3 * (scale.isFinite ? scale : 0))
                guard kernel.count > 0 else { continue }
                // A narrow kernel's program loops exactly its count (`Shaders.filterBlur`).
                let narrow = kernel.count <= RendererPrograms.narrowBlurTaps
                let program = use(narrow ? programs.narrowFilterBlurs[kernel.count - 1] : programs.filterBlur, clipped: false)
                for direction in [(GLfloat(1), GLfloat(0)), (0, 1)] {
                    pass(into: current === source ? scratch : source) {
                        setQuad(program, .identity, box.rect)
                        glUniform2f(program.uniforms.sourceSize, GLfloat(frame.width), GLfloat(frame.height))
                        glUniform2f(program.uniforms.direction, direction.0, direction.1)
                        glUniform1i(program.uniforms.taps, GLint(kernel.count))
                        glUniform1fv(program.uniforms.weights, GLsizei(kernel.count + 1), kernel.weights)
                        glUniform1fv(program.uniforms.offsets, GLsizei(kernel.count + 1), kernel.offsets)
                    }
                }
            }
        }
        glEnable(GLenum(GL_BLEND))
        bindCurrentTarget()
        return current
    }

    /// How far around a filtered group's box its blurs' taps read, in pixels: the group's
    /// target is cleared that much wider when it opens.
    static func filterMargin(_ filters: DrawFilters, _ transform: Transform3D) -> Double {
        filters.reach > 0 ? filters.displayReach(transform) + 2 : 0
    }
}
