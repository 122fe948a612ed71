import CEGL
import Synchronization

/// Where an EGL display came from.
public enum EGLPlatform: Sendable, Equatable, CustomStringConvertible {
    /// Mesa's surfaceless platform: no window system, no device file (EGL_MESA_platform_surfaceless).
    case surfaceless
    /// An enumerated EGL device (EGL_EXT_platform_device), named by its DRM node where EGL says,
    /// or "software" for Mesa's software device.
    case device(name: String)
    /// Any other platform, such as EGL_PLATFORM_GBM_KHR for a KMS output.
    case other(platform: EGLenum)

    public var description: String {
        switch self {
        case .surfaceless: "surfaceless"
        case let .device(name): "device \(name)"
        case let .other(platform) where platform == EGLenum(EGL_PLATFORM_GBM_KHR): "gbm"
        case let .other(platform): "platform 0x" + String(platform, radix: 16, uppercase: true)
        }
    }
}

/// The platforms a headless display can come from, in the order `EGLDisplayConnection.headless`
/// tries them by default.
public enum HeadlessEGLPlatform: Sendable, CaseIterable {
    /// Mesa's surfaceless platform (llvmpipe, and Mesa's hardware drivers).
    case surfaceless
    /// The first enumerated EGL device; what NVIDIA's driver offers, as it lacks surfaceless.
    case device
}

/// EGL keeps one display per native display for the whole process: `eglGetPlatformDisplay`
/// returns the same handle to every caller, and one `eglTerminate` ends it for all of them.
/// Counting initialisations per handle lets two owners (two headless backends in one test
/// process, say) share a display without one terminating it under the other. It mirrors EGL's
/// own process-wide table and holds no EGL state of its own; EGL_KHR_display_reference would
/// make it unnecessary, but Mesa 22 lacks it.
private let displayInitializations = Mutex<[UInt: Int]>([:])

/// An initialised EGL display, terminated when the last owner of its handle goes away.
///
/// Get one for offscreen rendering with `headless()`, or wrap a display from another platform
/// (GBM for KMS) with `init(platform:nativeDisplay:)`. Contexts keep their display alive.
public final class EGLDisplayConnection: CustomStringConvertible {
    /// The EGL display handle, valid for this object's lifetime.
    public let handle: EGLDisplay
    /// The platform the display came from.
    public let platform: EGLPlatform
    /// The EGL version `eglInitialize` reported.
    public let version: (major: Int, minor: Int)
    /// The implementation's vendor string ("Mesa Project").
    public let vendor: String
    /// The display extensions.
    public let extensions: EGLExtensions
    /// What owns the native display (a GBM device), held until this display is terminated:
    /// the native display must outlive the EGL display made on it.
    private let nativeOwner: AnyObject?

    /// Takes ownership of `display`, obtained from `eglGetPlatformDisplay`, and initialises it;
    /// `owner` (the native display's owner) is kept until the display is terminated.
    /// The corresponding C function is `eglInitialize`.
    public init(adopting display: EGLDisplay, platform: EGLPlatform, owner: AnyObject? = nil) throws(EGLError) {
        var major: EGLint = 0, minor: EGLint = 0
        let key = UInt(bitPattern: display)
        let initialized = displayInitializations.withLock { counts -> Bool in
            guard eglInitialize(display, &major, &minor) == EGL_TRUE else { return false }
            counts[key, default: 0] += 1
            return true
        }
        guard initialized else { throw .lastError("eglInitialize") }
        handle = display
        self.platform = platform
        nativeOwner = owner
        version = (Int(major), Int(minor))
        vendor = eglQueryString(display, EGL_VENDOR).map { String(cString: $0) } ?? "unknown vendor"
        extensions = EGLExtensions(eglQueryString(display, EGL_EXTENSIONS))
    }

    /// Gets the display for `nativeDisplay` on `platform` (a `gbm_device` pointer with
    /// `EGL_PLATFORM_GBM_KHR`, say) and initialises it; `owner` (what owns `nativeDisplay`) is
    /// kept until the display is terminated.
    /// The corresponding C function is `eglGetPlatformDisplay`.
    public convenience init(
        platform: EGLenum, nativeDisplay: UnsafeMutableRawPointer?, attributes: [EGLAttrib] = [], owner: AnyObject? = nil
    ) throws(EGLError) {
        guard let display = Self.platformDisplay(platform, nativeDisplay, attributes) else {
            throw .lastError("eglGetPlatformDisplay")
        }
        let kind: EGLPlatform = platform == EGLenum(EGL_PLATFORM_SURFACELESS_MESA) ? .surfaceless : .other(platform: platform)
        try self.init(adopting: display, platform: kind, owner: owner)
    }

    /// A display with no window system, for rendering into framebuffer objects.
    ///
    /// Tries each of `platforms` in turn, using one only when the client extension string
    /// lists it: Mesa's surfaceless platform first, then the first EGL device (NVIDIA).
    /// Throws `EGLError.noHeadlessPlatform` saying why each was passed over.
    public static func headless(
        platforms: [HeadlessEGLPlatform] = HeadlessEGLPlatform.allCases
    ) throws(EGLError) -> EGLDisplayConnection {
        let client = EGLExtensions.client()
        var reasons: [String] = []
        for platform in platforms {
            do throws(EGLError) {
                switch platform {
                case .surfaceless: return try surfaceless(client)
                case .device: return try firstDevice(client)
                }
            } catch {
                reasons.append(error.description)
            }
        }
        throw .noHeadlessPlatform(reasons: reasons)
    }

