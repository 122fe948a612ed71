#if canImport(Glibc)
import Glibc
#endif
import CDRM
import LaminaCore
import LaminaServer

/// One lit connector: its CRTC and plane, its GBM surface and the renderer's surface over it,
/// and the buffers on screen and queued (kmscube's `drm` + `gbm` state for one display).
final class KMSOutput {
    let configuration: OutputConfiguration
    private(set) var target: CommitTarget
    /// The renderer's swapchain over `gbm` (it holds `gbm`, so the window outlives it).
    let surface: any ScanoutSurface
    let gbm: GBMSurface
    /// The desktop point at the output's top-left corner.
    var origin: (x: Int, y: Int)
    /// The CRTC's state before Lamina took it, restored on exit.
    let saved: SavedCRTC?

    /// The buffer on screen, locked until the next one replaces it.
    private var front: OpaquePointer?
    /// The buffer of the queued page flip.
    private var pending: OpaquePointer?
    /// The buffer drawn for a flip the backend has yet to commit (`prepare` → `flipQueued`).
    private var staged: OpaquePointer?
    /// A modeset is due (first frame, or after being blanked or losing master).
    private var needsModeset = true
    /// False while blanked (`display off`).
    private(set) var isEnabled = true
    /// What changed from frame to frame on this output, and so what each buffer of its
    /// surface lacks (EGL buffer age).
    private(set) var damage = DamageTracker()
    /// What this output's frames drew.
    private(set) var damageStatistics = DamageStatistics()
    /// The damage the last page flip carried (nil: the whole framebuffer), for the log.
    private(set) var lastFlipDamage: DamageRegion?
    /// The buffer age of the last frame drawn (0: drawn whole).
    private(set) var lastBufferAge = 0

    var name: String { target.connector.name }
    var mode: DRMMode { target.mode }
    var isFlipPending: Bool { pending != nil }

    /// The output's size in desktop points.
    var logicalSize: (width: Int, height: Int) {
        let turned = configuration.transform.logicalSize(width: mode.width, height: mode.height)
        return (Int((Double(turned.width) / configuration.scale).rounded()), Int((Double(turned.height) / configuration.scale).rounded()))
    }

    init(configuration: OutputConfiguration, target: CommitTarget, surface: any ScanoutSurface, gbm: GBMSurface,
         origin: (x: Int, y: Int), saved: SavedCRTC?) {
        self.configuration = configuration
        self.target = target
        self.surface = surface
        self.gbm = gbm
        self.origin = origin
        self.saved = saved
    }

    deinit {
        if let staged { gbm.release(staged) }
        if let pending { gbm.release(pending) }
        if let front { gbm.release(front) }
    }

    /// Draws `list` (the whole desktop) into the next buffer. A modeset, where one is due,
    /// shows it at once (nil is returned); otherwise the buffer is held as staged and the flip
    /// that shows it is returned, for the backend to commit with the other outputs' flips
    /// (`flipQueued` or `flipFailed` follow). Nil too where the output is off or a flip is still
    /// queued.
    ///
    /// Only what the buffer about to be drawn lacks is drawn (its EGL buffer age against this
    /// output's damage history), unless `damageTracking` is off; the flip carries what changed
    /// since the frame before as damage clips.
    func prepare(_ list: DrawList, renderer: any Renderer, drm: DRMDevice,
                 committer: any KMSCommitter, damageTracking: Bool) throws -> PageFlip? {
        guard isEnabled, pending == nil, staged == nil else { return nil }
        do {
            return try draw(list, renderer: renderer, drm: drm, committer: committer, damageTracking: damageTracking)
        } catch {
            // A frame recorded but not drawn, swapped or shown breaks the history the next
            // buffer's age is matched against, and the damage clips of the next flip: start afresh.
            damage.reset()
            throw error
        }
    }

    /// The staged buffer's flip was committed: it shows at the next refresh.
    func flipQueued() {
        pending = staged
        staged = nil
    }

    /// The staged buffer's flip was refused: the buffer goes back, and the next frame is drawn
    /// whole (the history no longer matches what is on screen).
    func flipFailed() {
        if let staged { gbm.release(staged) }
        staged = nil
        lastFlipDamage = nil
        damage.reset()
    }

    private func draw(_ list: DrawList, renderer: any Renderer, drm: DRMDevice,
                      committer: any KMSCommitter, damageTracking: Bool) throws -> PageFlip? {
        let local = list.forOutput(origin: origin, scale: configuration.scale, width: mode.width, height: mode.height,
                                   transform: configuration.transform)
        // A modeset shows a buffer whose history the tracker cannot vouch for: start afresh.
        if needsModeset { damage.reset() }
        let changed = damage.record(local)
        lastBufferAge = try surface.beginFrame()
        let region = damageTracking ? damage.damage(bufferAge: lastBufferAge)?.orWhole(width: mode.width, height: mode.height) : nil
        try renderer.draw(local, into: surface, damage: region)
        damageStatistics.record(region, width: mode.width, height: mode.height)
        try surface.swapBuffers(damage: damageTracking ? changed : nil)
        let bo = try gbm.lockFrontBuffer()
        let framebuffer: DRMFramebuffer
        do { framebuffer = try DRMFramebuffer.of(bo, on: drm) } catch {
            gbm.release(bo)
            throw error
        }
        guard needsModeset else {
            lastFlipDamage = damageTracking ? changed : nil
            staged = bo
            return PageFlip(target: target, framebuffer: framebuffer.id, damage: lastFlipDamage)
        }
        do {
            lastFlipDamage = nil
            try committer.modeset(target, framebuffer: framebuffer.id)
            needsModeset = false
            if let front { gbm.release(front) }
            front = bo
            return nil
        } catch {
            gbm.release(bo)
            throw error
        }
    }

