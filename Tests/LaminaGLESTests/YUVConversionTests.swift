import LaminaCore
import LaminaGPUChecks
import LaminaServer
import Testing

/// Planar YUV video pictures (I420, what software decoders give) are uploaded as three planes
/// and converted to RGB in a shader, into a bottom-up texture like every video frame in system
/// memory. What shows must be what the CPU conversion (`PlanarPicture.rgba`) shows as an
/// ordinary image: copied one texel to a pixel, and drawn scaled (`GPUChecks.yuvShader`, which
/// lamina-gpu-check also runs on a GPU).
@Suite("YUV conversion")
struct YUVConversionTests {
    @Test func convertedInAShaderShowsWhatTheCPUConversionShows() throws {
        // One texel to a pixel: converted once, then copied by the blit.
        let copied = try GPUChecks.yuvShader(GPUChecks.planarPicture(), scale: 1, origin: (10, 20))
        #expect(copied.worst <= 2 && copied.conversions == 1 && copied.blits > 0, "\(copied)")
        // Scaled: drawn by the plain contents program from the bottom-up texture.
        let scaled = try GPUChecks.yuvShader(GPUChecks.planarPicture(matrix: .bt709), scale: 2, origin: (3, 4))
        #expect(scaled.worst <= 2 && scaled.conversions == 1 && scaled.blits == 0, "\(scaled)")
        let full = try GPUChecks.yuvShader(GPUChecks.planarPicture(fullRange: true), scale: 1.5, origin: (0, 0))
        #expect(full.worst <= 2, "\(full)")
    }
}
