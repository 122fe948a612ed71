import CGLES
import LaminaCore
import LaminaCompositor

/// Blended groups (`compositingFilter`): a layer with a blend mode is always an offscreen
/// group, and its composite reads what lies behind it in the target below: straight from the
/// framebuffer where the context has GL_EXT_shader_framebuffer_fetch, else from a copy of the
/// group's box made just before (`glBlitFramebuffer` into `backdropTarget`).
///
/// The result at a pixel depends only on the group and the backdrop at that pixel, so damage
/// needs nothing new: where the backdrop changed, its own damage redraws the group over it;
/// a group drawn in a damage box reads a backdrop already redrawn there. Blended groups are
/// not kept in `GroupCache` (their appearance is not theirs alone).
extension GLESRenderer {
    /// Composites the group pixels in `source` (times `mask`'s alpha, with one) over `box` of
    /// the current target at `opacity`, blended with what the target holds there by `mode`,
    /// under the clips in force.
    func drawBlended(_ source: OffscreenTarget, mask: OffscreenTarget?, _ box: PixelBox, opacity: Double,
                     _ mode: BlendMode) throws(GLESError) {
        if usesFramebufferFetch, let fetch = programs.fetchBlend {
            let program = use(fetch)
            setBlend(program.uniforms.blend, source: source, mask: mask, opacity: opacity, mode: mode)
            setTexelSize(program.texelSize.source, (source.width, source.height))
            if let mask { setTexelSize(program.texelSize.mask, (mask.width, mask.height)) }
            setQuad(program, .identity, box.rect)
        } else {
            try copyBackdrop(box)
            let program = use(programs.blend)
            setBlend(program.uniforms, source: source, mask: mask, opacity: opacity, mode: mode)
            setTexelSize(program.texelSize.source, (source.width, source.height))
            if let mask { setTexelSize(program.texelSize.mask, (mask.width, mask.height)) }
            setTexelSize(program.texelSize.backdrop, (backdropTarget!.width, backdropTarget!.height))
            glActiveTexture(GLenum(GL_TEXTURE2))
            glBindTexture(GLenum(GL_TEXTURE_2D), backdropTarget!.texture)
            glActiveTexture(GLenum(GL_TEXTURE0))
            setQuad(program, .identity, box.rect)
        }
        // The program computes the whole result from the backdrop: nothing is blended after it.
        glBlendFunc(GLenum(GL_ONE), GLenum(GL_ZERO))
        glDrawArrays(GLenum(GL_TRIANGLE_STRIP), 0, 4)
        glBlendFunc(GLenum(GL_ONE), GLenum(GL_ONE_MINUS_SRC_ALPHA))
        blendedComposites += 1
    }

    private func setBlend(_ u: BlendUniforms, source: OffscreenTarget, mask: OffscreenTarget?, opacity: Double, mode: BlendMode) {
        if let mask {
            glActiveTexture(GLenum(GL_TEXTURE1))
            glBindTexture(GLenum(GL_TEXTURE_2D), mask.texture)
            glActiveTexture(GLenum(GL_TEXTURE0))
        }
        glBindTexture(GLenum(GL_TEXTURE_2D), source.texture)
        glUniform1f(u.useMask, mask == nil ? 0 : 1)
        glUniform1f(u.opacity, GLfloat(opacity))
        glUniform1i(u.mode, mode.shaderIndex)
    }

    /// Copies `box` of the current target into `backdropTarget` (the output's size, so the
    /// copy sits where it was), and binds the current target again with its scissor.
    private func copyBackdrop(_ box: PixelBox) throws(GLESError) {
        if backdropTarget?.width != frame.width || backdropTarget?.height != frame.height {
            backdropTarget = try OffscreenTarget(context: context, width: frame.width, height: frame.height)
        }
        blit(from: currentTarget, box, height: frame.height, to: backdropTarget!.framebuffer, box, height: frame.height)
        backdropCopies += 1
        bindCurrentTarget()
    }
}
