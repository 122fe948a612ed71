#if canImport(Glibc)
import Glibc
#endif
import CDRM
import CGBM
import LaminaCompositor

/// A DRM framebuffer over a buffer's planes, removed when released: the one import that the
/// primary plane's GBM buffers, an overlay plane's dma-buf pictures and the cursor's dumb
/// buffer go through (wlroots' `drm_fb_import`, weston's `drm_fb_get_from_bo` and
/// `drm_fb_get_from_dmabuf`).
/// AddFB2 carries the buffer's modifier where it has one and the device takes modifiers, and
/// none otherwise (virtio-gpu).
final class DRMFramebuffer {
    let id: UInt32
    /// The picture it was imported from, held so that the decoder does not reuse its buffer
    /// while a plane may still scan it out; nil for a GBM buffer's.
    let picture: DMABufPicture?
    private let fd: Int32

    /// What AddFB2 takes: the size, format and modifier, and up to four planes' GEM handle,
    /// pitch and offset (fixed arrays: making a framebuffer allocates nothing but itself).
    private struct Layout {
        var width: UInt32
        var height: UInt32
        var fourcc: UInt32
        /// nil (or `DRMFormat.invalidModifier`): implicit, as the buffer's maker chose.
        var modifier: UInt64?
        var count = 0
        var handles: (UInt32, UInt32, UInt32, UInt32) = (0, 0, 0, 0)
        var pitches: (UInt32, UInt32, UInt32, UInt32) = (0, 0, 0, 0)
        var offsets: (UInt32, UInt32, UInt32, UInt32) = (0, 0, 0, 0)

        /// Plane `count` (at most the fourth).
        mutating func append(handle: UInt32, pitch: UInt32, offset: UInt32) {
            Self.set(&handles, count, handle)
            Self.set(&pitches, count, pitch)
            Self.set(&offsets, count, offset)
            count += 1
        }

        /// The GEM handle of plane `i`.
        func handle(_ i: Int) -> UInt32 {
            withUnsafeBytes(of: handles) { $0.load(fromByteOffset: i * 4, as: UInt32.self) }
        }

        private static func set(_ tuple: inout (UInt32, UInt32, UInt32, UInt32), _ i: Int, _ value: UInt32) {
            withUnsafeMutableBytes(of: &tuple) { $0.storeBytes(of: value, toByteOffset: i * 4, as: UInt32.self) }
        }
    }

    /// Makes the framebuffer; `what` names the buffer in an error ("dma-buf").
    /// The corresponding C functions are `drmModeAddFB2WithModifiers` and `drmModeAddFB2`.
    private init(_ layout: Layout, on drm: DRMDevice, what: String, picture: DMABufPicture?) throws(DRMError) {
        var layout = layout
        let modifier = layout.modifier.flatMap { $0 == DRMFormat.invalidModifier ? nil : $0 }
        var modifiers: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        withUnsafeMutableBytes(of: &modifiers) { m in
            for i in 0..<layout.count { m.storeBytes(of: modifier ?? 0, toByteOffset: i * 8, as: UInt64.self) }
        }
        var id: UInt32 = 0
        let (width, height, fourcc) = (layout.width, layout.height, layout.fourcc)
        let result = withUnsafePointer(to: &layout.handles.0) { h in
            withUnsafePointer(to: &layout.pitches.0) { p in
                withUnsafePointer(to: &layout.offsets.0) { o in
                    withUnsafePointer(to: &modifiers.0) { m in
                        modifier != nil && drm.supportsModifiers
                            ? drmModeAddFB2WithModifiers(drm.fd, width, height, fourcc, h, p, o, m, &id, UInt32(DRM_MODE_FB_MODIFIERS))
                            : drmModeAddFB2(drm.fd, width, height, fourcc, h, p, o, &id, 0)
                    }
                }
            }
        }
        try drmCheck("\(modifier != nil && drm.supportsModifiers ? "drmModeAddFB2WithModifiers" : "drmModeAddFB2")"
                     + "(\(width)x\(height) \(DRMFourCC.name(fourcc)) \(what))", result)
        self.id = id
        self.picture = picture
        fd = drm.fd
    }

    deinit { drmModeRmFB(fd, id) }

