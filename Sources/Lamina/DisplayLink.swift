import LaminaCore
import LaminaProtocol

/// `CADisplayLink`: a callback in step with the display (protocol 1.7). laminad sends the
/// connection a `frame` message at each refresh while one of its links runs; the callback runs
/// on the main actor with `timestamp` (the presentation time of the last frame),
/// `targetTimestamp` (the presentation time of the frame being prepared: what the callback
/// commits is shown then) and `duration` (the output's refresh interval), all in laminad's media
/// time (`Connection.currentMediaTime`).
///
/// ```swift
/// let link = DisplayLink(connection: connection) { link in
///     sparkline.path = path(at: link.targetTimestamp)   // committed after the callback
/// }
/// link.preferredFrameRateRange = FrameRateRange(minimum: 15, maximum: 30, preferred: 30)
/// …
/// link.invalidate()
/// ```
///
/// After the callbacks of a frame the connection commits what they changed (the implicit
/// transaction), or an empty commit when they changed nothing: that commit answers the frame,
/// and laminad sends no other until it is answered, so a callback slower than the refresh gets
/// the latest frame, never a backlog. The connection keeps a link until `invalidate()`, as a run
/// loop keeps a `CADisplayLink`.
@MainActor
public final class DisplayLink {
    /// The link's number on its connection.
    public let number: UInt32
    public private(set) weak var connection: Connection?
    /// The presentation time of the last frame (0 before the first callback).
    public private(set) var timestamp: Double = 0
    /// The presentation time of the frame being prepared.
    public private(set) var targetTimestamp: Double = 0
    /// The output's refresh interval, in seconds.
    public private(set) var duration: Double = 0
    /// Callbacks run so far.
    public private(set) var frameCount = 0
    /// False once `invalidate()` was called.
    public private(set) var isValid = true
    /// A paused link gets no callbacks, and keeps no frames coming.
    public var isPaused: Bool {
        didSet { if isPaused != oldValue { update() } }
    }
    /// The rates the callbacks would like (`CAFrameRateRange`); `.default`: the output's rate.
    /// laminad calls back on every n-th refresh of the output, n chosen for the preferred rate.
    public var preferredFrameRateRange: FrameRateRange = .default {
        didSet { if preferredFrameRateRange != oldValue { update() } }
    }
    /// The output whose refreshes the link follows, by name ("HDMI-A-1"); empty: the fastest.
    public var output: String {
        didSet { if output != oldValue { update() } }
    }
    private let callback: @MainActor (DisplayLink) -> Void

    /// A link on `connection`, running at once (unless `paused`), following `output` (empty:
    /// the fastest output).
    public init(connection: Connection, output: String = "", paused: Bool = false, _ callback: @escaping @MainActor (DisplayLink) -> Void) {
        self.connection = connection
        self.output = output
        isPaused = paused
        self.callback = callback
        number = connection.registerDisplayLink()
        connection.displayLinks[number] = self
        update()
    }

    /// Stops the link for good: laminad forgets it and the connection lets it go.
    public func invalidate() {
        guard isValid else { return }
        isValid = false
        connection?.displayLinks[number] = nil
        connection?.sendDisplayLink(number, .remove)
    }

    /// Tells a new connection of the link (after a reconnection).
    func replay() { update() }

    private func update() {
        guard isValid else { return }
        connection?.sendDisplayLink(number, .set(isPaused: isPaused, range: preferredFrameRateRange, output: output))
    }

    /// A frame message named this link.
    func fire(_ frame: DisplayLinkFrame) {
        guard isValid, !isPaused else { return }
        timestamp = frame.timestamp
        targetTimestamp = frame.targetTimestamp
        duration = frame.duration
        frameCount += 1
        callback(self)
    }
}

extension Connection {
    func registerDisplayLink() -> UInt32 {
        defer { nextDisplayLink = nextDisplayLink == .max ? 1 : nextDisplayLink + 1 }
        return nextDisplayLink
    }

    /// Sends a display-link request; a refusal (a bad range, an unknown output, the budget)
    /// reaches `onError`. Requests go out in the order they were made.
    func sendDisplayLink(_ number: UInt32, _ change: DisplayLinkChange) {
        guard isConnected else { return }
        let channel = channel
        Task { @MainActor [weak self] in
            do {
                _ = try await channel.request(.displayLink(link: number, change))
            } catch let e as LaminaError {
                self?.onError(e)
            } catch {}
        }
    }

    /// A `frame` message: the links named run their callbacks, then what they changed is
    /// committed (an empty commit when nothing), which answers the frame.
    func receivedFrame(_ frame: DisplayLinkFrame) {
        for n in frame.links { displayLinks[n]?.fire(frame) }
        guard isConnected else { return }
        let before = channel.commitsSent
        Transaction.flush()
        if channel.commitsSent == before {
            do throws(LaminaError) { try channel.commit([]) } catch { onError(error) }
        }
    }
}
