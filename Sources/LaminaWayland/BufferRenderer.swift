#if canImport(Glibc)
import Glibc
#endif
import CWlroots
import LaminaCompositor

/// The `wlr_renderer` wlroots' protocol types are given: it never draws, it only tells them
/// which client buffers laminad can show, and wraps each committed one for `wlr_compositor`.
///
/// - `wl_shm` buffers go to wlroots' pixman renderer, which wraps the shm pages without a copy
///   (laminad copies the damaged pixels out itself, `SurfaceView`).
/// - dma-bufs (`zwp_linux_dmabuf_v1`, offered once `offerDMABufs` names the formats laminad's
///   renderer shows and the DRM device apps allocate on) are accepted when their format,
///   modifier, plane count and size are ones laminad shows; the texture handed back is a token
///   that keeps the client's buffer locked while it is the surface's current one. laminad's own
///   renderer imports the buffer (`DMABufPicture`), or maps and copies it where it cannot.
///
/// wlroots' renderer interface is a table of C functions over a `wlr_renderer` it does not
/// allocate; the renderer and its state sit in one allocation (`Allocation`), so each function
/// finds its state from the pointer wlroots passes.
final class BufferRenderer {
    /// The `wlr_renderer` to hand wlroots.
    let renderer: UnsafeMutablePointer<wlr_renderer>
    private let pixman: UnsafeMutablePointer<wlr_renderer>
    /// The dma-buf formats offered (empty until `offerDMABufs`).
    private let formats: UnsafeMutablePointer<wlr_drm_format_set>
    private var offered: [UInt32: Set<UInt64>] = [:]
    /// The DRM device apps allocate dma-bufs on (laminad's, not owned), -1 without one.
    private var drmFD: Int32 = -1
    /// The largest buffer, in pixels, accepted (`[wayland] max_buffer_pixels`).
    let maxPixels: Int
    /// dma-bufs refused at import (a format, modifier, plane count or size laminad does not show).
    private(set) var refusedDMABufs = 0
    private(set) var lastRefusal: String?

    /// wlroots' renderer and the state behind it, in one allocation.
    private struct Allocation {
        var renderer: wlr_renderer
        var state: Unmanaged<BufferRenderer>
    }
    /// A dma-buf's token texture and the buffer it keeps locked.
    private struct Token {
        var texture: wlr_texture
        var buffer: UnsafeMutablePointer<wlr_buffer>
    }

    init?(maxPixels: Int) {
        guard let pixman = wlr_pixman_renderer_create() else { return nil }
        self.pixman = pixman
        self.maxPixels = maxPixels
        formats = .allocate(capacity: 1)
        formats.initialize(to: wlr_drm_format_set())
        let allocation = UnsafeMutablePointer<Allocation>.allocate(capacity: 1)
        renderer = UnsafeMutableRawPointer(allocation).assumingMemoryBound(to: wlr_renderer.self)
        allocation.initialize(to: Allocation(renderer: wlr_renderer(), state: .passUnretained(self)))
        wlr_renderer_init(renderer, Self.table)
    }

    /// Offers dma-bufs of `formats` from the DRM device `drmFD` (laminad's, kept open by its
    /// backend): `wlroots` then serves `zwp_linux_dmabuf_v1` with them. Returns false when
    /// wlroots could not make the global.
    func offerDMABufs(_ formats: [DMABufFormat], drmFD: Int32, display: OpaquePointer) -> Bool {
        for f in formats {
            offered[f.fourcc] = Set(f.modifiers)
            // The implicit modifier always: a format with no explicit one is offered at all.
            for m in f.modifiers + [DRMFourCC.invalidModifier] { _ = wlr_drm_format_set_add(self.formats, f.fourcc, m) }
        }
        self.drmFD = drmFD
        return wlr_linux_dmabuf_v1_create(display, renderer) != nil
    }

