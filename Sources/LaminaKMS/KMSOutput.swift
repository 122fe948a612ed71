#if canImport(Glibc)
import Glibc
#endif
import CDRM
import LaminaCore
import LaminaPlatform
import LaminaProtocol
import LaminaCompositor

/// One lit connector as an `Output`: its CRTC and plane, its swapchain (the GBM surface and
/// the renderer's surface over it, with the buffers on screen, queued and staged), and its
/// damage history (kmscube's `drm` + `gbm` state for one display).
///
/// A frame: `beginFrame` makes the surface's back buffer current and returns its EGL buffer
/// age; the renderer draws into it; `commit(damage:)` swaps, locks the front buffer, takes its
/// framebuffer (cached on the buffer) and either modesets at once (the first frame, after a
/// blank or a VT switch) or stages the page flip in the backend, which flips every staged
/// output in one commit (`KMSBackend.flushCommit`).
final class KMSOutput: Output {
    /// The backend that owns the output: its device, committer, log and pending commit.
    unowned let backend: KMSBackend
    let configuration: OutputConfiguration
    private(set) var target: CommitTarget
    /// The renderer's swapchain over `gbm` (it holds `gbm`, so the window outlives it).
    let surface: any ScanoutSurface
    let gbm: GBMSurface
    /// The desktop point at the output's top-left corner.
    var origin: (x: Int, y: Int)
    /// The CRTC's state before Lamina took it, restored on exit.
    var saved: SavedCRTC?

    /// The buffer on screen, locked until the next one replaces it.
    private var front: OpaquePointer?
    /// The buffer of the queued page flip.
    private var pending: OpaquePointer?
    /// The buffer committed for a flip the backend has yet to flush (`commit` → `flipQueued`).
    private var staged: OpaquePointer?
    /// The video picture on the overlay plane with each of those buffers (nil: none), and the
    /// one `scanOut` readied for the next commit. Each holds its framebuffer (and the
    /// decoder's buffer) until a later flip has replaced it on screen.
    private var frontPlane: PlaneContent?
    private var pendingPlane: PlaneContent?
    private var stagedPlane: PlaneContent?
    private var nextPlane: PlaneContent?
    /// The framebuffer made for the latest picture (a picture shows for several refreshes).
    private var latestPicture: DRMFramebuffer?
    /// The driver's answer to each plane configuration tried (nil: it takes it), bounded.
    private var planeVerdicts: [PlaneConfiguration: String?] = [:]
    /// A modeset is due (first frame, or after being blanked or losing master).
    private var needsModeset = true
    /// The CRTC showed a framebuffer in this output's mode at start (`BootTakeover`): the first
    /// frame is a page flip onto it, not a modeset, so the display never goes dark.
    var flipsFirstFrame = false
    /// The picture the CRTC showed at start, imported for the boot handoff, until the
    /// compositor takes it (`takeBootPicture`), and where it came from.
    var bootPicture: (bitmap: Bitmap, origin: String)?
    /// What became of the picture at start, for the log: taken over or not, and why.
    var handoffNote = ""
    /// The first frame flipped onto the CRTC as it was at start.
    private(set) var tookOverWithoutModeset = false
    /// False while blanked (`display off`).
    private(set) var isEnabled = true
    /// What changed from frame to frame on this output, and so what each buffer of its
    /// surface lacks (EGL buffer age).
    var damage = DamageTracker()
    /// What this output's frames drew.
    var damageStatistics = DamageStatistics()
    /// The damage the last page flip carried (nil: the whole framebuffer), for the log.
    private(set) var lastFlipDamage: DamageRegion?
    /// The buffer age of the last frame begun (0: drawn whole).
    private(set) var lastBufferAge = 0
    /// When the frame being drawn began, for the trace log.
    private var frameStart = 0.0

    var name: String { target.connector.name }
    var mode: DRMMode { target.mode }
    var isFlipPending: Bool { pending != nil }

    /// The output's size in desktop points.
    var logicalSize: (width: Int, height: Int) {
        let turned = configuration.transform.logicalSize(width: mode.width, height: mode.height)
        return (Int((Double(turned.width) / configuration.scale).rounded()), Int((Double(turned.height) / configuration.scale).rounded()))
    }

    init(backend: KMSBackend, configuration: OutputConfiguration, target: CommitTarget, surface: any ScanoutSurface, gbm: GBMSurface,
         origin: (x: Int, y: Int), saved: SavedCRTC?) {
        self.backend = backend
        self.configuration = configuration
        self.target = target
        self.surface = surface
        self.gbm = gbm
        self.origin = origin
        self.saved = saved
    }

