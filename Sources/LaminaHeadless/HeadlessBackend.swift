import LaminaCore
import LaminaGLES
import LaminaServer

/// Why the headless backend could not present a frame.
public enum HeadlessBackendError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The draw list's size is not the output's: a headless output does not change size.
    case sizeMismatch(listWidth: Int, listHeight: Int, outputWidth: Int, outputHeight: Int)

    public var description: String {
        switch self {
        case let .sizeMismatch(lw, lh, ow, oh):
            "cannot present a \(lw)×\(lh) draw list on the \(ow)×\(oh) headless output"
        }
    }
}

/// A display backend with no display: frames are drawn with OpenGL ES into an offscreen
/// framebuffer and stay there to be read back (weston's headless backend, for pixel tests,
/// benchmarks and CI machines without a GPU).
///
/// Uses Mesa's surfaceless EGL platform, or the first EGL device where that is missing.
/// Like the GL context it owns, a backend must be used on the thread that created it.
public final class HeadlessBackend: DisplayBackend {
    /// The GL context, current on the thread that created the backend.
    public let context: GLESContext
    /// The offscreen framebuffer frames are drawn into.
    public let framebuffer: GLESFramebuffer
    /// The renderer, typed for callers that need GL-specific calls such as `finish()`.
    public let glesRenderer: GLESRenderer
    /// How many frames `present` has drawn.
    public private(set) var framesPresented = 0

    /// Creates a `width` × `height` offscreen output with its own GL context, which is left
    /// current on the calling thread.
    public init(width: Int, height: Int) throws {
        context = try GLESContext.headless()
        framebuffer = try GLESFramebuffer(context: context, width: width, height: height)
        glesRenderer = try GLESRenderer(context: context)
    }

    /// "headless".
    public var name: String { "headless" }
    /// The output's width in pixels, fixed at creation.
    public var width: Int { framebuffer.width }
    /// The output's height in pixels, fixed at creation.
    public var height: Int { framebuffer.height }
    /// The GLES renderer, as the server's `Renderer`.
    public var renderer: any Renderer { glesRenderer }

    /// The EGL display and GL renderer in one line, for the log at start-up:
    /// "OpenGL ES 3.2 Mesa 22.3.6 on llvmpipe (LLVM 15.0.6, 256 bits); EGL 1.5 (Mesa Project) on surfaceless".
    public var rendererDescription: String { "\(glesRenderer.name); \(context.display)" }

    /// Draws `list` into the offscreen framebuffer, where it stays until the next frame.
    public func present(_ list: DrawList) throws {
        guard list.width == width, list.height == height else {
            throw HeadlessBackendError.sizeMismatch(
                listWidth: list.width, listHeight: list.height, outputWidth: width, outputHeight: height)
        }
        if !context.isCurrent { try context.makeCurrent() }
        framebuffer.bind()
        try glesRenderer.draw(list)
        framesPresented += 1
    }

    /// The last frame presented, top row first.
    public func screenshot() throws -> Bitmap {
        if !context.isCurrent { try context.makeCurrent() }
        framebuffer.bind()
        return try glesRenderer.readPixels()
    }
}
