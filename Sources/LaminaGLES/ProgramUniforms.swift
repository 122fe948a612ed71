import CGLES

// The uniforms of each kind of program, by the names the shaders give them (`Shaders.swift`,
// `LooksShaders.swift`); the shared vertex and clip uniforms are `ShaderProgram`'s.

/// `Shaders.shape`: a rounded rectangle with a border, antialiased from its distance function.
struct ShapeUniforms: ProgramUniforms {
    static var fragment: String { Shaders.shape }
    /// The rectangle in layer coordinates: origin, size.
    let rect: GLint
    let radii: GLint
    let borderWidth: GLint
    /// Premultiplied, opacity applied.
    let fillColor: GLint
    /// Premultiplied, opacity applied.
    let borderColor: GLint

    init(_ find: UniformLocator) throws(GLESError) {
        rect = try find("rect")
        radii = try find("radii")
        borderWidth = try find("borderWidth")
        fillColor = try find("fillColor")
        borderColor = try find("borderColor")
    }
}

/// `Shaders.shadow`: a layer's shadow in closed form.
struct ShadowUniforms: ProgramUniforms {
    static var fragment: String { Shaders.shadow }
    /// The casting rectangle, moved by the shadow offset.
    let rect: GLint
    let radii: GLint
    /// In layer units.
    let sigma: GLint
    /// Premultiplied shadow colour × shadowOpacity × opacity.
    let color: GLint

    init(_ find: UniformLocator) throws(GLESError) {
        rect = try find("rect")
        radii = try find("radii")
        sigma = try find("sigma")
        color = try find("color")
    }
}

/// `Shaders.composite`: an offscreen target's pixels at an opacity.
struct CompositeUniforms: ProgramUniforms {
    static var fragment: String { Shaders.composite }
    /// A sampler, texture unit 0.
    let source: GLint
    let opacity: GLint
    /// Where the source texture's first texel lies in the framebuffer.
    let origin: GLint
    /// A premultiplied colour drawn over the source in the same pass (0 but under a backdrop's
    /// folded fill).
    let fill: GLint

    init(_ find: UniformLocator) throws(GLESError) {
        source = try find("source")
        opacity = try find("opacity")
        origin = try find("origin")
        fill = try find("fill")
    }

    func assignTextureUnits() { glUniform1i(source, 0) }
}

/// `Shaders.downsample4`: a backdrop averaged down to a quarter of the resolution.
struct DownsampleUniforms: ProgramUniforms {
    static var fragment: String { Shaders.downsample4 }
    /// A sampler, texture unit 0.
    let source: GLint
    let sourceSize: GLint

    init(_ find: UniformLocator) throws(GLESError) {
        source = try find("source")
        sourceSize = try find("sourceSize")
    }

    func assignTextureUnits() { glUniform1i(source, 0) }
}

/// `Shaders.backdropComposite`: a backdrop filtered at a reduced resolution, drawn back.
struct BackdropCompositeUniforms: ProgramUniforms {
    static var fragment: String { Shaders.backdropComposite }
    /// A sampler, texture unit 0.
    let source: GLint
    let sourceSize: GLint
    let opacity: GLint
    let factor: GLint
    let shift: GLint
    /// The layer's own fill, premultiplied, drawn over the backdrop in the same pass.
    let fill: GLint

    init(_ find: UniformLocator) throws(GLESError) {
        source = try find("source")
        sourceSize = try find("sourceSize")
        opacity = try find("opacity")
        factor = try find("factor")
        shift = try find("shift")
        fill = try find("fill")
    }

    func assignTextureUnits() { glUniform1i(source, 0) }
}

/// `Shaders.blur`: one pass of a separable Gaussian blur (`BlurKernel`), or a down- or
/// up-sampling pass.
struct BlurUniforms: ProgramUniforms {
    static var fragment: String { Shaders.blur(resampling: false) }
    /// A sampler, texture unit 0.
    let source: GLint
    /// In texels.
    let sourceSize: GLint
    /// In framebuffer pixels.
    let sourceOffset: GLint
    /// (1, 0) or (0, 1); -1 in the resampling program, like `taps` and `offsets`.
    let direction: GLint
    /// Taps each side of the centre.
    let taps: GLint
    /// Source texels per framebuffer pixel.
    let scale: GLint
    /// Premultiplied tint.
    let color: GLint
    let weights: GLint
    let offsets: GLint

