import CDRM
import CEGL
import CGBM
import CGLES
import CLinux
import Glibc
import LaminaCore
import LaminaGLES
import LaminaCompositor

/// Where a dma-buf for the import check comes from. Each is what some real producer gives
/// laminad: a GPU's own buffer (tiled, with its modifier), a linear buffer of a render node (a
/// hardware decoder's), and system memory pages (a camera's, a software producer's).
public enum DMABufOrigin: String, CaseIterable, Sendable {
    /// A GL texture of the renderer's own driver, exported (EGL_MESA_image_dma_buf_export): the
    /// driver's layout and modifier.
    case eglExport = "egl-export"
    /// A linear XRGB8888 buffer from GBM on the first render node, written through a mapping.
    case gbm
    /// memfd pages made a dma-buf by /dev/udmabuf: system memory, linear.
    case udmabuf
    /// A buffer of the system dma-buf heap (/dev/dma_heap/system), written through a mapping.
    case dmaHeap = "dma-heap"

    /// What it is, for the report.
    public var summary: String {
        switch self {
        case .eglExport: "a GL texture exported by the driver (its own layout and modifier)"
        case .gbm: "a linear GBM buffer on a render node"
        case .udmabuf: "memfd pages through /dev/udmabuf (system memory)"
        case .dmaHeap: "a buffer of /dev/dma_heap/system"
        }
    }
}

/// Why a dma-buf could not be made on this machine (the check is skipped for that origin).
struct Unavailable: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
    static func errno(_ call: String) -> Unavailable { Unavailable("\(call): \(String(cString: strerror(Glibc.errno)))") }
}

/// The check's picture: four quadrants of distinct colours, so a swapped channel, a flipped row
/// order or a wrong pitch all show.
enum TestPattern {
    static let width = 64, height = 48
    static let colours: [(UInt8, UInt8, UInt8)] = [(220, 40, 30), (30, 200, 60), (40, 60, 210), (230, 220, 40)]

    static func colour(x: Int, y: Int) -> (UInt8, UInt8, UInt8) {
        colours[(y < height / 2 ? 0 : 2) + (x < width / 2 ? 0 : 1)]
    }

    /// The pattern as an RGBA bitmap (opaque): what the imported picture must look like.
    static var bitmap: Bitmap {
        var b = Bitmap(width: width, height: height)
        for y in 0..<height { for x in 0..<width {
            let (r, g, bl) = colour(x: x, y: y)
            let i = (y * width + x) * 4
            b.bytes[i] = r; b.bytes[i + 1] = g; b.bytes[i + 2] = bl; b.bytes[i + 3] = 255
        } }
        return b
    }

    /// Writes the pattern as XRGB8888 (bytes B, G, R, X in memory) rows `pitch` bytes apart.
    static func writeXRGB(to base: UnsafeMutableRawPointer, pitch: Int) {
        for y in 0..<height {
            let row = base.advanced(by: y * pitch).assumingMemoryBound(to: UInt8.self)
            for x in 0..<width {
                let (r, g, b) = colour(x: x, y: y)
                row[x * 4] = b; row[x * 4 + 1] = g; row[x * 4 + 2] = r; row[x * 4 + 3] = 255
            }
        }
    }

    /// Reads XRGB8888 rows back into an RGBA bitmap: the copy a refused import falls back to.
    static func readXRGB(from base: UnsafeRawPointer, pitch: Int) -> Bitmap {
        var b = Bitmap(width: width, height: height)
        for y in 0..<height {
            let row = base.advanced(by: y * pitch).assumingMemoryBound(to: UInt8.self)
            for x in 0..<width {
                let i = (y * width + x) * 4
                b.bytes[i] = row[x * 4 + 2]; b.bytes[i + 1] = row[x * 4 + 1]; b.bytes[i + 2] = row[x * 4]; b.bytes[i + 3] = 255
            }
        }
        return b
    }
}

