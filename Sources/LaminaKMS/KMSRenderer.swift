import CGLES
import LaminaCore
import LaminaGLES
import LaminaServer

/// The KMS backend's `Renderer`: draws into whichever output surface is current, and answers
/// screenshots by drawing the last desktop again into an offscreen framebuffer, since a window
/// surface's buffer is gone to the display once swapped.
public final class KMSRenderer: Renderer {
    public let gles: GLESRenderer
    /// The whole desktop as last presented.
    var lastList: DrawList?
    private var readback: GLESFramebuffer?

    init(gles: GLESRenderer) { self.gles = gles }

    /// The textures held for contents (all outputs share the GLES renderer's cache).
    public var textureUsage: TextureUsage { gles.textureUsage }

    public var name: String { gles.name }

    /// The GLES renderer's caches (shared by all outputs).
    public var cacheStatistics: [(name: String, value: Double)] { gles.cacheStatistics }

    public func draw(_ list: DrawList) throws { try gles.draw(list) }

    /// The last presented desktop, top row first, drawn again offscreen.
    /// The corresponding C function is `glReadPixels`.
    public func readPixels() throws -> Bitmap {
        guard let list = lastList else { throw GLESError.nothingDrawn }
        let context = gles.context
        if !context.isCurrent { try context.makeCurrent() }
        if readback?.width != list.width || readback?.height != list.height {
            readback = try GLESFramebuffer(context: context, width: list.width, height: list.height)
        }
        readback!.bind()
        defer { glBindFramebuffer(GLenum(GL_FRAMEBUFFER), 0) }
        try gles.draw(list)
        return try gles.readPixels()
    }
}
