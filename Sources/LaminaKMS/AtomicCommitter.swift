#if canImport(Glibc)
import Glibc
#endif
import CDRM
import LaminaCompositor
import LaminaCore

/// Atomic modesetting (kmscube's drm-atomic.c, wlroots' backend/drm/atomic.c): every change is
/// one request of object properties, tested with TEST_ONLY before a new configuration is
/// committed, and page flips are NONBLOCK commits that send a page-flip event.
public final class AtomicCommitter: KMSCommitter {
    private let drm: DRMDevice
    /// The mode blob each CRTC scans out now, destroyed when replaced.
    private var modeBlobs: [UInt32: UInt32] = [:]

    /// Fails where the driver refuses the atomic client capability.
    public init(drm: DRMDevice) throws(DRMError) {
        guard drm.supportsAtomic || drm.enableAtomic() else {
            throw DRMError("drmSetClientCap(DRM_CLIENT_CAP_ATOMIC) on \(drm.path)", errno: EOPNOTSUPP)
        }
        self.drm = drm
    }

    deinit {
        for blob in modeBlobs.values { drmModeDestroyPropertyBlob(drm.fd, blob) }
    }

    public var name: String { "atomic" }

    /// The corresponding C functions are `drmModeCreatePropertyBlob` and `drmModeAtomicCommit`
    /// (TEST_ONLY, then ALLOW_MODESET).
    public func modeset(_ target: CommitTarget, framebuffer: UInt32) throws(DRMError) {
        let blob = try modeBlob(target)
        do throws(DRMError) {
            let request = try modesetRequest(target, framebuffer: framebuffer, blob: blob)
            let flags = UInt32(DRM_MODE_ATOMIC_ALLOW_MODESET)
            try request.commit(drm, flags: flags | UInt32(DRM_MODE_ATOMIC_TEST_ONLY), what: "TEST_ONLY modeset of \(target.connector.name) \(target.mode)")
            try request.commit(drm, flags: flags, what: "modeset of \(target.connector.name) \(target.mode)")
        } catch {
            drmModeDestroyPropertyBlob(drm.fd, blob)
            throw error
        }
        if let old = modeBlobs.updateValue(blob, forKey: target.crtc) { drmModeDestroyPropertyBlob(drm.fd, old) }
    }

    /// The modeset `modeset` would make, as TEST_ONLY only. The corresponding C function is
    /// `drmModeAtomicCommit` (TEST_ONLY | ALLOW_MODESET).
    public func testModeset(_ target: CommitTarget, framebuffer: UInt32) throws(DRMError) -> Bool {
        let blob = try modeBlob(target)
        defer { drmModeDestroyPropertyBlob(drm.fd, blob) }
        let request = try modesetRequest(target, framebuffer: framebuffer, blob: blob)
        try request.commit(drm, flags: UInt32(DRM_MODE_ATOMIC_ALLOW_MODESET | DRM_MODE_ATOMIC_TEST_ONLY),
                           what: "TEST_ONLY modeset of \(target.connector.name) \(target.mode)")
        return true
    }

    /// The mode as a property blob (the caller destroys it, or keeps it while the CRTC shows it).
    private func modeBlob(_ target: CommitTarget) throws(DRMError) -> UInt32 {
        var info = target.mode.info
        var blob: UInt32 = 0
        try drmCheck("drmModeCreatePropertyBlob(mode \(target.mode))",
                     drmModeCreatePropertyBlob(drm.fd, &info, MemoryLayout<drmModeModeInfo>.size, &blob))
        return blob
    }

    /// Connector → CRTC, the CRTC's mode and activity, the primary plane with `framebuffer`, a
    /// lit overlay cleared, and the cursor plane as it should be.
    private func modesetRequest(_ target: CommitTarget, framebuffer: UInt32, blob: UInt32) throws(DRMError) -> AtomicRequest {
        let request = try AtomicRequest()
        try request.add(target.connector.id, target.connector.properties, "CRTC_ID", UInt64(target.crtc), target.connector.name)
        try request.add(target.crtc, target.crtcProperties, "MODE_ID", UInt64(blob), "CRTC \(target.crtc)")
        try request.add(target.crtc, target.crtcProperties, "ACTIVE", 1, "CRTC \(target.crtc)")
        try addPlane(request, target, framebuffer: framebuffer)
        if let lit = target.litOverlay { try clear(lit, in: request) }
        if let plane = target.cursorPlane {
            // The cursor plane keeps this state through the page flips, which touch only the
            // primary plane; the legacy cursor ioctls move it in between.
            let what = "cursor plane \(plane.id)"
            if let cursor = target.cursor {
                try request.add(plane.id, plane.properties, "FB_ID", UInt64(cursor.framebuffer), what)
                try request.add(plane.id, plane.properties, "CRTC_ID", UInt64(target.crtc), what)
                try request.add(plane.id, plane.properties, "SRC_X", 0, what)
                try request.add(plane.id, plane.properties, "SRC_Y", 0, what)
                try request.add(plane.id, plane.properties, "SRC_W", UInt64(cursor.width) << 16, what)
                try request.add(plane.id, plane.properties, "SRC_H", UInt64(cursor.height) << 16, what)
                try request.add(plane.id, plane.properties, "CRTC_X", UInt64(bitPattern: Int64(cursor.x)), what)
                try request.add(plane.id, plane.properties, "CRTC_Y", UInt64(bitPattern: Int64(cursor.y)), what)
                try request.add(plane.id, plane.properties, "CRTC_W", UInt64(cursor.width), what)
                try request.add(plane.id, plane.properties, "CRTC_H", UInt64(cursor.height), what)
            } else {
                try request.add(plane.id, plane.properties, "FB_ID", 0, what)
                try request.add(plane.id, plane.properties, "CRTC_ID", 0, what)
            }
        }
        return request
    }

