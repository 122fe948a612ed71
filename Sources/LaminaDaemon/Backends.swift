import LaminaGLES
import LaminaHeadless
import LaminaKMS
import LaminaServer
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

/// Opens the backend asked for, or the best available one for `.auto`, saying which and why.
///
/// `.kms` fails with a clear message when no card can be mastered (another compositor holds
/// it), but starts with no display connected, lighting displays as they are plugged in.
public func openBackend(
    _ choice: BackendChoice, width: Int, height: Int, buffers: Int = 1, kms: KMSConfiguration = KMSConfiguration(), logger: Logger
) throws -> any DisplayBackend {
    switch choice {
    case .headless:
        logger.notice("backend: headless (asked for)")
        return try HeadlessBackend(width: width, height: height, buffers: buffers)
    case .auto:
        do {
            let backend = try KMSBackend.open(configuration: kms, requireConnectedOutput: true, graphics: gbmGraphics, logger: logger)
            logger.notice("backend: kms (auto): \(backend.summary)")
            return backend
        } catch {
            logger.notice("backend: headless (auto: no DRM device with a connected connector that can be mastered: \(error))")
            return try HeadlessBackend(width: width, height: height, buffers: buffers)
        }
    case .kms:
        var settings = kms
        settings.fallbackSize = (width, height)
        do {
            let backend = try KMSBackend.open(configuration: settings, requireConnectedOutput: false, graphics: gbmGraphics, logger: logger)
            logger.notice("backend: kms (asked for): \(backend.summary)")
            return backend
        } catch let error as KMSUnavailable {
            throw BackendUnavailable(reason: "the KMS backend cannot start: \(error)")
        }
    }
}

/// The KMS backend's graphics: the GLES renderer on EGL's GBM platform.
private func gbmGraphics(device: OpaquePointer, format: UInt32) throws -> any ScanoutGraphics {
    try GBMGraphics(device: device, format: format)
}

/// The backend asked for cannot run here.
public struct BackendUnavailable: Error, CustomStringConvertible {
    public var reason: String
    public var description: String { reason }
}
