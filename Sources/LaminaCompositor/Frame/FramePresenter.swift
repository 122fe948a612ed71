import LaminaCore

/// The frame step (weston's output repaint, wlroots' output commit): a frame's draw list onto
/// the backend's outputs that are due. For each: `beginFrame` → record the frame in the
/// output's damage history → `Renderer.draw(_:into:damage:)`, only what the buffer's age says
/// it lacks (everything with `damageTracking` off) → `commit(damage:)`; then the backend
/// flushes the commits, in one atomic commit where the driver allows it.
///
/// It owns the renderer, not the backend: the daemon wires a backend (its outputs and their
/// buffers) to the renderer that draws into them, which made those buffers (wlroots keeps
/// `wlr_renderer` apart from `wlr_backend` in the same way).
///
/// It keeps the desktop as last presented, so that a screenshot of a desktop no single buffer
/// holds can be drawn from it into a buffer of `offscreen`; a screenshot is otherwise the
/// presented buffer as drawn, never a fresh redraw.
public final class FramePresenter {
    public let backend: any DisplayBackend
    /// What draws the frames, into the targets the outputs' `beginFrame` hands out.
    public let renderer: any Renderer
    /// Where the buffer comes from that a screenshot of the whole desktop is redrawn into (the
    /// renderer's side); nil: such screenshots are unavailable.
    public let offscreen: (any RenderTargetAllocator)?
    /// The whole desktop as last presented.
    public private(set) var lastList: DrawList?
    /// A video, or an app window in dma-buf memory, is shown: each output's frame asks
    /// `OverlayPlanner` whether it could go on a plane (set by the compositor; without them
    /// nothing is planned, and a plane still lit goes off).
    public var videosShown = false
    /// Frames whose video the planner found fit for an overlay plane, frames whose video went
    /// on one, and frames whose video was composited, for the planner's reason or because the
    /// output refused the plane (`stats`: video.overlayEligibleFrames, .overlayScanoutFrames,
    /// .overlayCompositedFrames).
    public private(set) var overlayEligibleFrames = 0
    public private(set) var overlayScanoutFrames = 0
    public private(set) var overlayCompositedFrames = 0
    /// The last decision per output, and what changed since the daemon last looked (logged).
    private var overlayDecisions: [String: OverlayDecision] = [:]
    private var notes: [String] = []
    /// The buffer the last redraw went into, kept while the desktop keeps its size.
    private var redrawBuffer: (any OffscreenBuffer)?

    /// Frames go to `backend`'s outputs, drawn by `renderer`; screenshots of a desktop no
    /// output's buffer holds are redrawn into a buffer `offscreen` makes.
    public init(backend: any DisplayBackend, renderer: any Renderer, offscreen: (any RenderTargetAllocator)?) {
        self.backend = backend
        self.renderer = renderer
        self.offscreen = offscreen
    }

    /// Draws `list` (the whole desktop, in points) on the named outputs (nil: every output)
    /// that are lit and free, and shows them. Returns the outputs whose frames are committed
    /// and not yet on screen (page flips queued). An output whose frame fails is drawn whole
    /// next time; the others are still drawn and committed, and the first error is thrown
    /// afterwards. An output still waiting for its flip is skipped: the repaint loop only asks
    /// for free ones.
    @discardableResult
    public func present(_ list: DrawList, on names: [String]? = nil) throws -> Set<String> {
        lastList = list
        // Switched away: another session has the display; the frame waits for it to come back.
        guard backend.isActive else { return [] }
        let due = backend.outputs.filter { o in names.map { $0.contains(o.name) } ?? true }
        var firstError: (any Error)?
        backend.beginCommit()
        for output in due where output.isOn && !output.isFramePending {
            do {
                try draw(list, on: output)
            } catch {
                // A frame recorded but not drawn or not shown breaks the history the next
                // buffer's age is matched against: start afresh.
                output.damage.reset()
                firstError = firstError ?? error
            }
        }
        do { try backend.flushCommit() } catch { firstError = firstError ?? error }
        if let firstError { throw firstError }
        return Set(due.filter(\.isFramePending).map(\.name))
    }