    deinit {
        // The plane framebuffers go after the buffers they were shown with (RmFB of a
        // framebuffer on screen turns its plane off, which is what leaving wants anyway).
        if let staged { gbm.release(staged) }
        if let pending { gbm.release(pending) }
        if let front { gbm.release(front) }
    }

    // MARK: Output

    var layoutRect: Rect {
        let size = logicalSize
        return Rect(x: Double(origin.x), y: Double(origin.y), width: Double(size.width), height: Double(size.height))
    }
    var scale: Double { configuration.scale }
    var transform: OutputTransform { configuration.transform }
    var pixelWidth: Int { mode.width }
    var pixelHeight: Int { mode.height }
    var refreshInterval: Double? { mode.refreshInterval }
    var isOn: Bool { isEnabled }
    /// The connector's modes (`laminactl output`).
    var modes: [OutputMode] {
        target.connector.modes.map { OutputMode(width: UInt32($0.width), height: UInt32($0.height), refresh: $0.refreshRate) }
    }
    /// A flip is queued, or staged for the backend's next commit.
    var isFramePending: Bool { pending != nil || staged != nil }

    /// The cursor, where this output's frames draw it (no cursor plane).
    var overlayPlanes: [OverlayPlane] { target.overlayPlanes }

    var softwareCursor: [DrawCommand] {
        guard let drawn = backend.drawnCursor, drawn.crtc == target.crtc else { return [] }
        return KMSBackend.cursorCommands(at: (drawn.x, drawn.y))
    }

    /// Makes the surface's back buffer current; its age is what EGL reports. A modeset is due
    /// for a buffer whose history the damage tracker cannot vouch for: it starts afresh.
    func beginFrame() throws -> OutputFrame {
        if needsModeset { damage.reset() }
        frameStart = monotonicSeconds()
        lastBufferAge = try surface.beginFrame()
        return OutputFrame(target: surface, bufferAge: lastBufferAge)
    }

    /// Swaps the drawn buffer to the GBM surface (with `damage`), takes it for scan-out and
    /// shows it: a modeset where one is due (shown at once; an atomic modeset the driver
    /// refuses falls back to legacy modesetting and is tried again), else a page flip staged
    /// for the backend's commit, carrying `damage` as the plane's damage clips. A lost DRM
    /// master drops the frame (logged); the output modesets when master is back.
    func commit(damage changed: DamageRegion?) throws {
        try surface.swapBuffers(damage: changed)
        let bo = try gbm.lockFrontBuffer()
        do {
            let framebuffer = try DRMFramebuffer.of(bo, on: backend.drm)
            guard needsModeset else {
                lastFlipDamage = changed
                staged = bo
                stagedPlane = nextPlane
                let overlay = nextPlane?.state
                let cleared = target.litOverlay.flatMap { lit in overlay?.plane.id == lit.id ? nil : lit }
                backend.stage(self, PageFlip(target: target, framebuffer: framebuffer.id, damage: changed, overlay: overlay, clearedOverlay: cleared))
                return
            }
            lastFlipDamage = nil
            if flipsFirstFrame, try takeOver(bo, framebuffer: framebuffer.id) { return }
            do {
                try backend.committer.modeset(target, framebuffer: framebuffer.id)
            } catch where backend.committer is AtomicCommitter && !error.isPermissionDenied {
                backend.fallBackToLegacy(after: error, on: name)
                try backend.committer.modeset(target, framebuffer: framebuffer.id)
            }
            needsModeset = false
            target.litOverlay = nil
            frontPlane = nil
            if let front { gbm.release(front) }
            front = bo
            backend.logger.trace("kms: \(name): frame drawn and shown by a modeset in \(Int(((monotonicSeconds() - frameStart) * 1e6).rounded())) µs")
        } catch where error.isPermissionDenied {
            gbm.release(bo)
            backend.dropped(self, error)
        } catch {
            gbm.release(bo)
            throw error
        }
    }

    /// The first frame onto a CRTC someone else lit in this mode (a boot splash, the console):
    /// a page flip (atomic: a commit without ALLOW_MODESET; legacy: drmModePageFlip, not
    /// SetCrtc), queued at once rather than staged, so a refusal can still modeset. Returns
    /// false (logged) where the driver refused it: the caller modesets. A cursor set before
    /// the first frame goes on through the legacy cursor ioctls, as the modeset would have set it.
    private func takeOver(_ bo: OpaquePointer, framebuffer: UInt32) throws(DRMError) -> Bool {
        flipsFirstFrame = false
        do {
            try backend.committer.pageFlip([PageFlip(target: target, framebuffer: framebuffer, damage: nil)],
                                           userData: Unmanaged.passUnretained(backend.sink).toOpaque())
        } catch where error.isPermissionDenied {
            throw error
        } catch {
            backend.logger.notice("kms: \(name): the driver refused to flip onto the CRTC as it was (\(error)); modesetting")
            return false
        }
        needsModeset = false
        tookOverWithoutModeset = true
        staged = bo
        stagedPlane = nil
        flipQueued()
        if let cursor = target.cursor {
            target.cursor = nil
            try? setCursor(cursor, drm: backend.drm, now: true)
        }
        backend.logger.notice("kms: \(name): took the display over without a modeset (its first frame is a page flip)")
        return true
    }

