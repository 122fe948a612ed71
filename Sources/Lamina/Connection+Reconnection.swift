import LaminaCore
import LaminaPlatform
import LaminaProtocol

/// Coming back when laminad goes away: backoff, a new channel, and the model replayed on it.
extension Connection {
    // MARK: Reconnection

    /// How a connection comes back after laminad went away (a crash, a restart, or laminad
    /// dropping this client): it keeps its model tree, tries again after `initialDelay`,
    /// doubling the wait up to `maximumDelay`, and on success replays the whole tree, its
    /// images, its videos (`VideoSource`: loop, rate, play state and the media time reached,
    /// by the same re-timing as animations) and its explicit animations in one commit, with
    /// actions disabled.
    ///
    /// Animations are re-timed to the new connection: on the real clock (CLOCK_MONOTONIC,
    /// which kept running) each carries on where it would have been; on a virtual clock it
    /// keeps the progress it had at the clock's last time laminad reported (laminad announces
    /// every move of the virtual clock to every client). Implicit animations in flight are not
    /// replayed: their layers show the model values.
    ///
    /// Calls in flight when laminad went away (`sync()`, requests) fail with
    /// `connectionClosed`; calls made while reconnecting wait, and complete on the new
    /// connection after the replay (a `sync()` then confirms the replay was applied). Changes
    /// made while disconnected are kept in the model and go with the replay.
    public struct ReconnectPolicy: Sendable, Equatable {
        public var initialDelay: Double
        public var maximumDelay: Double
        /// Attempts before giving up (nil: until `close()`).
        public var maximumAttempts: Int?
        public init(initialDelay: Double = 0.05, maximumDelay: Double = 2, maximumAttempts: Int? = nil) {
            self.initialDelay = initialDelay
            self.maximumDelay = maximumDelay
            self.maximumAttempts = maximumAttempts
        }
        public static let standard = ReconnectPolicy()
    }

    /// What `onConnectionEvent` hears.
    public enum ConnectionEvent: Sendable, Equatable {
        /// laminad went away; the connection is trying to come back.
        case disconnected(LaminaError)
        /// Connected again after this many attempts, and the model tree was replayed.
        case reconnected(attempts: Int)
        /// `maximumAttempts` failed; the connection is closed.
        case gaveUp(LaminaError)
    }

    /// Returns once connected; while reconnecting, waits for the replay.
    func connected() async throws {
        if isConnected { return }
        guard reconnectTask != nil, !isClosed else { throw LaminaError.connectionClosed("the connection is closed") }
        try await withCheckedThrowingContinuation { reconnectWaiters.append($0) }
    }

    func failReconnectWaiters(_ error: LaminaError) {
        let waiters = reconnectWaiters
        reconnectWaiters.removeAll()
        for w in waiters { w.resume(throwing: error) }
    }

    /// The current channel ended (the relay of an older one is cut off, so this is the current one).
    func channelClosed(_ error: LaminaError) {
        guard !isClosed else { return }
        guard let policy = reconnectPolicy else {
            onError(error)
            return
        }
        isConnected = false
        onConnectionEvent(.disconnected(error))
        let lastTime = currentMediaTime
        reconnectTask = Task { [weak self] in
            var delay = policy.initialDelay
            var attempts = 0
            var lastError = error
            while !Task.isCancelled {
                attempts += 1
                try? await Task.sleep(nanoseconds: UInt64(max(0, delay) * 1e9))
                guard let self, !Task.isCancelled, !self.isClosed else { return }
                let relay = EventRelay()
                let (path, hello) = (self.path, self.hello)
                let opened = await Task.detached { () -> Result<(Channel, Welcome), LaminaError> in
                    do throws(LaminaError) {
                        let (channel, welcome, _) = try Self.open(candidates: [SocketPath.Candidate(path: path, source: path)], hello: hello, relay: relay)
                        return .success((channel, welcome))
                    } catch { return .failure(error) }
                }.value
                guard !Task.isCancelled, !self.isClosed else {
                    if case .success(let (c, _)) = opened { c.close() }
                    return
                }
                switch opened {
                case .success(let (channel, welcome)):
                    self.resumed(on: channel, relay: relay, welcome: welcome, lastTime: lastTime)
                    self.onConnectionEvent(.reconnected(attempts: attempts))
                    return
                case .failure(let e):
                    lastError = e
                    if let max = policy.maximumAttempts, attempts >= max {
                        self.reconnectTask = nil
                        self.isClosed = true
                        self.failReconnectWaiters(e)
                        self.onConnectionEvent(.gaveUp(lastError))
                        return
                    }
                    delay = min(policy.maximumDelay, max(delay * 2, 0.001))
                }
            }
        }
    }

