import LaminaCore
import LaminaProtocol

/// Receives each presented frame (laminad writes them as numbered PNG files for the headless
/// demo, `--frames-dir`). The frame step hands it the frame; it calls nothing back.
public protocol FrameRecording: AnyObject {
    /// `frame` is the desktop as presented, top row first.
    func record(_ frame: Bitmap) throws
}

/// A request that waits for the next frame: asked while some output still waited for its page
/// flip, it is answered once every output has drawn a frame since (`owed` empties).
struct FrameWaiter {
    let client: ClientID
    let id: UInt32
    let request: Request
    /// The paced outputs that have not drawn since the request.
    var owed: Set<String>
}

/// The repaint loop (weston's output repaint, as one path): a reason for a frame arrives
/// (`requestFrame`), the platform's timer is armed (`scheduleRepaint`), it fires (`frameDue`),
/// the frame is produced and presented on the outputs that are due (`produce`), and the
/// backend's events come back (`handle(_:)`). Requests that need the current state drawn ask
/// the loop too (`drawn(for:…)`); nothing else draws.
extension Compositor {
    /// Something needs drawing: the loop notes why and arms the timer if it is not armed.
    public func requestFrame(_ reason: RepaintReason) {
        repaint.request(reason)
        scheduleRepaint()
    }

    /// Arms the platform's timer where a frame is wanted and it is not armed yet (at start-up,
    /// after a frame, after the backend's events).
    public func scheduleRepaint() {
        switch repaint.schedule(now: realTime()) {
        case .at(let time)?:
            timerArmings &+= 1
            frameTimer.arm(at: time)
        case .afterCurrentEvent?:
            timerArmings &+= 1
            frameTimer.armAfterCurrentEvent()
        case nil: break
        }
    }

    /// The platform's frame timer fired: draws the frame the loop says is due, on the outputs
    /// that are free and need it, for the refresh it is aimed at.
    public func frameDue() {
        guard let frame = repaint.frameDue(now: realTime()) else {
            scheduleRepaint()
            return
        }
        do { try produce(frame) } catch { logger.error("frame failed: \(error)") }
    }

    /// Draws the current state on every output now if a frame is wanted (`always`: even if
    /// not). Returns false where nothing was drawn: nothing was wanted, or an output still
    /// waits for its flip (the loop's timer draws it when the flip is in). For compositors
    /// driven by hand: tests, benchmarks, the fuzzer.
    @discardableResult
    public func flushFrame(always: Bool = false) throws -> Bool {
        guard always || repaint.wantsFrame, let frame = repaint.flush(now: realTime()) else { return false }
        try produce(frame)
        return true
    }

    /// Whether a frame is wanted: a change not drawn yet, or an output that owes a frame.
    public var repaintPending: Bool { repaint.wantsFrame }

    /// The backend's events (page flips, hotplug, outputs relit): the loop takes the
    /// presentations, the display follows the outputs, and the next frame is scheduled.
    public func handle(_ events: BackendEvents) {
        repaint.presented(events.presented)
        framesPresented &+= UInt64(events.presented.count)
        if let last = events.presented.last { host?.framePresented(at: clock.isVirtual ? now : last.time) }
        for p in events.presented { noteFirstFrame(at: p.time) }
        for reason in events.reasons { repaint.request(reason) }
        // A display plugged in, unplugged or changing mode can change the desktop's size.
        resize(width: backend.width, height: backend.height)
        setOutputRoots(backend.outputRoots)
        outputsChanged()
        announceDisplay()
    }

    /// The outputs were lit, blanked, connected or lost (power, hotplug, the session): the loop
    /// paces the ones that are lit now.
    public func outputsChanged() {
        repaint.setOutputs(backend.pagedOutputs)
        answerWaiters(drawn: [])
        scheduleRepaint()
    }