    /// Hands the picture imported at start to the boot handoff, once.
    func takeBootPicture() -> (bitmap: Bitmap, origin: String)? {
        defer { bootPicture = nil }
        return bootPicture
    }

    /// The staged buffer's flip was committed: it shows at the next refresh.
    func flipQueued() {
        pending = staged
        staged = nil
        pendingPlane = stagedPlane
        stagedPlane = nil
        target.litOverlay = pendingPlane?.state.plane
        backend.logger.trace("kms: \(name): frame drawn and flipped in \(Int(((monotonicSeconds() - frameStart) * 1e6).rounded())) µs")
    }

    /// The staged buffer's flip was refused: the buffer goes back, and the next frame is drawn
    /// whole (the history no longer matches what is on screen).
    func flipFailed() {
        if let staged { gbm.release(staged) }
        staged = nil
        stagedPlane = nil
        lastFlipDamage = nil
        damage.reset()
    }

    /// Blanks or lights the output; see `setEnabled`. Only while DRM master is held.
    func setPower(_ on: Bool) throws {
        guard backend.isActive else {
            throw DRMError("display \(on ? "on" : "off") while \(backend.seat.map { "seat \($0.name)" } ?? "the VT") is switched away (no DRM master)", errno: EBUSY)
        }
        try backend.waitForFlips(timeout: 1)
        try setEnabled(on, committer: backend.committer)
        if on { backend.repaint(.outputRelit) }
        backend.logger.notice("kms: display \(on ? "on" : "off"): \(name)")
    }

    /// The pixels of the buffer presented last (the queued flip's, else the one on screen), as
    /// drawn; nil before the first frame or where the buffer cannot be mapped.
    func readPresented() throws -> Bitmap? {
        guard let bo = pending ?? front, let shot = gbm.read(bo) else { return nil }
        backend.logger.debug("kms: screenshot read from the buffer presented on \(name)")
        // What the display shows there: the video on the overlay plane above the primary's pixels.
        guard let plane = pending != nil ? pendingPlane : frontPlane else { return shot }
        return plane.scanout.composite(plane.scanout.picture.copy(), onto: shot)
    }

    // MARK: Overlay plane

    /// Readies `scanout` (a video picture) for the overlay plane with the next commit, or no
    /// picture (a lit plane then goes off). The first picture of each configuration (plane,
    /// format, size, placement) is tried with an atomic TEST_ONLY commit beside the primary
    /// plane as it shows now; the answer is kept. Returns why not, where not: the video is then
    /// composited.
    func scanOut(_ scanout: PlaneScanout?) -> String? {
        nextPlane = nil
        guard let scanout else {
            latestPicture = nil
            return nil
        }
        guard let atomic = backend.committer as? AtomicCommitter else { return "legacy modesetting drives no overlay planes" }
        guard !needsModeset, let front else { return "the output is lit by a modeset first" }
        guard let plane = target.overlays.first(where: { $0.id == scanout.plane }) else { return "plane \(scanout.plane) does not belong to \(name)" }
        let buffer: DRMFramebuffer
        if let latest = latestPicture, latest.picture === scanout.picture {
            buffer = latest
        } else {
            do {
                buffer = try DRMFramebuffer(scanout.picture, on: backend.drm)
            } catch {
                latestPicture = nil
                return "the display cannot take the picture's dma-buf (\(error))"
            }
            latestPicture = buffer
        }
        guard let state = OverlayState(plane: plane, framebuffer: buffer.id, scanout: scanout) else {
            return "the video's part of the picture or place on the output is not whole pixels inside them"
        }
        let configuration = PlaneConfiguration(state, picture: scanout.picture)
        if let verdict = planeVerdicts[configuration] {
            if let why = verdict { return why }
        } else {
            var verdict: String?
            do {
                let primary = try DRMFramebuffer.of(front, on: backend.drm)
                try atomic.test(PageFlip(target: target, framebuffer: primary.id, damage: nil, overlay: state,
                                         clearedOverlay: target.litOverlay.flatMap { $0.id == plane.id ? nil : $0 }))
            } catch {
                verdict = "the driver refused the plane (\(error))"
            }
            if planeVerdicts.count >= 64 { planeVerdicts.removeAll() }
            planeVerdicts[configuration] = .some(verdict)
            if let verdict { return verdict }
        }
        nextPlane = PlaneContent(state: state, buffer: buffer, scanout: scanout)
        return nil
    }

