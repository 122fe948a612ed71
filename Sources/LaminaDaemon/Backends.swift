import LaminaGLES
import LaminaHeadless
import LaminaKMS
import LaminaCompositor
import Logging

/// Which display backend laminad runs on.
public enum BackendChoice: String, Sendable, CaseIterable {
    /// KMS when a DRM device with a connected output can be mastered, headless otherwise.
    case auto
    /// Offscreen GLES rendering (llvmpipe on machines without a GPU).
    case headless
    /// DRM/KMS straight to a display.
    case kms
}

/// Opens the backend asked for, or the best available one for `.auto`, saying which and why,
/// and wires it to the GLES renderer that draws its frames: the frame step the compositor runs.
/// The backend's buffers come from the renderer's side (headless: its framebuffers; KMS:
/// window surfaces over the backend's GBM surfaces), and screenshots of a desktop no output's
/// buffer holds are redrawn into the renderer's framebuffers.
///
/// `.kms` fails with a clear message when no card can be mastered (another compositor holds
/// it), but starts with no display connected, lighting displays as they are plugged in.
public func openDisplay(
    _ choice: BackendChoice, width: Int, height: Int, buffers: Int = 1, kms: KMSConfiguration = KMSConfiguration(),
    gles: GLESRequest = .fromEnvironment(GLESContext.environment()), logger: Logger
) throws -> FramePresenter {
    switch choice {
    case .headless:
        logger.notice("backend: headless (asked for)")
        return try headless(width: width, height: height, buffers: buffers, gles: gles)
    case .auto:
        do {
            let display = try scanout(kms, requireConnectedOutput: true, gles: gles, logger: logger)
            logger.notice("backend: kms (auto): \(display.backend.summary)")
            return display
        } catch {
            logger.notice("backend: headless (auto: no DRM device with a connected connector that can be mastered: \(error))")
            return try headless(width: width, height: height, buffers: buffers, gles: gles)
        }
    case .kms:
        var settings = kms
        settings.fallbackSize = (width, height)
        do {
            let display = try scanout(settings, requireConnectedOutput: false, gles: gles, logger: logger)
            logger.notice("backend: kms (asked for): \(display.backend.summary)")
            return display
        } catch let error as KMSUnavailable {
            throw BackendUnavailable(reason: "the KMS backend cannot start: \(error)")
        }
    }
}

/// The GLES path to ask for: `configured` (`--gles`, `[renderer] gles`) where given, else
/// `LAMINA_GLES` (how the tests run every laminad in ES 2 mode), else automatic. An unknown
/// `LAMINA_GLES` is an error naming it.
public func resolvedGLESRequest(_ configured: GLESRequest?) throws -> GLESRequest {
    if let configured { return configured }
    let environment = GLESContext.environment()
    if let error = GLESRequest.environmentError(environment) { throw BackendUnavailable(reason: error) }
    return .fromEnvironment(environment)
}

/// The headless backend, its buffers the framebuffers of a surfaceless GLES context.
private func headless(width: Int, height: Int, buffers: Int, gles: GLESRequest) throws -> FramePresenter {
    let graphics = try GLESGraphics.headless(request: gles)
    let backend = try HeadlessBackend(width: width, height: height, buffers: buffers, allocator: graphics.allocator)
    return FramePresenter(backend: backend, renderer: graphics.renderer, offscreen: graphics.allocator)
}

/// The KMS backend, drawn with the GLES renderer on EGL's GBM platform.
private func scanout(_ configuration: KMSConfiguration, requireConnectedOutput: Bool, gles: GLESRequest, logger: Logger) throws -> FramePresenter {
    let backend = try KMSBackend.open(configuration: configuration, requireConnectedOutput: requireConnectedOutput, graphics: { device, format in
        GBMScanoutGraphics(try GBMGraphics(device: device.handle, owner: device, format: format, request: gles))
    }, logger: logger)
    // The graphics the backend keeps are the ones made just above.
    guard let gles = (backend.graphics as? GBMScanoutGraphics)?.graphics.gles else {
        throw BackendUnavailable(reason: "the KMS backend draws with \(type(of: backend.graphics)), not the GLES renderer")
    }
    return FramePresenter(backend: backend, renderer: gles.renderer, offscreen: gles.allocator)
}

/// LaminaGLES's `GBMGraphics` as the KMS backend sees it: swapchains over its GBM surfaces.
/// (Neither module knows the other; the daemon joins them.)
final class GBMScanoutGraphics: ScanoutGraphics {
    let graphics: GBMGraphics

    init(_ graphics: GBMGraphics) {
        self.graphics = graphics
    }

    var summary: String { graphics.summary }

    func makeSurface(over window: GBMSurface) throws -> any ScanoutSurface {
        try graphics.makeSurface(window: window.handle, width: window.width, height: window.height, owner: window)
    }
}

/// The backend asked for cannot run here.
public struct BackendUnavailable: Error, CustomStringConvertible {
    public var reason: String
    public var description: String { reason }
}
