import CDRM
import LaminaCompositor

/// What a commit lights: one connector, the CRTC driving it, the primary plane feeding the CRTC,
/// the mode, and the cursor if one is configured.
public struct CommitTarget: Sendable {
    public var connector: DRMConnector
    public var crtc: UInt32
    public var crtcProperties: DRMProperties
    public var plane: DRMPlane
    public var mode: DRMMode
    /// The cursor on this CRTC, set with every modeset; nil shows none. Between modesets it
    /// moves through the legacy cursor ioctls (`KMSOutput.setCursor`).
    public var cursor: CursorPlacement?
    /// The CRTC's CURSOR plane where a cursor is configured and the device has one: an atomic
    /// modeset sets it from `cursor`, or clears it.
    public var cursorPlane: DRMPlane?
    /// The OVERLAY planes this CRTC can use (for a video, `OverlayPlanner`), read once: the
    /// planner's view, and the planes themselves.
    public var overlayPlanes: [OverlayPlane] = []
    public var overlays: [DRMPlane] = [] {
        didSet { overlayPlanes = overlays.map { OverlayPlane(id: $0.id, formats: $0.formats) } }
    }
    /// The overlay plane this CRTC scans a video out on since the last commit, if any: a
    /// modeset, blanking and the console's return turn it off.
    public var litOverlay: DRMPlane?

    public init(connector: DRMConnector, crtc: UInt32, crtcProperties: DRMProperties, plane: DRMPlane, mode: DRMMode) {
        self.connector = connector
        self.crtc = crtc
        self.crtcProperties = crtcProperties
        self.plane = plane
        self.mode = mode
    }
}

/// One way of telling the kernel what to scan out (wlroots' `wlr_drm_interface`): atomic
/// modesetting, or the legacy SetCrtc/PageFlip ioctls. `KMSBackend` picks one at start-up.
public protocol KMSCommitter: AnyObject {
    /// "atomic" or "legacy".
    var name: String { get }
    /// Lights `target` with `framebuffer` in `target.mode`, blocking until it shows. A new
    /// configuration is tested first where the interface allows.
    func modeset(_ target: CommitTarget, framebuffer: UInt32) throws(DRMError)
    /// Queues `framebuffer` for the next refresh without blocking; a page-flip event carrying
    /// `userData` follows when it shows. `damage` is what changed since the framebuffer the
    /// plane showed before, in framebuffer pixels (nil: everything), for drivers that upload
    /// or scan out only that (`FB_DAMAGE_CLIPS`).
    func pageFlip(_ target: CommitTarget, framebuffer: UInt32, damage: DamageRegion?, userData: UnsafeMutableRawPointer?) throws(DRMError)
    /// Turns the CRTC off (blanking, or releasing an unplugged output).
    func disable(_ target: CommitTarget) throws(DRMError)
    /// Queues the flips of several outputs at once: with atomic modesetting one commit, so they
    /// show on the same refresh where the CRTCs share one; a page-flip event per CRTC follows.
    /// Where the interface has no such commit, one flip after another.
    func pageFlip(_ flips: [PageFlip], userData: UnsafeMutableRawPointer?) throws(DRMError)
    /// Whether `pageFlip(_:userData:)` queues several outputs in one commit.
    var flipsOutputsTogether: Bool { get }
    /// Asks the driver whether it would light `target` with a framebuffer like `framebuffer` in
    /// `target.mode`, changing nothing (an output changed at run time is refused with the
    /// driver's answer before it is taken). Returns false where the interface cannot ask.
    func testModeset(_ target: CommitTarget, framebuffer: UInt32) throws(DRMError) -> Bool
}

/// One output's part of a frame: what its primary plane shows next, and what changed; with
/// atomic modesetting also what its overlay plane shows (a video), or which plane goes off.
public struct PageFlip: Sendable {
    public var target: CommitTarget
    public var framebuffer: UInt32
    public var damage: DamageRegion?
    public var overlay: OverlayState?
    public var clearedOverlay: DRMPlane?
    public init(target: CommitTarget, framebuffer: UInt32, damage: DamageRegion?, overlay: OverlayState? = nil, clearedOverlay: DRMPlane? = nil) {
        self.target = target
        self.framebuffer = framebuffer
        self.damage = damage
        self.overlay = overlay
        self.clearedOverlay = clearedOverlay
    }
}

extension KMSCommitter {
    public func pageFlip(_ flips: [PageFlip], userData: UnsafeMutableRawPointer?) throws(DRMError) {
        for f in flips { try pageFlip(f.target, framebuffer: f.framebuffer, damage: f.damage, userData: userData) }
    }
    public var flipsOutputsTogether: Bool { false }
    /// Legacy modesetting has no test: a mode the driver refuses fails at the first frame.
    public func testModeset(_ target: CommitTarget, framebuffer: UInt32) throws(DRMError) -> Bool { false }
}