    /// Where the primary plane has `FB_DAMAGE_CLIPS`, the damage goes with the flip as a blob
    /// of `drm_mode_rect`s (virtual GPUs and display links then transfer only that); without
    /// damage, or without the property, the whole framebuffer counts as changed.
    /// The corresponding C functions are `drmModeCreatePropertyBlob` and `drmModeAtomicCommit`
    /// (NONBLOCK | PAGE_FLIP_EVENT).
    public func pageFlip(_ target: CommitTarget, framebuffer: UInt32, damage: DamageRegion?, userData: UnsafeMutableRawPointer?) throws(DRMError) {
        try pageFlip([PageFlip(target: target, framebuffer: framebuffer, damage: damage)], userData: userData)
    }

    /// Every output's plane (and its damage clips, and its overlay plane) in one NONBLOCK
    /// commit: the kernel applies all or none, and sends one page-flip event per CRTC.
    public func pageFlip(_ flips: [PageFlip], userData: UnsafeMutableRawPointer?) throws(DRMError) {
        guard !flips.isEmpty else { return }
        let request = try AtomicRequest()
        var blobs: [UInt32] = []
        defer { for b in blobs { drmModeDestroyPropertyBlob(drm.fd, b) } }
        for flip in flips {
            try add(flip, to: request, blobs: &blobs)
        }
        let names = flips.map(\.target.connector.name).joined(separator: ", ")
        try request.commit(drm, flags: UInt32(DRM_MODE_ATOMIC_NONBLOCK) | UInt32(DRM_MODE_PAGE_FLIP_EVENT),
                           userData: userData, what: "page flip on \(names)")
    }

    /// Asks the driver whether it would take `flip` (TEST_ONLY): nothing changes on screen.
    /// The corresponding C function is `drmModeAtomicCommit` (TEST_ONLY).
    public func test(_ flip: PageFlip) throws(DRMError) {
        let request = try AtomicRequest()
        var blobs: [UInt32] = []
        defer { for b in blobs { drmModeDestroyPropertyBlob(drm.fd, b) } }
        try add(flip, to: request, blobs: &blobs)
        try request.commit(drm, flags: UInt32(DRM_MODE_ATOMIC_TEST_ONLY), what: "TEST_ONLY of an overlay plane on \(flip.target.connector.name)")
    }

    /// One output's part of a flip: its primary plane with its damage clips, its overlay
    /// plane's picture or the overlay plane that goes off.
    private func add(_ flip: PageFlip, to request: AtomicRequest, blobs: inout [UInt32]) throws(DRMError) {
        let target = flip.target
        try addPlane(request, target, framebuffer: flip.framebuffer)
        if let damage = flip.damage, !damage.isEmpty, target.plane.properties.ids["FB_DAMAGE_CLIPS"] != nil {
            let w = Double(target.mode.width), h = Double(target.mode.height)
            var rects = damage.clipped(to: PixelBox(x0: 0, y0: 0, x1: w, y1: h)).boxes.map {
                drm_mode_rect(x1: Int32(saturating: $0.x0), y1: Int32(saturating: $0.y0), x2: Int32(saturating: $0.x1), y2: Int32(saturating: $0.y1))
            }
            if !rects.isEmpty {
                var blob: UInt32 = 0
                try drmCheck("drmModeCreatePropertyBlob(FB_DAMAGE_CLIPS, \(rects.count) rectangles)",
                             drmModeCreatePropertyBlob(drm.fd, &rects, rects.count * MemoryLayout<drm_mode_rect>.stride, &blob))
                blobs.append(blob)
                try request.add(target.plane.id, target.plane.properties, "FB_DAMAGE_CLIPS", UInt64(blob), "plane \(target.plane.id)")
            }
        }
        if let cleared = flip.clearedOverlay { try clear(cleared, in: request) }
        if let o = flip.overlay {
            let plane = o.plane, what = "overlay plane \(plane.id)"
            try request.add(plane.id, plane.properties, "FB_ID", UInt64(o.framebuffer), what)
            try request.add(plane.id, plane.properties, "CRTC_ID", UInt64(target.crtc), what)
            try request.add(plane.id, plane.properties, "SRC_X", o.source.x, what)
            try request.add(plane.id, plane.properties, "SRC_Y", o.source.y, what)
            try request.add(plane.id, plane.properties, "SRC_W", o.source.width, what)
            try request.add(plane.id, plane.properties, "SRC_H", o.source.height, what)
            try request.add(plane.id, plane.properties, "CRTC_X", UInt64(bitPattern: Int64(o.destination.x)), what)
            try request.add(plane.id, plane.properties, "CRTC_Y", UInt64(bitPattern: Int64(o.destination.y)), what)
            try request.add(plane.id, plane.properties, "CRTC_W", UInt64(o.destination.width), what)
            try request.add(plane.id, plane.properties, "CRTC_H", UInt64(o.destination.height), what)
        }
    }