extension TestPattern {
    /// The pattern in a texture of the current context, made an EGLImage
    /// (EGL_KHR_gl_texture_2D_image); `holder` deletes both.
    static func image(display: EGLDisplayConnection, holder: Holder) throws(Unavailable) -> EGLImageKHR {
        for name in ["EGL_KHR_gl_texture_2D_image", "EGL_KHR_image_base"] where !display.extensions.contains(name) {
            throw Unavailable("the EGL display lacks \(name)")
        }
        guard let createAddress = eglGetProcAddress("eglCreateImageKHR"), let destroyAddress = eglGetProcAddress("eglDestroyImageKHR") else {
            throw Unavailable("eglGetProcAddress found no eglCreateImageKHR")
        }
        let create = unsafeBitCast(createAddress, to: PFNEGLCREATEIMAGEKHRPROC.self)
        let destroy = unsafeBitCast(destroyAddress, to: PFNEGLDESTROYIMAGEKHRPROC.self)
        var texture: GLuint = 0
        glGenTextures(1, &texture)
        holder.cleanups.append { glDeleteTextures(1, &texture) }
        glBindTexture(GLenum(GL_TEXTURE_2D), texture)
        glTexParameteri(GLenum(GL_TEXTURE_2D), GLenum(GL_TEXTURE_MIN_FILTER), GL_LINEAR)
        glTexParameteri(GLenum(GL_TEXTURE_2D), GLenum(GL_TEXTURE_MAG_FILTER), GL_LINEAR)
        // Rows top first, as a decoder writes them: whatever samples the image must show row 0
        // at the top.
        let rgba = bitmap.bytes
        glPixelStorei(GLenum(GL_UNPACK_ALIGNMENT), 4)
        glTexStorage2D(GLenum(GL_TEXTURE_2D), 1, GLenum(GL_RGBA8), GLsizei(width), GLsizei(height))
        glTexSubImage2D(GLenum(GL_TEXTURE_2D), 0, 0, 0, GLsizei(width), GLsizei(height), GLenum(GL_RGBA), GLenum(GL_UNSIGNED_BYTE), rgba)
        glFinish()
        guard glGetError() == GLenum(GL_NO_ERROR) else { throw Unavailable("glTexStorage2D of the pattern failed") }
        let attributes: [EGLint] = [EGL_GL_TEXTURE_LEVEL_KHR, 0, EGL_NONE]
        guard let image = create(display.handle, eglGetCurrentContext(), EGLenum(EGL_GL_TEXTURE_2D_KHR),
                                 UnsafeMutableRawPointer(bitPattern: UInt(texture)), attributes) else {
            throw Unavailable("eglCreateImageKHR(EGL_GL_TEXTURE_2D_KHR): \(EGLError.name(ofCode: eglGetError()))")
        }
        holder.cleanups.append { _ = destroy(display.handle, image) }
        return image
    }
}

/// Owns what a made dma-buf needs (descriptors, mappings, GL and EGL objects) until the picture
/// that holds it goes.
final class Holder {
    var cleanups: [() -> Void] = []
    deinit { for cleanup in cleanups.reversed() { cleanup() } }
}

/// A mapping of `size` bytes of `fd`, unmapped by `holder`.
private func map(_ fd: Int32, size: Int, holder: Holder, what: String) throws(Unavailable) -> UnsafeMutableRawPointer {
    let address = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)
    guard let address, address != MAP_FAILED else { throw .errno("mmap of \(what)") }
    holder.cleanups.append { munmap(address, size) }
    return address
}

/// A descriptor closed by `holder`.
private func own(_ fd: Int32, _ holder: Holder) -> Int32 {
    holder.cleanups.append { close(fd) }
    return fd
}