    /// The framebuffer of GBM buffer `bo`, made on first use and cached on the buffer
    /// (gbm_bo_set_user_data), so each of a surface's few buffers gets one; GBM's destroy
    /// callback removes it when the buffer goes.
    /// The corresponding C functions are `gbm_bo_get_user_data` and `gbm_bo_set_user_data`.
    static func of(_ bo: OpaquePointer, on drm: DRMDevice) throws(DRMError) -> DRMFramebuffer {
        if let cached = gbm_bo_get_user_data(bo) {
            return Unmanaged<DRMFramebuffer>.fromOpaque(cached).takeUnretainedValue()
        }
        var layout = Layout(width: gbm_bo_get_width(bo), height: gbm_bo_get_height(bo), fourcc: gbm_bo_get_format(bo),
                            modifier: gbm_bo_get_modifier(bo))
        for i in 0..<max(1, min(4, Int(gbm_bo_get_plane_count(bo)))) {
            layout.append(handle: gbm_bo_get_handle_for_plane(bo, Int32(i)).u32, pitch: gbm_bo_get_stride_for_plane(bo, Int32(i)),
                          offset: gbm_bo_get_offset(bo, Int32(i)))
        }
        let framebuffer = try DRMFramebuffer(layout, on: drm, what: "GBM buffer", picture: nil)
        // The buffer owns one reference; GBM drops it when the buffer is destroyed.
        gbm_bo_set_user_data(bo, Unmanaged.passRetained(framebuffer).toOpaque()) { _, data in
            if let data { Unmanaged<DRMFramebuffer>.fromOpaque(data).release() }
        }
        return framebuffer
    }

    /// The framebuffer over a one-plane buffer the caller made and keeps (the cursor's dumb
    /// buffer): its GEM handle and pitch, at offset 0, with no modifier (linear). The caller
    /// destroys the buffer after releasing the framebuffer; `what` names it in an error.
    convenience init(width: UInt32, height: UInt32, fourcc: UInt32, handle: UInt32, pitch: UInt32,
                     on drm: DRMDevice, what: String) throws(DRMError) {
        var layout = Layout(width: width, height: height, fourcc: fourcc, modifier: nil)
        layout.append(handle: handle, pitch: pitch, offset: 0)
        try self.init(layout, on: drm, what: what, picture: nil)
    }

    /// The framebuffer over a video picture's dma-buf, for an overlay plane: imports each
    /// plane's descriptor as a GEM handle, makes the framebuffer, then closes the handles (the
    /// framebuffer keeps its own reference to the buffer).
    /// The corresponding C functions are `drmPrimeFDToHandle` and `drmCloseBufferHandle`.
    convenience init(_ picture: DMABufPicture, on drm: DRMDevice) throws(DRMError) {
        let planes = picture.planes
        guard (1...4).contains(planes.count) else {
            throw DRMError("a framebuffer of \(planes.count) planes", errno: EINVAL)
        }
        guard let width = UInt32(exactly: picture.width), let height = UInt32(exactly: picture.height), width > 0, height > 0 else {
            throw DRMError("a \(picture.width)x\(picture.height) framebuffer", errno: EINVAL)
        }
        var layout = Layout(width: width, height: height, fourcc: picture.fourcc, modifier: picture.modifier)
        // Planes in one buffer share a handle: each is closed once.
        defer {
            for i in 0..<layout.count where !(0..<i).contains(where: { layout.handle($0) == layout.handle(i) }) {
                _ = drmCloseBufferHandle(drm.fd, layout.handle(i))
            }
        }
        for plane in planes {
            guard let pitch = UInt32(exactly: plane.pitch), let offset = UInt32(exactly: plane.offset) else {
                throw DRMError("a framebuffer plane at offset \(plane.offset), pitch \(plane.pitch)", errno: EINVAL)
            }
            var handle: UInt32 = 0
            try drmCheck("drmPrimeFDToHandle(dma-buf \(plane.fd))", drmPrimeFDToHandle(drm.fd, plane.fd, &handle))
            layout.append(handle: handle, pitch: pitch, offset: offset)
        }
        try self.init(layout, on: drm, what: "dma-buf", picture: picture)
    }
}
