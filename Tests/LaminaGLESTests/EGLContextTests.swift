import LaminaTestSupport
import CEGL
import LaminaGLES
import Testing

@Suite("EGL headless contexts")
struct EGLContextTests {
    static let client = EGLExtensions.client()

    @Test("the default headless context is current and reports its GL")
    func defaultHeadless() throws {
        let context = try GLESContext.headless()
        #expect(context.isCurrent)
        let info = context.glInfo()
        #expect(info.version.hasPrefix(GLESMode.versionPrefix))
        #expect(!info.renderer.isEmpty && info.renderer != "unknown")
        #expect(context.display.version.major == 1 && context.display.version.minor >= 4)
    }

    @Test("Mesa's surfaceless platform", .enabled(if: client.contains("EGL_MESA_platform_surfaceless")))
    func surfaceless() throws {
        let context = try GLESContext.headless(platforms: [.surfaceless])
        #expect(context.display.platform == .surfaceless)
        #expect(context.isCurrent)
    }

    @Test("the EGL device platform, as on NVIDIA", .enabled(if: client.contains("EGL_EXT_platform_device")))
    func device() throws {
        let context = try GLESContext.headless(platforms: [.device])
        guard case .device = context.display.platform else {
            Issue.record("expected a device display, got \(context.display.platform)")
            return
        }
        #expect(context.isCurrent)
        #expect(context.glInfo().version.hasPrefix(GLESMode.versionPrefix))
    }

    @Test("two contexts share one display without terminating it under each other")
    func sharedDisplay() throws {
        let first = try GLESContext.headless(platforms: [.surfaceless, .device])
        do {
            let second = try GLESContext.headless(platforms: [.surfaceless, .device])
            #expect(second.display.handle == first.display.handle)
        }
        // The second display connection is gone; the first must still work.
        try first.makeCurrent()
        let framebuffer = try GLESFramebuffer(context: first, width: 4, height: 4)
        #expect(framebuffer.framebuffer != 0)
    }

    @Test("no usable platform is reported with the reason for each")
    func noPlatform() {
        #expect(throws: EGLError.noHeadlessPlatform(reasons: [])) {
            try EGLDisplayConnection.headless(platforms: [])
        }
    }

    @Test("EGL errors name the call and the code")
    func errorDescription() {
        let error = EGLError.callFailed(call: "eglCreateContext", code: EGL_BAD_MATCH)
        #expect(error.description == "eglCreateContext failed with EGL_BAD_MATCH (0x3009)")
        #expect(GLESError.callFailed(call: "glReadPixels", code: 0x0502).description
            == "glReadPixels failed with GL_INVALID_OPERATION (0x502)")
    }
}
