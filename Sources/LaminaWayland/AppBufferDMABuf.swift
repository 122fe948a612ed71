#if canImport(Glibc)
import Glibc
#endif
import CWlroots
import LaminaCore
import LaminaCompositor

/// An app's committed dma-buf as laminad shows it: a `DMABufPicture` over laminad's own copy
/// of the descriptor (so the picture stays valid whatever the app does with its buffer), which
/// the renderer imports in place or, where it cannot, maps and copies (`copyPixels`).
///
/// The picture also keeps the app's buffer locked, so the app is not told to reuse it
/// (`wl_buffer.release`) while laminad may still read it: until no image, frame or overlay
/// plane holds the picture (the frame showing the app's next buffer has been drawn, or the
/// plane shows another framebuffer).
enum AppBufferDMABuf {
    /// The descriptor laminad holds and the lock on the app's buffer, both given up when the
    /// last picture over them goes (on laminad's loop thread, where pictures live).
    final class Descriptor: @unchecked Sendable {
        let fd: Int32
        private let buffer: UnsafeMutablePointer<wlr_buffer>
        init(_ fd: Int32, locking buffer: UnsafeMutablePointer<wlr_buffer>) {
            self.fd = fd
            self.buffer = wlr_buffer_lock(buffer)
        }
        deinit {
            close(fd)
            wlr_buffer_unlock(buffer)
        }
    }

    /// The picture of `buffer` (nil when it is not a dma-buf), or why it cannot be shown.
    static func picture(of buffer: UnsafeMutablePointer<wlr_buffer>) -> Result<DMABufPicture, Refusal>? {
        var a = wlr_dmabuf_attributes()
        guard wlr_buffer_get_dmabuf(buffer, &a) else { return nil }
        let format = a.format
        guard DRMFourCC.packedRGB.contains(format), a.n_planes == 1 else {
            return .failure(Refusal(message: "a dma-buf of format \(DRMFourCC.name(format)) with \(a.n_planes) planes is not one laminad shows"))
        }
        let width = Int(a.width), height = Int(a.height), stride = Int(a.stride.0), offset = Int(a.offset.0)
        guard width > 0, height > 0, stride >= width * 4 else {
            return .failure(Refusal(message: "a dma-buf's stride \(stride) is under its width \(width) × 4"))
        }
        let duplicate = fcntl(a.fd.0, F_DUPFD_CLOEXEC, 3)
        guard duplicate >= 0 else {
            return .failure(Refusal(message: "laminad could not hold the dma-buf's descriptor (errno \(errno))"))
        }
        let descriptor = Descriptor(duplicate, locking: buffer)
        let hasAlpha = format == DRMFourCC.argb8888 || format == DRMFourCC.abgr8888
        let modifier: UInt64? = a.modifier == DRMFourCC.invalidModifier ? nil : a.modifier
        let picture = DMABufPicture(appBuffer: width, height: height, fourcc: format, modifier: modifier,
                                    plane: DMABufPicture.Plane(fd: duplicate, offset: offset, pitch: stride), hasAlpha: hasAlpha,
                                    keeper: descriptor) {
            copyPixels(descriptor, width: width, height: height, offset: offset, stride: stride, fourcc: format,
                       linear: modifier == nil || modifier == DRMFourCC.linearModifier)
        }
        return .success(picture)
    }

    /// Whether `fd` is a dma-buf (the kernel names its file "/dmabuf:…"), not a file an app
    /// could shrink under laminad's mapping.
    static func isDMABuf(_ fd: Int32) -> Bool {
        var link = [CChar](repeating: 0, count: 64)
        let n = readlink("/proc/self/fd/\(fd)", &link, link.count - 1)
        guard n > 0 else { return false }
        return String(decoding: link.prefix(n).map { UInt8(bitPattern: $0) }, as: UTF8.self).hasPrefix("/dmabuf:")
    }

    struct Refusal: Error {
        var message: String
    }

    /// The buffer's pixels as premultiplied RGBA, mapped read-only (a linear buffer only: a
    /// tiled one's rows are not where the CPU looks, so nil). An app's buffer is premultiplied
    /// already (`PackedPixels`).
    static func copyPixels(_ descriptor: Descriptor, width: Int, height: Int, offset: Int, stride: Int, fourcc: UInt32,
                           linear: Bool) -> Bitmap? {
        guard linear else { return nil }
        let length = offset + stride * height
        // wlroots checked the plane fits the buffer (its size by lseek) when the app made it.
        let size = lseek(descriptor.fd, 0, SEEK_END)
        guard size < 0 || Int(size) >= length else { return nil }
        guard let map = mmap(nil, length, PROT_READ, MAP_SHARED, descriptor.fd, 0), map != MAP_FAILED else { return nil }
        defer { munmap(map, length) }
        return PackedPixels.bitmap(UnsafeRawPointer(map) + offset, width: width, height: height, rowBytes: stride, fourcc: fourcc,
                                   premultiplied: true)?.bitmap
    }
}