    /// Turns `plane` off in `request`.
    private func clear(_ plane: DRMPlane, in request: AtomicRequest) throws(DRMError) {
        try request.add(plane.id, plane.properties, "FB_ID", 0, "overlay plane \(plane.id)")
        try request.add(plane.id, plane.properties, "CRTC_ID", 0, "overlay plane \(plane.id)")
    }

    public var flipsOutputsTogether: Bool { true }

    /// The corresponding C function is `drmModeAtomicCommit` (ALLOW_MODESET, everything off).
    public func disable(_ target: CommitTarget) throws(DRMError) {
        let request = try AtomicRequest()
        try request.add(target.connector.id, target.connector.properties, "CRTC_ID", 0, target.connector.name)
        try request.add(target.crtc, target.crtcProperties, "MODE_ID", 0, "CRTC \(target.crtc)")
        try request.add(target.crtc, target.crtcProperties, "ACTIVE", 0, "CRTC \(target.crtc)")
        try request.add(target.plane.id, target.plane.properties, "FB_ID", 0, "plane \(target.plane.id)")
        try request.add(target.plane.id, target.plane.properties, "CRTC_ID", 0, "plane \(target.plane.id)")
        if let lit = target.litOverlay { try clear(lit, in: request) }
        if let plane = target.cursorPlane {
            try request.add(plane.id, plane.properties, "FB_ID", 0, "cursor plane \(plane.id)")
            try request.add(plane.id, plane.properties, "CRTC_ID", 0, "cursor plane \(plane.id)")
        }
        try request.commit(drm, flags: UInt32(DRM_MODE_ATOMIC_ALLOW_MODESET), what: "disabling \(target.connector.name)")
        if let old = modeBlobs.removeValue(forKey: target.crtc) { drmModeDestroyPropertyBlob(drm.fd, old) }
    }

    /// The whole mode on the primary plane: source in 16.16 fixed point, destination in pixels.
    private func addPlane(_ request: AtomicRequest, _ target: CommitTarget, framebuffer: UInt32) throws(DRMError) {
        let plane = target.plane, what = "plane \(plane.id)"
        let w = UInt64(target.mode.width), h = UInt64(target.mode.height)
        try request.add(plane.id, plane.properties, "FB_ID", UInt64(framebuffer), what)
        try request.add(plane.id, plane.properties, "CRTC_ID", UInt64(target.crtc), what)
        try request.add(plane.id, plane.properties, "SRC_X", 0, what)
        try request.add(plane.id, plane.properties, "SRC_Y", 0, what)
        try request.add(plane.id, plane.properties, "SRC_W", w << 16, what)
        try request.add(plane.id, plane.properties, "SRC_H", h << 16, what)
        try request.add(plane.id, plane.properties, "CRTC_X", 0, what)
        try request.add(plane.id, plane.properties, "CRTC_Y", 0, what)
        try request.add(plane.id, plane.properties, "CRTC_W", w, what)
        try request.add(plane.id, plane.properties, "CRTC_H", h, what)
    }
}

/// One atomic request, freed when released.
final class AtomicRequest {
    private let handle: drmModeAtomicReqPtr

    /// The corresponding C function is `drmModeAtomicAlloc`.
    init() throws(DRMError) {
        guard let request = drmModeAtomicAlloc() else { throw DRMError("drmModeAtomicAlloc", errno: ENOMEM) }
        handle = request
    }

    deinit { drmModeAtomicFree(handle) }

    /// Sets property `name` of `object`. The corresponding C function is `drmModeAtomicAddProperty`.
    func add(_ object: UInt32, _ properties: DRMProperties, _ name: String, _ value: UInt64, _ what: String) throws(DRMError) {
        let property = try properties.id(name, on: what)
        let r = drmModeAtomicAddProperty(handle, object, property, value)
        if r < 0 { throw DRMError.returned("drmModeAtomicAddProperty(\(what).\(name))", r) }
    }

    /// The corresponding C function is `drmModeAtomicCommit`.
    func commit(_ drm: DRMDevice, flags: UInt32, userData: UnsafeMutableRawPointer? = nil, what: String) throws(DRMError) {
        try drmCheck("drmModeAtomicCommit (\(what))", drmModeAtomicCommit(drm.fd, handle, flags, userData))
    }
}