    /// Answers a request that needs the current state drawn: true where it is drawn already (or
    /// was just drawn, `always` drawing even without a change); false where the request waits
    /// for the next frame, to be answered then (`FrameWaiter`).
    func drawn(for request: Request, id: UInt32, client: ClientID, always: Bool) throws -> Bool {
        guard always || repaint.wantsFrame else { return true }
        if let frame = repaint.flush(now: realTime()) {
            try produce(frame)
            return true
        }
        sessions[client]?.waitsForFrame = true
        frameWaiters.append(FrameWaiter(client: client, id: id, request: request, owed: Set(repaint.planner.outputs.keys)))
        requestFrame(.request)
        return false
    }

    /// Waiters whose outputs have all drawn since they asked (or are gone) are answered; their
    /// clients' frames are handled again.
    private func answerWaiters(drawn: [String]) {
        guard !frameWaiters.isEmpty else { return }
        let paced = Set(repaint.planner.outputs.keys)
        var answered: [FrameWaiter] = []
        for i in frameWaiters.indices.reversed() {
            frameWaiters[i].owed.subtract(drawn)
            frameWaiters[i].owed.formIntersection(paced)
            if frameWaiters[i].owed.isEmpty { answered.append(frameWaiters.remove(at: i)) }
        }
        for w in answered.reversed() {
            // Cleared before the reply: the platform, told of the reply, reads the client again.
            sessions[w.client]?.waitsForFrame = false
            do {
                if let answer = try replyAfterFrame(w.request) { reply(w.client, .reply(id: w.id, answer)) }
            } catch {
                logger.error("request \(w.id) from \(w.client) failed after its frame: \(error)")
                reply(w.client, .error(ErrorMessage(code: .internalError, subject: .request, serial: w.id, message: "\(error)")))
            }
        }
    }

    /// Draws and presents `frame`: the state at its target (the refresh it is aimed at; the
    /// virtual clock's frames show its time) on its outputs (nil: every output).
    func produce(_ frame: RepaintLoop.Frame) throws {
        clock.beginFrame(at: frame.target)
        defer { clock.endFrame() }
        var failure: (any Error)?
        let start = realTime()
        // Scrolls move the model's origins first: the tick and the walk see where they are.
        stepScrolls(at: now)
        let events = tickAnimations(at: now)
        let flipping: Set<String>
        do {
            flipping = try renderFrame(on: frame.outputs, startedAt: start)
        } catch {
            failure = error
            flipping = Set(backend.outputs.filter(\.isFramePending).map(\.name))
        }
        let submitted = realTime()
        if backend.isActive {
            // Shown at once: drawn and not waiting for a flip (counted without building lists:
            // this runs every frame).
            if let outputs = frame.outputs {
                for name in outputs where !flipping.contains(name) { framesPresented &+= 1 }
            } else {
                for o in backend.outputs where o.isOn && !flipping.contains(o.name) { framesPresented &+= 1 }
            }
        }
        repaint.submitted(frame, flipping: flipping, now: submitted)
        host?.frameSubmitted()
        if flipping.isEmpty {
            noteFirstFrame(at: submitted)
            host?.framePresented(at: now)
        }
        frameProduced()
        // The clients hear of their animations once the frame that shows them is presented.
        if !events.isEmpty { deliver(events) }
        deliverScrollEvents()
        // Display links hear of the frame after it went out, well before the next one's
        // deadline: a commit made in their callback is shown in the frame they target.
        sendDisplayLinkFrames(for: frame)
        if !frameWaiters.isEmpty { answerWaiters(drawn: frame.outputs ?? Array(repaint.planner.outputs.keys)) }
        scheduleRepaint()
        if let failure { throw failure }
    }

    /// After each frame: what the frame step noted for the log, and the frame to the recorder.
    private func frameProduced() {
        for note in presenter.takeNotes() { logger.info("\(note)") }
        if !videoImportRefusalLogged, let why = presenter.renderer.videoImportRefusal {
            videoImportRefusalLogged = true
            logger.notice("video pictures in dma-buf memory are copied from now on: \(why)")
        }
        if let frameRecorder {
            do { try frameRecorder.record(try presenter.screenshot()) } catch { logger.error("recording frame: \(error)") }
        }
    }

