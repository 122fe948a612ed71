import LaminaProtocol

/// Display links (`CADisplayLink`, protocol 1.7): the `display-link` request, the frame
/// messages each produced frame sends (`DisplayLinks` decides which), and the answers that let
/// the next one go.
extension Compositor {
    /// The `display-link` request: creates, updates or removes one of the client's links.
    func displayLinkRequest(link: UInt32, _ change: DisplayLinkChange, for client: ClientID) throws -> Reply {
        guard let minor = sessions[client]?.minor, minor >= 7 else {
            throw RequestRefused(.invalidRequest, "display links need protocol 1.7 or later; this client said 1.\(sessions[client]?.minor ?? 0) in its hello")
        }
        switch change {
        case .remove:
            guard displayLinks.remove(client: client, link: link) else {
                throw RequestRefused(.invalidRequest, "there is no display link \(link) to remove")
            }
        case let .set(paused, range, output):
            if let problem = range.problem { throw RequestRefused(.invalidRequest, "display link \(link): \(problem)") }
            if !output.isEmpty, !backend.outputs.contains(where: { $0.name == output }) {
                throw RequestRefused(.invalidRequest, "display link \(link) cannot follow output '\(output)': there is no output by that name (outputs: \(backend.outputNames.joined(separator: ", ")); an empty name follows the fastest)")
            }
            // On the virtual clock a link starts counting from the refresh the clock is at, so
            // its first callback comes with the next one; on the real clock, with the next frame.
            let start = clock.isVirtual ? displayLinkTiming(forFrameOn: nil)(output)?.timestamp : nil
            if let problem = displayLinks.set(client: client, link: link, isPaused: paused, range: range, output: output,
                                              startAt: start, maximumLinks: configuration.limits.maxDisplayLinks) {
                throw RequestRefused(.limitExceeded, problem)
            }
            if !clock.isVirtual, displayLinks.wantsFrame { requestFrame(.displayLink) }
        }
        return .done
    }

    /// A commit from `client` answers its unanswered frame message: on the real clock the loop
    /// ticks again so the next refresh sends the next one.
    func displayLinkAnswered(_ client: ClientID) {
        guard displayLinks.answered(client), !clock.isVirtual, displayLinks.wantsFrame else { return }
        requestFrame(.displayLink)
    }

    /// After a frame went out: the frame messages due, to 1.7 clients. On the real clock a
    /// running link whose client has answered keeps the loop ticking.
    func sendDisplayLinkFrames(for frame: RepaintLoop.Frame) {
        guard displayLinks.isActive else { return }
        for (client, message) in displayLinks.frames(timing: displayLinkTiming(forFrameOn: frame)) {
            guard let s = sessions[client], s.state == .ready, s.minor >= 7 else { continue }
            reply(client, .frame(message))
        }
        if !clock.isVirtual, displayLinks.wantsFrame { repaint.request(.displayLink) }
    }

    /// The refresh rate links follow where nothing paces frames.
    var unpacedLinkRate: Double {
        if case .real(let hz) = clock.kind { return hz }
        return configuration.displayLinkRefreshRate
    }

    /// The frame's timing as a link following each output sees it ("" the fastest): with
    /// page-flipping outputs, the refresh the frame is aimed at, for links whose output it drew;
    /// where nothing paces frames, the refresh boundary of the clock's rate the frame was drawn
    /// at (on the virtual clock the last boundary the clock reached, so advancing one second at
    /// 60 Hz in any steps passes 60 of them). `frame` nil: the timing now.
    func displayLinkTiming(forFrameOn frame: RepaintLoop.Frame?) -> (String) -> DisplayLinkTiming? {
        let paced = repaint.planner.outputs
        let fastest = paced.min { ($0.value.scheduler.refreshInterval, $0.key) < ($1.value.scheduler.refreshInterval, $1.key) }
        if paced.isEmpty || clock.isVirtual {
            // The boundary the frame was drawn at: the timer fires on it (or a little after, under
            // load), so the last boundary reached, with room for a timer a hair early. On the
            // virtual clock, the followed output's refreshes (else the fastest's, else the rate's).
            let t = now
            let slack = clock.isVirtual ? 1e-6 : 0.01
            let unpaced = 1 / unpacedLinkRate
            return { name in
                let interval = (paced[name] ?? fastest?.value)?.scheduler.refreshInterval ?? unpaced
                return DisplayLinkTiming(timestamp: (t / interval + slack).rounded(.down) * interval, interval: interval)
            }
        }
        let drawn = Set(frame?.outputs ?? Array(paced.keys))
        let target = frame?.target ?? now
        return { name in
            let followed = paced[name] != nil ? name : fastest!.key
            guard drawn.contains(followed), let o = paced[followed] else { return nil }
            return DisplayLinkTiming(timestamp: target, interval: o.scheduler.refreshInterval)
        }
    }
}