    private static func surfaceless(_ client: EGLExtensions) throws(EGLError) -> EGLDisplayConnection {
        guard client.contains("EGL_MESA_platform_surfaceless") else {
            throw .missingExtension("EGL_MESA_platform_surfaceless", neededFor: "the surfaceless platform")
        }
        return try EGLDisplayConnection(
            platform: EGLenum(EGL_PLATFORM_SURFACELESS_MESA), nativeDisplay: nil)
    }

    private static func firstDevice(_ client: EGLExtensions) throws(EGLError) -> EGLDisplayConnection {
        for name in ["EGL_EXT_platform_device", "EGL_EXT_device_enumeration", "EGL_EXT_device_query"]
        where !client.contains(name) {
            throw .missingExtension(name, neededFor: "the device platform")
        }
        typealias QueryDevices = @convention(c) (
            EGLint, UnsafeMutablePointer<EGLDeviceEXT?>?, UnsafeMutablePointer<EGLint>?
        ) -> EGLBoolean
        typealias QueryDeviceString = @convention(c) (EGLDeviceEXT?, EGLint) -> UnsafePointer<CChar>?
        guard let queryDevicesAddress = eglGetProcAddress("eglQueryDevicesEXT"),
              let queryStringAddress = eglGetProcAddress("eglQueryDeviceStringEXT")
        else {
            throw .missingExtension("eglQueryDevicesEXT", neededFor: "the device platform (eglGetProcAddress returned NULL)")
        }
        let queryDevices = unsafeBitCast(queryDevicesAddress, to: QueryDevices.self)
        let queryDeviceString = unsafeBitCast(queryStringAddress, to: QueryDeviceString.self)

        var device: EGLDeviceEXT?
        var count: EGLint = 0
        guard queryDevices(1, &device, &count) == EGL_TRUE else { throw .lastError("eglQueryDevicesEXT") }
        guard count > 0, let device else { throw .callFailed(call: "eglQueryDevicesEXT (no devices)", code: EGL_BAD_DEVICE_EXT) }

        let deviceExtensions = EGLExtensions(queryDeviceString(device, EGL_EXTENSIONS))
        var name = deviceExtensions.contains("EGL_MESA_device_software") ? "software" : "unnamed"
        for (attribute, needed) in [(EGL_DRM_RENDER_NODE_FILE_EXT, "EGL_EXT_device_drm_render_node"),
                                    (EGL_DRM_DEVICE_FILE_EXT, "EGL_EXT_device_drm")]
        where deviceExtensions.contains(needed) {
            if let file = queryDeviceString(device, attribute) { name = String(cString: file); break }
        }
        guard let display = platformDisplay(EGLenum(EGL_PLATFORM_DEVICE_EXT), UnsafeMutableRawPointer(device), []) else {
            throw .lastError("eglGetPlatformDisplay(EGL_PLATFORM_DEVICE_EXT)")
        }
        return try EGLDisplayConnection(adopting: display, platform: .device(name: name))
    }

    private static func platformDisplay(
        _ platform: EGLenum, _ native: UnsafeMutableRawPointer?, _ attributes: [EGLAttrib]
    ) -> EGLDisplay? {
        let list = attributes.isEmpty ? [EGLAttrib(EGL_NONE)] : attributes + [EGLAttrib(EGL_NONE)]
        return list.withUnsafeBufferPointer { eglGetPlatformDisplay(platform, native, $0.baseAddress) }
    }

    /// Every configuration matching `attributes` (pairs, without the closing `EGL_NONE`), best
    /// first by EGL's sort order. Throws `noMatchingConfig` when there are none.
    /// The corresponding C function is `eglChooseConfig`.
    public func chooseConfigs(_ attributes: [EGLint]) throws(EGLError) -> [EGLConfig] {
        let list = attributes + [EGL_NONE]
        var count: EGLint = 0
        guard eglChooseConfig(handle, list, nil, 0, &count) == EGL_TRUE else { throw .lastError("eglChooseConfig") }
        guard count > 0 else { throw .noMatchingConfig(describe(attributes)) }
        var configs = [EGLConfig?](repeating: nil, count: Int(count))
        guard eglChooseConfig(handle, list, &configs, count, &count) == EGL_TRUE else {
            throw .lastError("eglChooseConfig")
        }
        return configs.prefix(Int(count)).compactMap { $0 }
    }

    /// One attribute of `config`, such as `EGL_NATIVE_VISUAL_ID` (the GBM format for KMS).
    /// The corresponding C function is `eglGetConfigAttrib`.
    public func attribute(_ attribute: EGLint, of config: EGLConfig) throws(EGLError) -> EGLint {
        var value: EGLint = 0
        guard eglGetConfigAttrib(handle, config, attribute, &value) == EGL_TRUE else {
            throw .lastError("eglGetConfigAttrib")
        }
        return value
    }

    private func describe(_ attributes: [EGLint]) -> String {
        stride(from: 0, to: attributes.count - 1, by: 2)
            .map { "0x\(String(attributes[$0], radix: 16, uppercase: true))=\(attributes[$0 + 1])" }
            .joined(separator: ", ")
    }

    /// "EGL 1.5 (Mesa Project) on surfaceless".
    public var description: String {
        "EGL \(version.major).\(version.minor) (\(vendor)) on \(platform)"
    }

    deinit {
        let key = UInt(bitPattern: handle)
        displayInitializations.withLock { counts in
            let remaining = (counts[key] ?? 1) - 1
            if remaining > 0 {
                counts[key] = remaining
            } else {
                counts[key] = nil
                // Contexts still current elsewhere stay valid until released, as EGL specifies.
                _ = eglTerminate(handle)
            }
        }
    }
}