    init(_ find: UniformLocator) throws(GLESError) {
        source = try find("source")
        sourceSize = try find("sourceSize")
        sourceOffset = try find("sourceOffset")
        direction = find.optional("direction")
        taps = find.optional("taps")
        scale = try find("scale")
        color = try find("color")
        weights = try find("weights")
        offsets = find.optional("offsets")
    }

    func assignTextureUnits() { glUniform1i(source, 0) }
}

/// `Shaders.fill`: one colour.
struct FillUniforms: ProgramUniforms {
    static var fragment: String { Shaders.fill }
    /// Premultiplied, opacity applied.
    let fillColor: GLint

    init(_ find: UniformLocator) throws(GLESError) {
        fillColor = try find("fillColor")
    }
}

/// `Shaders.plainContents`: a whole image stretched over a pixel-aligned destination.
struct PlainContentsUniforms: ProgramUniforms {
    static var fragment: String { Shaders.plainContents }
    /// A sampler, texture unit 0.
    let source: GLint
    let destRect: GLint
    let sourceRect: GLint
    let clampRect: GLint
    let opacity: GLint
    let opaque: GLint

    init(_ find: UniformLocator) throws(GLESError) {
        source = try find("source")
        destRect = try find("destRect")
        sourceRect = try find("sourceRect")
        clampRect = try find("clampRect")
        opacity = try find("opacity")
        opaque = try find("opaque")
    }

    func assignTextureUnits() { glUniform1i(source, 0) }
}

/// `Shaders.contents`: an image drawn nine-slice, optionally inside a rounded mask.
struct ContentsUniforms: ProgramUniforms {
    static var fragment: String { Shaders.contents }
    /// A sampler, texture unit 0.
    let source: GLint
    /// Origin, size (layer units).
    let destRect: GLint
    /// Left, top, right, bottom (layer units).
    let destInsets: GLint
    /// u0, v0, u1, v1 (texture units; may be flipped).
    let sourceRect: GLint
    /// Left, top, right, bottom (texture units).
    let sourceInsets: GLint
    /// Min u, min v, max u, max v: half a texel inside `sourceRect`.
    let clampRect: GLint
    let maskRect: GLint
    let maskRadii: GLint
    let useMask: GLint
    let opacity: GLint
    let opaque: GLint

    init(_ find: UniformLocator) throws(GLESError) {
        source = try find("source")
        destRect = try find("destRect")
        destInsets = try find("destInsets")
        sourceRect = try find("sourceRect")
        sourceInsets = try find("sourceInsets")
        clampRect = try find("clampRect")
        maskRect = try find("maskRect")
        maskRadii = try find("maskRadii")
        useMask = try find("useMask")
        opacity = try find("opacity")
        opaque = try find("opaque")
    }

    func assignTextureUnits() { glUniform1i(source, 0) }
}

/// `Shaders.gradient`: axial, radial or conic stops over rounded bounds.
struct GradientUniforms: ProgramUniforms {
    static var fragment: String { Shaders.gradient }
    let rect: GLint
    let radii: GLint
    /// 0 axial, 1 radial, 2 conic.
    let gradientType: GLint
    /// In layer coordinates.
    let startPoint: GLint
    let endPoint: GLint
    let stopCount: GLint
    /// Premultiplied, opacity applied.
    let stopColors: GLint
    /// Four per vector, non-decreasing.
    let stopLocations: GLint

    init(_ find: UniformLocator) throws(GLESError) {
        rect = try find("rect")
        radii = try find("radii")
        gradientType = try find("gradientType")
        startPoint = try find("startPoint")
        endPoint = try find("endPoint")
        stopCount = try find("stopCount")
        stopColors = try find("stopColors")
        stopLocations = try find("stopLocations")
    }
}

/// `Shaders.maskedComposite`: a group's pixels times its mask's alpha.
struct MaskedCompositeUniforms: ProgramUniforms {
    static var fragment: String { Shaders.maskedComposite }
    /// A sampler, texture unit 0.
    let source: GLint
    /// A sampler, texture unit 1.
    let mask: GLint
    let opacity: GLint

    init(_ find: UniformLocator) throws(GLESError) {
        source = try find("source")
        mask = try find("mask")
        opacity = try find("opacity")
    }

    func assignTextureUnits() {
        glUniform1i(source, 0)
        glUniform1i(mask, 1)
    }
}