extension DMABufOrigin {
    /// Makes a dma-buf holding `TestPattern` with this origin, as the picture a decoder would
    /// hand laminad, or says why it cannot here. `display`: the renderer's EGL display, whose
    /// context is current (the GL texture of `.eglExport` is made in it).
    func make(display: EGLDisplayConnection) throws(Unavailable) -> DMABufPicture {
        let holder = Holder()
        let w = TestPattern.width, h = TestPattern.height
        switch self {
        case .eglExport:
            return try exportTexture(display: display, holder: holder)
        case .gbm:
            let node = try firstRenderNode()
            let fd = open(node, O_RDWR | O_CLOEXEC)
            guard fd >= 0 else { throw .errno("open \(node)") }
            _ = own(fd, holder)
            guard let device = gbm_create_device(fd) else { throw .errno("gbm_create_device(\(node))") }
            holder.cleanups.append { gbm_device_destroy(device) }
            let backend = gbm_device_get_backend_name(device).map { String(cString: $0) } ?? "?"
            guard let bo = gbm_bo_create(device, UInt32(w), UInt32(h), DRMFourCC.xrgb8888,
                                         UInt32(GBM_BO_USE_LINEAR.rawValue | GBM_BO_USE_RENDERING.rawValue)) else {
                throw .errno("gbm_bo_create(linear XRGB8888) on \(node) (GBM backend \(backend))")
            }
            holder.cleanups.append { gbm_bo_destroy(bo) }
            var stride: UInt32 = 0
            var mapping: UnsafeMutableRawPointer?
            guard let base = gbm_bo_map(bo, 0, 0, UInt32(w), UInt32(h), UInt32(GBM_BO_TRANSFER_WRITE.rawValue), &stride, &mapping) else {
                throw .errno("gbm_bo_map on \(node)")
            }
            TestPattern.writeXRGB(to: base, pitch: Int(stride))
            gbm_bo_unmap(bo, mapping)
            let dmabuf = gbm_bo_get_fd(bo)
            guard dmabuf >= 0 else { throw .errno("gbm_bo_get_fd") }
            let modifier = gbm_bo_get_modifier(bo)
            return picture(fd: own(dmabuf, holder), offset: Int(gbm_bo_get_offset(bo, 0)), pitch: Int(gbm_bo_get_stride(bo)),
                           fourcc: DRMFourCC.xrgb8888, modifier: modifier == DRMFourCC.invalidModifier ? nil : modifier,
                           holder: holder, copy: nil)
        case .udmabuf:
            let device = open("/dev/udmabuf", O_RDWR | O_CLOEXEC)
            guard device >= 0 else { throw .errno("open /dev/udmabuf") }
            _ = own(device, holder)
            let pitch = w * 4, size = (pitch * h + 4095) / 4096 * 4096
            let memfd = CLinux_memfd_create("lamina-gpu-check")
            guard memfd >= 0 else { throw .errno("memfd_create") }
            _ = own(memfd, holder)
            guard ftruncate(memfd, off_t(size)) == 0 else { throw .errno("ftruncate") }
            guard CLinux_memfd_seal(memfd) == 0 else { throw .errno("sealing the memfd") }  // udmabuf needs F_SEAL_SHRINK
            let base = try map(memfd, size: size, holder: holder, what: "the memfd")
            TestPattern.writeXRGB(to: base, pitch: pitch)
            // struct udmabuf_create { u32 memfd; u32 flags; u64 offset; u64 size }, flags UDMABUF_FLAGS_CLOEXEC.
            var create: [UInt64] = [UInt64(UInt32(memfd)) | (1 << 32), 0, UInt64(size)]
            let dmabuf = drmIoctl(device, 0x4018_7542, &create)  // UDMABUF_CREATE = _IOW('u', 0x42, 24 bytes)
            guard dmabuf >= 0 else { throw .errno("UDMABUF_CREATE") }
            return picture(fd: own(dmabuf, holder), offset: 0, pitch: pitch, fourcc: DRMFourCC.xrgb8888, modifier: nil,
                           holder: holder, copy: { TestPattern.readXRGB(from: base, pitch: pitch) })
        case .dmaHeap:
            let heap = open("/dev/dma_heap/system", O_RDWR | O_CLOEXEC)
            guard heap >= 0 else { throw .errno("open /dev/dma_heap/system") }
            _ = own(heap, holder)
            let pitch = w * 4, size = (pitch * h + 4095) / 4096 * 4096
            // struct dma_heap_allocation_data { u64 len; u32 fd; u32 fd_flags; u64 heap_flags }.
            var allocation: [UInt64] = [UInt64(size), UInt64(UInt32(O_RDWR | O_CLOEXEC)) << 32, 0]
            guard drmIoctl(heap, 0xC018_4800, &allocation) == 0 else { throw .errno("DMA_HEAP_IOCTL_ALLOC") }
            let dmabuf = own(Int32(truncatingIfNeeded: allocation[1] & 0xFFFF_FFFF), holder)
            let base = try map(dmabuf, size: size, holder: holder, what: "the heap buffer")
            var sync: UInt64 = 2  // DMA_BUF_SYNC_START | DMA_BUF_SYNC_WRITE
            _ = drmIoctl(dmabuf, 0x4008_6200, &sync)  // DMA_BUF_IOCTL_SYNC
            TestPattern.writeXRGB(to: base, pitch: pitch)
            sync = 6  // DMA_BUF_SYNC_END | DMA_BUF_SYNC_WRITE
            _ = drmIoctl(dmabuf, 0x4008_6200, &sync)
            return picture(fd: dmabuf, offset: 0, pitch: pitch, fourcc: DRMFourCC.xrgb8888, modifier: nil,
                           holder: holder, copy: { TestPattern.readXRGB(from: base, pitch: pitch) })
        }
    }