    /// One output's frame: its part of the desktop (with its software cursor), drawn where its next
    /// buffer lacks it, and committed. A video the output scans out on an overlay plane is left
    /// out of what the renderer draws (the plane lies above the primary plane there).
    private func draw(_ list: DrawList, on output: any Output) throws {
        var desktop = list
        let cursor = output.softwareCursor
        if !cursor.isEmpty { desktop.commands += cursor }
        var local = desktop.forOutput(output)
        if let onPlane = placeVideo(local, on: output) { local.commands.remove(at: onPlane) }
        let frame = try output.beginFrame()
        let changed = output.damage.record(local)
        let tracking = backend.damageTracking
        let region = tracking ? output.damage.damage(bufferAge: frame.bufferAge)?.orWhole(width: local.width, height: local.height) : nil
        try renderer.draw(local, into: frame.target, damage: region)
        output.damageStatistics.record(region, width: local.width, height: local.height)
        try output.commit(damage: tracking ? changed : nil)
    }

    /// Whether the output's video goes on one of its overlay planes with this frame (`OverlayPlanner`
    /// decides whether it could, the output whether its driver takes it), and why not; a change
    /// of decision is noted for the log. Returns the index of the draw command the plane shows
    /// instead, or nil: the video, if any, is composited.
    private func placeVideo(_ list: DrawList, on output: any Output) -> Int? {
        let decision = videosShown ? OverlayPlanner.plan(list, planes: output.overlayPlanes) : .noVideo
        var scanout: PlaneScanout?
        var onPlane: Int?
        if case let .scanout(command, plane, source, destination) = decision, let picture = list.commands[command].contents?.source.dmabuf {
            scanout = PlaneScanout(picture: picture, plane: plane, source: source, destination: destination)
            onPlane = command
        }
        var outcome = decision
        if let refusal = output.scanOut(scanout) {
            outcome = .composite(refusal)
            onPlane = nil
        }
        switch outcome {
        case .noVideo: break
        case .composite: overlayCompositedFrames += 1
        case .scanout: overlayScanoutFrames += 1
        }
        if scanout != nil { overlayEligibleFrames += 1 }
        if overlayDecisions[output.name] != outcome {
            overlayDecisions[output.name] = outcome
            // What the planner weighed: the last video or app window (dma-buf) drawn.
            let candidate = list.commands.last { $0.contents?.source.isScanoutCandidate == true }
            let what = candidate?.contents?.source.isVideo == false ? "app window" : "video"
            switch outcome {
            case .noVideo: break
            case .composite(let why): notes.append("\(what) on \(output.name) composited: \(why)")
            case let .scanout(_, plane, source, destination):
                notes.append("\(what) on \(output.name) scanned out on overlay plane \(plane) (\(source) to \(destination))")
            }
        }
        return onPlane
    }

    /// What changed in the overlay decisions since the last call, for the log.
    public func takeNotes() -> [String] {
        defer { notes.removeAll() }
        return notes
    }

    /// The frame presented last, top row first, as it was drawn: where one output's buffer
    /// holds the whole desktop pixel for pixel, that buffer read back; otherwise the last
    /// desktop drawn again offscreen (several outputs, turned or scaled ones).
    public func screenshot() throws -> Bitmap {
        let outputs = backend.outputs
        if outputs.count == 1, let o = outputs.first, o.showsWholeDesktop(width: backend.width, height: backend.height),
           let shot = try o.readPresented() {
            return shot
        }
        guard let lastList else { throw ScreenshotUnavailable(reason: "nothing has been presented yet, so there is no frame to read") }
        return try redraw(lastList)
    }

    /// Draws `list` (the whole desktop) whole into an offscreen buffer and reads it back, top
    /// row first.
    private func redraw(_ list: DrawList) throws -> Bitmap {
        guard let offscreen else {
            throw ScreenshotUnavailable(reason: "the \(backend.name) backend's desktop is not held by one buffer, and there is no offscreen buffer to redraw it in")
        }
        let buffer: any OffscreenBuffer
        if let kept = redrawBuffer, kept.width == list.width, kept.height == list.height {
            buffer = kept
        } else {
            redrawBuffer = nil
            buffer = try offscreen.makeBuffer(width: list.width, height: list.height)
            redrawBuffer = buffer
        }
        try renderer.draw(list, into: buffer, damage: nil)
        return try buffer.read()
    }
}
