import CDRM
import LaminaCompositor

/// The legacy KMS ioctls (kmscube's drm-legacy.c, wlroots' backend/drm/legacy.c): SetCrtc for
/// a modeset, PageFlip with an event for each frame. Used where atomic is refused, or when
/// forced (`LAMINA_KMS_NO_ATOMIC=1`, or `atomic = false` in the configuration).
public final class LegacyCommitter: KMSCommitter {
    private let drm: DRMDevice

    public init(drm: DRMDevice) { self.drm = drm }

    public var name: String { "legacy" }

    /// The corresponding C functions are `drmModeSetCrtc`, then `drmModeSetCursor2` and
    /// `drmModeMoveCursor` for a cursor.
    public func modeset(_ target: CommitTarget, framebuffer: UInt32) throws(DRMError) {
        clearOverlay(target)
        var connector = target.connector.id
        var info = target.mode.info
        try drmCheck("drmModeSetCrtc(\(target.connector.name) \(target.mode))",
                     drmModeSetCrtc(drm.fd, target.crtc, framebuffer, 0, 0, &connector, 1, &info))
        if let cursor = target.cursor {
            try drmCheck("drmModeSetCursor2 on \(target.connector.name)",
                         drmModeSetCursor2(drm.fd, target.crtc, cursor.handle, UInt32(clamping: cursor.width), UInt32(clamping: cursor.height),
                                           Int32(clamping: cursor.hotX), Int32(clamping: cursor.hotY)))
            try drmCheck("drmModeMoveCursor on \(target.connector.name)",
                         drmModeMoveCursor(drm.fd, target.crtc, Int32(clamping: cursor.x), Int32(clamping: cursor.y)))
        } else if target.cursorPlane != nil {
            // Hidden, or shown elsewhere; a CRTC without a cursor may refuse, which is no matter.
            _ = drmModeSetCursor(drm.fd, target.crtc, 0, 0, 0)
        }
    }

    /// The corresponding C function is `drmModePageFlip`.
    /// Legacy page flips carry no damage: `damage` is ignored.
    public func pageFlip(_ target: CommitTarget, framebuffer: UInt32, damage: DamageRegion?, userData: UnsafeMutableRawPointer?) throws(DRMError) {
        try drmCheck("drmModePageFlip on \(target.connector.name)",
                     drmModePageFlip(drm.fd, target.crtc, framebuffer, UInt32(DRM_MODE_PAGE_FLIP_EVENT), userData))
    }

    /// The corresponding C function is `drmModeSetCrtc` with no framebuffer.
    public func disable(_ target: CommitTarget) throws(DRMError) {
        clearOverlay(target)
        try drmCheck("drmModeSetCrtc(off) on \(target.connector.name)",
                     drmModeSetCrtc(drm.fd, target.crtc, 0, 0, 0, nil, 0, nil))
    }

    /// An overlay plane left lit by atomic commits (before falling back to legacy) goes off:
    /// SetCrtc leaves planes alone. The corresponding C function is `drmModeSetPlane`.
    private func clearOverlay(_ target: CommitTarget) {
        if let lit = target.litOverlay { drm.turnOff(plane: lit.id, crtc: target.crtc) }
    }
}
