import LaminaHeadless
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
public func openBackend(_ choice: BackendChoice, width: Int, height: Int, logger: Logger) throws -> any DisplayBackend {
    switch choice {
    case .headless:
        logger.notice("backend: headless (asked for)")
        return try HeadlessBackend(width: width, height: height)
    case .auto:
        // The KMS backend is not built yet (see docs/architecture.md); auto can only mean headless.
        logger.notice("backend: headless (auto: this build has no KMS backend yet)")
        return try HeadlessBackend(width: width, height: height)
    case .kms:
        throw BackendUnavailable(reason: "the KMS backend is not part of this build yet; use --backend headless or auto")
    }
}

/// The backend asked for cannot run here.
public struct BackendUnavailable: Error, CustomStringConvertible {
    public var reason: String
    public var description: String { reason }
}
