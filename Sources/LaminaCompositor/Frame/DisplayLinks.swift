import LaminaProtocol

/// When a frame goes out, as a display link following one output sees it: the presentation
/// time of that frame and the output's refresh interval.
public struct DisplayLinkTiming: Sendable, Equatable {
    /// The presentation time of the frame just produced (laminad's media time).
    public var timestamp: Double
    /// Seconds between the output's refreshes.
    public var interval: Double

    public init(timestamp: Double, interval: Double) {
        self.timestamp = timestamp
        self.interval = interval
    }
}

/// The clients' display links (`CADisplayLink`, protocol 1.7), as a value: which links each
/// client has, which run, and which frame messages are due after a frame. Nothing here sends or
/// draws; the compositor asks it after each frame (`frames(timing:)`) and tells it of each
/// client's commits (`answered`).
///
/// Coalescing: a client has at most one `frame` message unanswered. Its next commit answers it
/// (the client libraries commit after running the callbacks, an empty commit when the callbacks
/// changed nothing). Frames produced while a client has not answered send it nothing, so a slow
/// client gets the latest frame once it answers, never a backlog.
public struct DisplayLinks: Sendable {
    struct Link: Sendable, Equatable {
        var isPaused: Bool
        var range: FrameRateRange
        /// The output followed; empty: the fastest.
        var output: String
        /// The timestamp of the last frame message that named this link.
        var last: Double?
    }

    struct ClientLinks: Sendable, Equatable {
        var links: [UInt32: Link] = [:]
        /// A frame message was sent and no commit has answered it yet.
        var awaitingAnswer = false
        var hasRunningLink: Bool { links.values.contains { !$0.isPaused } }
    }

    private(set) var clients: [ClientID: ClientLinks] = [:]
    /// Frame messages sent in all (`stats`: `displayLink.frames`).
    public private(set) var framesSent: UInt64 = 0
    /// Frame messages not sent because the client had not answered the previous one
    /// (`displayLink.coalesced`).
    public private(set) var coalesced: UInt64 = 0

    public init() {}

    /// Whether some link runs (not paused), answered or not.
    public var isActive: Bool { clients.values.contains { $0.hasRunningLink } }

    /// Whether the next frame would send a message: some client with a running link has
    /// answered its last one. The repaint loop keeps ticking while this holds (real clock).
    public var wantsFrame: Bool { clients.values.contains { !$0.awaitingAnswer && $0.hasRunningLink } }

    /// Links in all, and running ones (`stats`).
    public var linkCount: Int { clients.values.reduce(0) { $0 + $1.links.count } }
    public var runningCount: Int { clients.values.reduce(0) { $0 + $1.links.values.filter { !$0.isPaused }.count } }

    /// Creates or updates a link. `startAt`: the timestamp a new or resumed link counts its
    /// first refresh from (the virtual clock's current refresh; nil: the next frame).
    /// Returns a sentence naming what is wrong, or nil when done.
    public mutating func set(client: ClientID, link: UInt32, isPaused: Bool, range: FrameRateRange, output: String,
                             startAt: Double?, maximumLinks: Int) -> String? {
        if let problem = range.problem { return "display link \(link): \(problem)" }
        var c = clients[client] ?? ClientLinks()
        if c.links[link] == nil, c.links.count >= maximumLinks {
            return "display link \(link) would be one more than the \(maximumLinks) links a client may have (max_display_links_per_client)"
        }
        let old = c.links[link]
        let resumed = old == nil || (old!.isPaused && !isPaused)
        c.links[link] = Link(isPaused: isPaused, range: range, output: output, last: resumed ? startAt : old!.last)
        clients[client] = c
        return nil
    }

    /// Forgets a link (`invalidate()`); false when the client has none by that number.
    @discardableResult
    public mutating func remove(client: ClientID, link: UInt32) -> Bool {
        guard clients[client]?.links.removeValue(forKey: link) != nil else { return false }
        if clients[client]!.links.isEmpty { clients[client] = nil }
        return true
    }

    /// The client went: its links go with it.
    public mutating func removeClient(_ client: ClientID) { clients[client] = nil }

    /// The client committed: its unanswered frame message, if any, is answered. Returns whether
    /// one was (the next frame then sends it one again).
    @discardableResult
    public mutating func answered(_ client: ClientID) -> Bool {
        guard clients[client]?.awaitingAnswer == true else { return false }
        clients[client]!.awaitingAnswer = false
        return true
    }

    /// A frame was produced: the messages due, one per client and followed output, each naming
    /// the links that fire. `timing` gives the frame's timing for an output followed ("" the
    /// fastest), or nil where this frame did not draw that output. A link at a lower rate than
    /// its output's (`FrameRateRange.divisor`) fires on every n-th refresh.
    public mutating func frames(timing: (String) -> DisplayLinkTiming?) -> [(client: ClientID, frame: DisplayLinkFrame)] {
        var out: [(client: ClientID, frame: DisplayLinkFrame)] = []
        for client in clients.keys.sorted() {
            var c = clients[client]!
            guard c.hasRunningLink else { continue }
            guard !c.awaitingAnswer else {
                coalesced &+= 1
                continue
            }
            // One message per distinct timing (links following different outputs).
            var messages: [(timing: DisplayLinkTiming, divisor: Int, links: [UInt32])] = []
            for id in c.links.keys.sorted() {
                var link = c.links[id]!
                guard !link.isPaused, let t = timing(link.output) else { continue }
                let n = link.range.divisor(refresh: 1 / t.interval)
                if let last = link.last, t.timestamp < last + (Double(n) - 0.5) * t.interval { continue }
                link.last = t.timestamp
                c.links[id] = link
                if let i = messages.firstIndex(where: { $0.timing == t && $0.divisor == n }) {
                    messages[i].links.append(id)
                } else {
                    messages.append((t, n, [id]))
                }
            }
            guard !messages.isEmpty else { continue }
            c.awaitingAnswer = true
            clients[client] = c
            for m in messages {
                framesSent &+= 1
                out.append((client, DisplayLinkFrame(links: m.links, timestamp: m.timing.timestamp,
                                                     targetTimestamp: m.timing.timestamp + Double(m.divisor) * m.timing.interval,
                                                     duration: m.timing.interval)))
            }
        }
        return out
    }
}