    /// Whether a dma-buf with these attributes is one laminad shows; nil, or why not.
    func refusal(of a: wlr_dmabuf_attributes) -> String? {
        let name = DRMFourCC.name(a.format)
        guard let modifiers = offered[a.format] else { return "format \(name) is not one laminad offered" }
        // An implicit modifier (DRM_FORMAT_MOD_INVALID) is always offered, as wlroots does.
        guard a.modifier == DRMFourCC.invalidModifier || modifiers.contains(a.modifier) else {
            return "modifier 0x\(String(a.modifier, radix: 16)) is not one laminad offered for \(name)"
        }
        guard a.n_planes == 1 else { return "\(name) has one plane; the buffer has \(a.n_planes)" }
        guard AppBufferDMABuf.isDMABuf(a.fd.0) else { return "the buffer's descriptor is not a dma-buf" }
        guard a.width > 0, a.height > 0, Int(a.width) * Int(a.height) <= maxPixels else {
            return "a \(a.width) × \(a.height) buffer is over [wayland] max_buffer_pixels (\(maxPixels))"
        }
        return nil
    }

    private static func state(_ r: UnsafeMutablePointer<wlr_renderer>?) -> BufferRenderer {
        UnsafeMutableRawPointer(r!).assumingMemoryBound(to: Allocation.self).pointee.state.takeUnretainedValue()
    }

    private func texture(from buffer: UnsafeMutablePointer<wlr_buffer>) -> UnsafeMutablePointer<wlr_texture>? {
        var attributes = wlr_dmabuf_attributes()
        guard wlr_buffer_get_dmabuf(buffer, &attributes) else { return wlr_texture_from_buffer(pixman, buffer) }
        if let why = refusal(of: attributes) {
            refusedDMABufs += 1
            lastRefusal = why
            return nil
        }
        let token = UnsafeMutablePointer<Token>.allocate(capacity: 1)
        token.initialize(to: Token(texture: wlr_texture(), buffer: wlr_buffer_lock(buffer)))
        let texture = UnsafeMutableRawPointer(token).assumingMemoryBound(to: wlr_texture.self)
        wlr_texture_init(texture, Self.tokenTable, UInt32(attributes.width), UInt32(attributes.height))
        return texture
    }

    private func destroyed() {
        wlr_renderer_destroy(pixman)
        wlr_drm_format_set_finish(formats)
        formats.deinitialize(count: 1)
        formats.deallocate()
        let allocation = UnsafeMutableRawPointer(renderer).assumingMemoryBound(to: Allocation.self)
        allocation.deinitialize(count: 1)
        allocation.deallocate()
    }

    /// A token's table: it only ever unlocks its buffer when wlroots is done with it.
    nonisolated(unsafe) private static let tokenTable: UnsafeMutablePointer<wlr_texture_impl> = {
        let table = UnsafeMutablePointer<wlr_texture_impl>.allocate(capacity: 1)
        table.initialize(to: wlr_texture_impl())
        table.pointee.destroy = { texture in
            guard let texture else { return }
            let token = UnsafeMutableRawPointer(texture).assumingMemoryBound(to: Token.self)
            wlr_buffer_unlock(token.pointee.buffer)
            token.deinitialize(count: 1)
            token.deallocate()
        }
        return table
    }()

    /// The renderer's table: what wlroots asks of it. Nothing here draws (wlroots' protocol
    /// code never does; only a compositor drawing through wlroots would).
    nonisolated(unsafe) private static let table: UnsafeMutablePointer<wlr_renderer_impl> = {
        let table = UnsafeMutablePointer<wlr_renderer_impl>.allocate(capacity: 1)
        table.initialize(to: wlr_renderer_impl())
        table.pointee.begin = { _, _, _ in }
        table.pointee.clear = { _, _ in }
        table.pointee.scissor = { _, _ in }
        table.pointee.render_subtexture_with_matrix = { _, _, _, _, _ in false }
        table.pointee.render_quad_with_matrix = { _, _, _ in }
        table.pointee.get_shm_texture_formats = { r, count in
            wlr_renderer_get_shm_texture_formats(state(r).pixman, count)
        }
        table.pointee.get_dmabuf_texture_formats = { r in
            let s = state(r)
            return s.offered.isEmpty ? nil : UnsafePointer(s.formats)
        }
        table.pointee.get_drm_fd = { r in state(r).drmFD }
        table.pointee.get_render_buffer_caps = { _ in 0 }
        table.pointee.texture_from_buffer = { r, buffer in
            guard let buffer else { return nil }
            return state(r).texture(from: buffer)
        }
        table.pointee.destroy = { r in state(r).destroyed() }
        return table
    }()
}
