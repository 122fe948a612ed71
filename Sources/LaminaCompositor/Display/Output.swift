import LaminaCore
import LaminaProtocol

/// The buffer an output's next frame is drawn into (`Output.beginFrame`), and how much of it
/// is still good.
public struct OutputFrame {
    /// Where the renderer draws: an offscreen framebuffer, or the back buffer of the output's
    /// window surface. The renderer's side made it.
    public var target: any RenderTarget
    /// How many frames ago the buffer was last drawn (EGL's buffer age): 1 for the frame
    /// before, 0 where its content is unknown and the frame must be drawn whole.
    public var bufferAge: Int

    public init(target: any RenderTarget, bufferAge: Int) {
        self.target = target
        self.bufferAge = bufferAge
    }
}

/// One display a backend drives (wlroots' `wlr_output`, weston's `weston_output`, made small):
/// where it sits in the desktop, how its pixels map to desktop points, its refresh and power,
/// and its swapchain, through `beginFrame` and `commit(damage:)`.
///
/// The frame step (`FramePresenter`) draws an output as: `beginFrame()` → record the frame in
/// `damage` → `Renderer.draw(_:into:damage:)` into the frame's target, redrawing what the
/// buffer's age says it lacks → `commit(damage:)`; the backend then flushes every output's
/// commit at once (`DisplayBackend.flushCommit`). An output keeps its own damage history,
/// because its buffers have their own ages.
///
/// Like the backend, an output is used on the thread that created it.
public protocol Output: AnyObject {
    /// The connector's name ("Virtual-1", "HDMI-A-1"); "headless" for the headless output.
    var name: String { get }
    /// The output's rectangle in the desktop, in points.
    var layoutRect: Rect { get }
    /// Pixels per point.
    var scale: Double { get }
    /// How the picture is turned on the panel.
    var transform: OutputTransform { get }
    /// The size of the output's buffers in pixels (the panel's mode, before the transform).
    var pixelWidth: Int { get }
    var pixelHeight: Int { get }
    /// The time between refreshes in seconds, or nil where frames show at once and nothing
    /// paces them (headless).
    var refreshInterval: Double? { get }
    /// False while blanked (`display off`, idle blanking): it takes no frames.
    var isOn: Bool { get }
    /// Blanks (false) or lights (true) the output; a lit output shows the next frame drawn.
    /// Throws where the output cannot be blanked (`PowerUnsupported`) or the device refuses.
    func setPower(_ on: Bool) throws
    /// True while a committed frame has not reached the screen yet (a page flip is queued or
    /// staged): the output takes no new frame until it has.
    var isFramePending: Bool { get }

    /// What changed from frame to frame on this output, and so what each of its buffers lacks.
    /// The frame step records each frame here; the output resets it when its buffers' content
    /// can no longer be vouched for (a modeset, a refused flip).
    var damage: DamageTracker { get set }
    /// How much of the output its frames drew (`stats`, `damage.*`).
    var damageStatistics: DamageStatistics { get set }

    /// Makes the next buffer the one drawn into and returns it with its age.
    func beginFrame() throws -> OutputFrame
    /// Presents the buffer drawn since `beginFrame`; `damage` (pixels, y down; nil:
    /// everything) is what changed since the frame before, for swap-with-damage and the
    /// plane's damage clips. A backend that presents several outputs at once (one atomic
    /// commit) only stages it here, and shows it at `DisplayBackend.flushCommit`.
    func commit(damage: DamageRegion?) throws

    /// The pixels of the buffer presented last, top row first, as they were drawn; nil where
    /// there is none yet or it cannot be read.
    func readPresented() throws -> Bitmap?
    /// The cursor drawn by the renderer over everything on this output, in desktop points,
    /// where the output has no cursor plane (not an overlay plane: see `overlayPlanes`).
    var softwareCursor: [DrawCommand] { get }
    /// The overlay planes this output's CRTC can use (KMS), for scanning a video out rather
    /// than compositing it (`OverlayPlanner`); none elsewhere.
    var overlayPlanes: [OverlayPlane] { get }
    /// Puts a video picture on an overlay plane with the next `commit` (nil: no plane; one that
    /// was lit goes off with that commit). Called before every frame. Returns nil where the
    /// output takes it, else why not (the video is then composited): KMS asks the driver with
    /// an atomic TEST_ONLY commit first.
    func scanOut(_ scanout: PlaneScanout?) -> String?
    /// The modes it can show (`laminactl output`): the connector's on KMS; by default only the
    /// current one.
    var modes: [OutputMode] { get }
    /// The picture the display showed when the backend took it over at start (a boot splash,
    /// the console; KMS: `[boot] handoff`), opaque RGBA in the output's pixels, with where it
    /// came from; handed over once (nil after, and where there is none).
    func takeBootPicture() -> (bitmap: Bitmap, origin: String)?
    /// Whether the backend lit this output without a modeset, by flipping onto what it showed.
    var tookOverWithoutModeset: Bool { get }
}

extension Output {
    public var softwareCursor: [DrawCommand] { [] }
    public var overlayPlanes: [OverlayPlane] { [] }
    public func scanOut(_ scanout: PlaneScanout?) -> String? {
        scanout == nil ? nil : "\(name) has no overlay planes"
    }
    public var modes: [OutputMode] { [currentMode] }
    public func takeBootPicture() -> (bitmap: Bitmap, origin: String)? { nil }
    public var tookOverWithoutModeset: Bool { false }

    /// The mode it shows now: its buffers' size and its refresh (0 where nothing paces it).
    public var currentMode: OutputMode {
        OutputMode(width: UInt32(pixelWidth), height: UInt32(pixelHeight), refresh: refreshInterval.map { 1 / $0 } ?? 0)
    }

    /// The output as the `output` request lists it.
    public var state: OutputState {
        OutputState(name: name, frame: layoutRect, scale: scale, transform: transform.rawValue, mode: currentMode, modes: modes, isOn: isOn)
    }

    /// Where the output is, for mapping touchscreens and pointers onto the desktop.
    public var placement: OutputPlacement {
        OutputPlacement(name: name, frame: layoutRect, quarterTurns: transform.quarterTurns, flipped: transform.isFlipped)
    }

    /// Whether the output's buffers hold the desktop pixel for pixel: it covers a `width` ×
    /// `height` desktop at its origin, unscaled and unturned.
    public func showsWholeDesktop(width: Int, height: Int) -> Bool {
        layoutRect == Rect(x: 0, y: 0, width: Double(width), height: Double(height)) && scale == 1
            && transform == .normal && pixelWidth == width && pixelHeight == height
    }
}

extension DrawList {
    /// The part of the desktop `output` shows, in its buffer's pixels: moved to its origin,
    /// scaled and turned.
    public func forOutput(_ output: any Output) -> DrawList {
        let rect = output.layoutRect
        return forOutput(origin: (Int(rect.minX.rounded()), Int(rect.minY.rounded())), scale: output.scale,
                         width: output.pixelWidth, height: output.pixelHeight, transform: output.transform)
    }
}