    /// The pixels of the buffer presented last (the queued flip's, else the one on screen), as
    /// drawn; nil before the first frame or where the buffer cannot be mapped.
    func readPresented() -> Bitmap? {
        guard let bo = pending ?? front else { return nil }
        return gbm.read(bo)
    }

    /// The queued flip reached the screen: the old front buffer goes back to EGL.
    func flipCompleted() {
        guard let pending else { return }
        if let front { gbm.release(front) }
        front = pending
        self.pending = nil
    }

    /// The next frame must modeset again (after losing and regaining DRM master).
    func invalidate() { needsModeset = true }

    /// The output's geometry as the cursor sees it.
    var cursorGeometry: CursorOutput {
        CursorOutput(origin: origin, scale: configuration.scale, panelWidth: mode.width, panelHeight: mode.height,
                     transform: configuration.transform)
    }

    /// True where the cursor can show on this CRTC rather than be drawn: it has a cursor plane,
    /// or the legacy interface (SetCursor2) is in use.
    func hasCursorPlane(legacy: Bool) -> Bool { target.cursorPlane != nil || legacy }

    /// Sets the CRTC's cursor plane (atomic), found where a cursor is configured.
    func setCursorPlane(_ plane: DRMPlane?) { target.cursorPlane = plane }

    /// Shows `cursor` (or none) on this CRTC. Where the CRTC is lit and `now` (DRM master is
    /// held) this happens at once through the legacy cursor ioctls, which the kernel turns
    /// into cursor-plane updates on atomic drivers too: no modeset, no wait for a page flip.
    /// Otherwise (before the first frame, blanked, switched away) the next modeset sets it.
    /// The corresponding C functions are `drmModeSetCursor2`, `drmModeMoveCursor` and
    /// `drmModeSetCursor` (hiding).
    func setCursor(_ cursor: CursorPlacement?, drm: DRMDevice, now: Bool) throws(DRMError) {
        let old = target.cursor
        target.cursor = cursor
        guard now, isEnabled, !needsModeset, old != cursor else { return }
        guard let cursor else {
            try drmCheck("drmModeSetCursor(hide) on \(name)", drmModeSetCursor(drm.fd, target.crtc, 0, 0, 0))
            return
        }
        if old?.handle != cursor.handle || old?.hotX != cursor.hotX || old?.hotY != cursor.hotY
            || old?.width != cursor.width || old?.height != cursor.height {
            try drmCheck("drmModeSetCursor2 on \(name)",
                         drmModeSetCursor2(drm.fd, target.crtc, cursor.handle, UInt32(clamping: cursor.width), UInt32(clamping: cursor.height),
                                           Int32(clamping: cursor.hotX), Int32(clamping: cursor.hotY)))
        }
        // After SetCursor2 too: the kernel keeps the last legacy move, not what a modeset set.
        try drmCheck("drmModeMoveCursor on \(name)", drmModeMoveCursor(drm.fd, target.crtc, Int32(clamping: cursor.x), Int32(clamping: cursor.y)))
    }

    /// Blanks the output (CRTC off) or marks it to light again on the next frame.
    func setEnabled(_ on: Bool, committer: any KMSCommitter) throws(DRMError) {
        guard on != isEnabled else { return }
        if on {
            isEnabled = true
            needsModeset = true
        } else {
            try committer.disable(target)
            isEnabled = false
            needsModeset = true
            if let front { gbm.release(front) }
            front = nil
        }
    }

    /// Puts back what the CRTC showed before Lamina (the console), or turns it off.
    /// The corresponding C functions are `drmModeSetCursor` (hiding the cursor) and `drmModeSetCrtc`.
    func restore(drm: DRMDevice, committer: any KMSCommitter) {
        // The console has no cursor: take ours off its plane, which SetCrtc leaves alone.
        if target.cursor != nil { _ = drmModeSetCursor(drm.fd, target.crtc, 0, 0, 0) }
        if let saved, saved.framebuffer != 0, var mode = saved.mode {
            var connector = target.connector.id
            if drmModeSetCrtc(drm.fd, target.crtc, saved.framebuffer, saved.x, saved.y, &connector, 1, &mode) == 0 { return }
        }
        try? committer.disable(target)
    }
}

/// What a CRTC showed before Lamina took it.
struct SavedCRTC {
    var framebuffer: UInt32
    var x: UInt32
    var y: UInt32
    var mode: drmModeModeInfo?

    /// The corresponding C function is `drmModeGetCrtc`.
    init?(drm: DRMDevice, crtc: UInt32) {
        guard let c = drmModeGetCrtc(drm.fd, crtc) else { return nil }
        defer { drmModeFreeCrtc(c) }
        framebuffer = c.pointee.buffer_id
        x = c.pointee.x
        y = c.pointee.y
        mode = c.pointee.mode_valid != 0 ? c.pointee.mode : nil
    }
}
