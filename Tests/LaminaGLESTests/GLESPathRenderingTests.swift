import LaminaCore
import LaminaGLES
import LaminaCompositor
import LaminaTestSupport
import Testing

/// The two renderer paths on a real context: the ES 2 path (GLSL ES 1.00, no instancing, blit,
/// texture storage, R8 or fences) draws what the ES 3 path draws. The whole pixel set runs in
/// ES 2 mode too (`LAMINA_GLES=vc4`, scripts/test.sh); this suite compares the two side by side
/// in one process in either mode.
@Suite("GLES paths")
struct GLESPathRenderingTests {
    @Test("the renderer takes the path of the mode the tests run in")
    func modeOfThisRun() throws {
        let display = try HeadlessDisplay(width: 8, height: 8)
        let c = display.renderer.capabilities
        print("lamina: GLES mode of this test run: \(GLESMode.description); renderer: \(c)")
        #expect(c.path == (GLESMode.isES2 ? .gles2 : .gles3), "\(c)")
        if GLESMode.requested == "vc4" { #expect(c.extensions.isDisjoint(with: VC4Profile.lacking)) }
    }

    @Test("the ES 2 path with the VC4 profile draws what the ES 3 path draws", arguments: [false, true])
    func es2MatchesES3(continuous: Bool) throws {
        let list = try EdgeBandTests.randomLayers(continuous: continuous)
        let es3 = try HeadlessDisplay(width: 400, height: 300, gles: .path(.gles3))
        let es2 = try HeadlessDisplay(width: 400, height: 300, gles: .vc4)
        #expect(es2.renderer.capabilities.path == .gles2 && !es2.renderer.capabilities.instancedArrays)
        // Without MESA_GLES_VERSION_OVERRIDE the context is ES 3.2 here and the ES 3 path is
        // taken; in ES 2 mode it is ES 2.0, and an ES 3 request falls back to ES 2, saying so.
        let es3Path = es3.renderer.capabilities.path
        #expect(es3Path == .gles3 || es3.renderer.capabilities.note != nil)
        try es3.present(list)
        let a = try es3.screenshot()
        try es2.present(list)
        let b = try es2.screenshot()
        let d = a.difference(from: b)
        #expect(d.worst <= 1, "largest channel difference \(d.worst) over \(d.differing) pixels")
        // The batch is drawn there too, as expanded triangles (`InstanceExpansion`).
        #expect(es2.renderer.batchDraws > 0)
    }
}