    /// Switches to a new channel and replays the model tree on it.
    func resumed(on channel: Channel, relay newRelay: EventRelay, welcome: Welcome, lastTime: Double) {
        relay.connection = nil
        relay = newRelay
        newRelay.connection = self
        self.channel = channel
        reconnectTask = nil
        let oldClock = clock
        displaySize = Size(width: Double(welcome.displayWidth), height: Double(welcome.displayHeight))
        // A laminad back on another display size: the root fits it before the replay carries
        // it, and its sublayers are laid out again before the next commit.
        rootLayer.takeFittedRoot(displayWidth: displaySize.width, displayHeight: displaySize.height)
        clock = welcome.clock
        serverMinorVersion = welcome.minor
        clientID = welcome.clientID
        virtualTime = welcome.time
        // The real clock kept running through the gap; any other change of clock moves the
        // animations' times by the difference between the old reading and the new one.
        let shift = oldClock == .real && welcome.clock == .real ? 0 : welcome.time - lastTime
        let (ops, descriptors, memories) = replayOperations(snapshot: welcome.snapshot, shift: shift, from: lastTime, now: welcome.time)
        isConnected = true
        do throws(LaminaError) {
            try withExtendedLifetime(memories) { () throws(LaminaError) in _ = try channel.commit(ops, descriptors: descriptors) }
        } catch {
            onError(error)
        }
        // The replay took the place of what was pending; layout still owed (a new display
        // size) runs before the next commit.
        if !needsLayout.isEmpty { Transaction.noteChange(on: self) }
        // The display links are made again on the new connection, as they were.
        for link in displayLinks.values.sorted(by: { $0.number < $1.number }) { link.replay() }
        replayAppManagement()
        let waiters = reconnectWaiters
        reconnectWaiters.removeAll()
        for w in waiters { w.resume() }
    }

    /// One commit that makes laminad's tree this client's model: what the server still holds
    /// for the session (a kept session, or one restored from laminad's journal) destroyed, then
    /// every live image and video, every layer with its properties, sublayers, actions and
    /// animations. A video plays on from the media time it had reached: at the old clock's
    /// last reading (`lastTime`), or on the same real clock (`shift` 0), now.
    func replayOperations(snapshot: [Operation], shift: Double, from lastTime: Double, now: Double)
        -> ([Operation], [Int32], [SharedMemoryFile]) {
        var ops: [Operation] = [.settings(TransactionSettings(disableActions: true))]
        liveVideos = liveVideos.filter { $0.value.video.map { !$0.isDestroyed } ?? false }
        // Videos an earlier client of the session made (`init(existing:)`) cannot be made
        // again here: laminad's copies stay.
        let kept = Set(liveVideos.filter { !($0.value.video?.isReplayed ?? false) }.keys)
        var oldImages = Set<UInt32>()
        for op in snapshot {
            switch op {
            case let .create(id, _): ops.append(.destroy(id))
            case let .set(_, .contents, .image(n)) where n != 0 && !kept.contains(n): oldImages.insert(n)
            default: break
            }
        }
        ops += oldImages.sorted().map { .destroyImage(image: $0) }
        var descriptors: [Int32] = []
        var memories: [SharedMemoryFile] = []
        liveImages = liveImages.filter { $0.value.image.map { !$0.isDestroyed } ?? false }
        for (_, weak) in liveImages.sorted(by: { $0.key < $1.key }) {
            guard let image = weak.image else { continue }
            ops.append(image.createOperation)
            descriptors.append(image.memory.fd.rawValue)
            memories.append(image.memory)
        }
        for (_, weak) in liveVideos.sorted(by: { $0.key < $1.key }) {
            guard let video = weak.video else { continue }
            ops += video.replayOperations(position: video.mediaTime(at: shift == 0 ? now : lastTime), now: now) ?? []
        }
        let all = allLayers()
        for l in all where l !== rootLayer { if let id = l.serverID { ops.append(.create(id, kind: l.kind)) } }
        for l in all {
            guard let id = l.serverID else { continue }
            for key in l.keysToCreate where !(l === rootLayer && (key == .bounds || key == .position)) {
                ops.append(.set(id, key, l.wireValue(key)))
            }
        }
        for l in all {
            guard let id = l.serverID else { continue }
            for (n, child) in l.sublayers.enumerated() {
                if let c = child.serverID { ops.append(.insert(parent: id, child: c, index: UInt32(n))) }
            }
            for (key, action) in l.animationState.actions.sorted(by: { $0.key < $1.key }) {
                ops.append(.setAction(id, dictionary: .actions, key: key, action))
            }
            for (key, action) in l.animationState.styleActions.sorted(by: { $0.key < $1.key }) {
                ops.append(.setAction(id, dictionary: .style, key: key, action))
            }
            let move = shift == 0 ? 0 : l.convertTime(lastTime + shift, from: nil) - l.convertTime(lastTime, from: nil)
            for e in l.animationState.attached where e.sent {
                var a = e.animation
                a.timing.beginTime = (e.resolvedBegin ?? a.timing.beginTime) + move
                ops.append(.addAnimation(id, key: e.key ?? "", tag: e.tag, a))
            }
            l.needsCreate = false
            l.structureChanged = false
            l.serverSublayers = l.sublayers.compactMap(\.serverID)
        }
        discardPending()
        return (ops, descriptors, memories)
    }

    /// Every layer this connection shows or holds: the root's tree in order, masks included,
    /// then the detached layers of a resumed session (`orphans`) and theirs.
    func allLayers() -> [Layer] {
        var all: [Layer] = []
        var stack: [Layer] = [rootLayer] + orphans.reversed()
        while let l = stack.popLast() {
            all.append(l)
            if let m = l.maskLayer { stack.append(m) }
            stack += l.sublayers.reversed()
        }
        return all
    }

    /// Forgets the changes waiting to be sent: the model holds them, and the replay sends the model.
    func discardPending() {
        dirty.removeAll()
        isDirty.removeAll()
        log.removeAll()
        released.removeAll()
        imageOperations.removeAll()
        imageDestroys.removeAll()
        // Tiles are laminad's cache: a new connection asks again for those in view.
        tileOperations.removeAll()
        imageDescriptors.removeAll()
        imageMemories.removeAll()
        Transaction.forget(self)
    }
}