    private func noteFirstFrame(at time: Double) {
        guard !firstFrameShown, !backend.outputs.isEmpty else { return }
        firstFrameShown = true
        let since = configuration.startTime.map { " \(Int(((time - $0) * 1000).rounded())) ms after start" } ?? ""
        logger.notice("first frame on screen\(since): \(backend.summary)")
    }

    /// One frame of the state the animations were ticked to: videos' pictures taken, the draw
    /// list built and presented. Returns the outputs whose page flips it queued.
    private func renderFrame(on outputs: [String]?, startedAt start: Double) throws -> Set<String> {
        let t = now
        // Commits since the last frame that gave layers transitions: their old renderings are
        // drawn; transitions that ended let theirs go.
        drawReplacedRenderings()
        transitionSnapshots.keepOnly { transitionInProgress(entry: $0, layer: $1) }
        if !liveVideos.isEmpty { updateVideoFrames(at: t) }
        updateAnimatedImages(at: t)
        // The presentation tree as this tick left it, handed to the render walk as a value.
        let presentation = PresentationTree(ticked: animationStates)
        var list = model.drawList(at: t, presentation: presentation, transitions: transitionSnapshots,
                                    rasters: layerRasters, cache: renderCache, particleLimits: configuration.limits.particles,
                                    displayScale: backend.outputs.map(\.scale).max() ?? 1,
                                    apps: appPortals(presentation: presentation))
        renderCache.endFrame()
        layerRasters?.endFrame()
        for serial in list.truncated where !truncationReported.contains(serial) {
            truncationReported.insert(serial)
            let who = model.entries.first { $0.serial == serial }.map { $0.client?.description ?? "session '\($0.session)'" } ?? "a client"
            logger.warning("\(who)'s tree needs more than \(RenderWalkBudget.maximumVisits) layer draws in a frame (replicators multiply them): the rest is not drawn")
        }
        stats.truncatedFrames += list.truncated.isEmpty ? 0 : 1
        if bootHandoff != nil { drawBootPictures(into: &list, at: t) }
        presenter.videosShown = !liveVideos.isEmpty || appBuffersInDMABufs
        let flipping = try presenter.present(list, on: outputs)
        bootHandoff?.frameDrawn(at: now)
        stats.framesRendered += 1
        stats.lastFrameSeconds = realTime() - start
        lastFrameTime = t
        // With a real clock, a running animation asks for the next frame; a virtual clock
        // only moves when told to.
        liveEmitters = list.liveEmitters
        apps.shown = list.appWindowsShown
        noteTiles(list, time: t)
        if !clock.isVirtual, isAnimating || videosPlaying || liveEmitters > 0 || isScrolling || tilesFading || bootFading { repaint.request(.sceneChanged) }
        // An animated image wakes the loop when its next frame is due, not every refresh.
        if !clock.isVirtual, let next = nextAnimatedImageChange(after: t) { repaint.request(.imageFrame, at: next) }
        if !watchers.isEmpty {
            watch(#"{"event":"frame","frame":\#(stats.framesRendered),"commits":\#(stats.commitsApplied),"time":\#(JSONWriter.format(t)),"renderMilliseconds":\#(JSONWriter.format((stats.lastFrameSeconds * 1000 * 1000).rounded() / 1000))}"#)
        }
        return flipping
    }

    /// At most this many commits' replaced renderings wait for a frame; more are drawn at once
    /// (commits that transition faster than frames are drawn, or with the display off, hold no
    /// more than this many old trees).
    static let maximumReplacedRenderings = 16

    /// Keeps what a commit replaced on layers that now have a transition, for the next frame.
    func keepReplaced(_ replaced: ReplacedRendering) {
        replacedRenderings.append(replaced)
        if replacedRenderings.count > Self.maximumReplacedRenderings { drawReplacedRenderings() }
    }

    /// Draws the old renderings that commits since the last frame replaced, in commit order
    /// (a later commit's rendering of a layer is the one its newer transition shows).
    func drawReplacedRenderings() {
        guard !replacedRenderings.isEmpty else { return }
        for replaced in replacedRenderings { transitionSnapshots.draw(replaced, rasters: layerRasters) }
        replacedRenderings.removeAll()
    }
}