    private func picture(fd: Int32, offset: Int, pitch: Int, fourcc: UInt32, modifier: UInt64?, holder: Holder,
                         copy: (() -> Bitmap)?) -> DMABufPicture {
        DMABufPicture(width: TestPattern.width, height: TestPattern.height, fourcc: fourcc, modifier: modifier,
                      planes: [.init(fd: fd, offset: offset, pitch: pitch)], hasAlpha: false, keeper: holder) { copy?() }
    }

    private func firstRenderNode() throws(Unavailable) -> String {
        guard let directory = opendir("/dev/dri") else { throw .errno("opendir /dev/dri") }
        defer { closedir(directory) }
        var nodes: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name.hasPrefix("renderD") { nodes.append("/dev/dri/" + name) }
        }
        guard let first = nodes.sorted().first else { throw Unavailable("no render node in /dev/dri") }
        return first
    }

    /// A texture of the current context filled with the pattern, made an EGLImage and exported
    /// as a dma-buf (EGL_KHR_gl_texture_2D_image, EGL_MESA_image_dma_buf_export).
    private func exportTexture(display: EGLDisplayConnection, holder: Holder) throws(Unavailable) -> DMABufPicture {
        guard display.extensions.contains("EGL_MESA_image_dma_buf_export") else {
            throw Unavailable("the EGL display lacks EGL_MESA_image_dma_buf_export")
        }
        guard let queryAddress = eglGetProcAddress("eglExportDMABUFImageQueryMESA"),
              let exportAddress = eglGetProcAddress("eglExportDMABUFImageMESA") else {
            throw Unavailable("eglGetProcAddress found no image export functions")
        }
        let query = unsafeBitCast(queryAddress, to: PFNEGLEXPORTDMABUFIMAGEQUERYMESAPROC.self)
        let export = unsafeBitCast(exportAddress, to: PFNEGLEXPORTDMABUFIMAGEMESAPROC.self)
        let image = try TestPattern.image(display: display, holder: holder)
        var fourcc: Int32 = 0, planes: Int32 = 0
        var modifiers = [EGLuint64KHR](repeating: 0, count: 4)
        guard query(display.handle, image, &fourcc, &planes, &modifiers) == EGL_TRUE else {
            throw Unavailable("eglExportDMABUFImageQueryMESA: \(EGLError.name(ofCode: eglGetError()))")
        }
        guard planes == 1 else { throw Unavailable("the driver exports the texture in \(planes) planes") }
        var fds = [Int32](repeating: -1, count: 4)
        var strides = [EGLint](repeating: 0, count: 4), offsets = [EGLint](repeating: 0, count: 4)
        guard export(display.handle, image, &fds, &strides, &offsets) == EGL_TRUE, fds[0] >= 0 else {
            throw Unavailable("eglExportDMABUFImageMESA: \(EGLError.name(ofCode: eglGetError()))")
        }
        let fd = own(fds[0], holder)
        // The texture's alpha is 1 everywhere: the same bytes described without alpha, as an
        // opaque decoder picture is (the importer takes no straight alpha).
        let exported = UInt32(bitPattern: fourcc)
        let opaque: [UInt32: UInt32] = [DRMFourCC.abgr8888: DRMFourCC.xbgr8888, DRMFourCC.argb8888: DRMFourCC.xrgb8888,
                                        DRMFourCC.xbgr8888: DRMFourCC.xbgr8888, DRMFourCC.xrgb8888: DRMFourCC.xrgb8888]
        guard let format = opaque[exported] else {
            throw Unavailable("the driver exports the texture as \(DRMFourCC.name(exported)), not a packed 8-bit RGB format")
        }
        let modifier = modifiers[0] == DRMFourCC.invalidModifier ? nil : UInt64(modifiers[0])
        return picture(fd: fd, offset: Int(offsets[0]), pitch: Int(strides[0]), fourcc: format, modifier: modifier,
                       holder: holder, copy: nil)
    }
}