    // MARK: Flips

    /// The queued flip reached the screen: the old front buffer goes back to EGL.
    func flipCompleted() {
        guard let pending else { return }
        if let front { gbm.release(front) }
        front = pending
        self.pending = nil
        frontPlane = pendingPlane
        pendingPlane = nil
    }

    /// The next frame must modeset again (after losing and regaining DRM master): what the
    /// CRTC shows now is no longer the picture found at start.
    func invalidate() {
        needsModeset = true
        flipsFirstFrame = false
    }

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
            flipsFirstFrame = false
            isEnabled = false
            needsModeset = true
            target.litOverlay = nil
            frontPlane = nil
            if let front { gbm.release(front) }
            front = nil
        }
    }

    /// `DRM_IOCTL_MODE_CLOSEFB` (Linux 6.8): `DRM_IOWR(0xD0, struct drm_mode_closefb)`, the
    /// struct being two `__u32` (fb_id, pad). Spelled out: older kernel headers lack it.
    static let closeFramebufferRequest: UInt = 0xC008_64D0

    /// At exit with `[boot] on_exit = "keep"`: the framebuffer on screen is let go of without
    /// being taken off the CRTC (CLOSEFB), so it outlives laminad's file, which otherwise takes
    /// its framebuffers off the display as it closes. Returns nil when done, else why not (a
    /// kernel before 6.8 answers EINVAL or ENOTTY: the caller restores the console instead).
    /// The corresponding C function is `drmIoctl(DRM_IOCTL_MODE_CLOSEFB)`.
    func leaveLastFrame(drm: DRMDevice) -> String? {
        guard isEnabled, !needsModeset, let bo = pending ?? front else { return "no frame of laminad's is on screen" }
        let framebuffer: DRMFramebuffer
        do { framebuffer = try DRMFramebuffer.of(bo, on: drm) } catch { return "\(error)" }
        // The console has no cursor or video: take ours off their planes, which outlive no one.
        if target.cursor != nil { _ = drmModeSetCursor(drm.fd, target.crtc, 0, 0, 0) }
        if let lit = target.litOverlay { drm.turnOff(plane: lit.id, crtc: target.crtc) }
        var request: (UInt32, UInt32) = (framebuffer.id, 0)
        guard drmIoctl(drm.fd, Self.closeFramebufferRequest, &request) == 0 else {
            let code = errno
            return code == EINVAL || code == ENOTTY
                ? "this kernel has no DRM_IOCTL_MODE_CLOSEFB (Linux 6.8 and later), so laminad's framebuffers leave the display with it"
                : "CLOSEFB of framebuffer \(framebuffer.id) failed (errno \(code))"
        }
        return nil
    }

    /// Where CLOSEFB is missing (before Linux 6.8): laminad's last frame is copied into the
    /// framebuffer the CRTC showed before laminad (the fbdev console's, which the kernel owns
    /// and keeps), so that `restore` puts back a framebuffer holding laminad's picture. The
    /// console draws over it again once the VT is back in text mode; it stays where the VT was
    /// in graphics mode before laminad (a boot splash had it). Returns nil when copied, else
    /// why not.
    func copyLastFrameIntoSaved(drm: DRMDevice) -> String? {
        guard let saved, saved.framebuffer != 0, let mode = saved.mode else { return "the CRTC showed nothing before laminad" }
        guard BootTakeover.sameTimings(mode, target.mode.info) else { return "the framebuffer shown before laminad is in another mode" }
        guard isEnabled, !needsModeset, let bo = pending ?? front, let frame = gbm.read(bo) else { return "laminad's last frame cannot be read" }
        guard frame.width == Int(mode.hdisplay), frame.height == Int(mode.vdisplay) else { return "the last frame is \(frame.width)x\(frame.height)" }
        do { try ScannedOutPicture.write(frame, framebuffer: saved.framebuffer, drm: drm) } catch { return "\(error)" }
        return nil
    }

    /// Puts back what the CRTC showed before Lamina (the console), or turns it off.
    /// The corresponding C functions are `drmModeSetCursor` (hiding the cursor) and `drmModeSetCrtc`.
    func restore(drm: DRMDevice, committer: any KMSCommitter) {
        // The console has no cursor or video: take ours off their planes, which SetCrtc leaves alone.
        if target.cursor != nil { _ = drmModeSetCursor(drm.fd, target.crtc, 0, 0, 0) }
        if let lit = target.litOverlay { drm.turnOff(plane: lit.id, crtc: target.crtc) }
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
