import LaminaCore
import LaminaProtocol

/// Connections and their bytes: hello and welcome, frames decoded within a budget, the
/// descriptors that come with them, errors and drops. Commits go to the scene
/// (CompositorCommits.swift), requests to CompositorRequests.swift.
extension Compositor {
    /// A new connection; it must say hello first. `peer` says who it is (the platform reads
    /// SO_PEERCRED); in-process callers are trusted.
    public func connect(peer: PeerIdentity = .trusted) -> ClientID {
        let id = ClientID(rawValue: nextClient)
        nextClient &+= 1
        sessions[id] = Session(id: id, frameLimit: min(configuration.helloFrameLimit, configuration.frameLimit), peer: peer)
        return id
    }

    /// The connection closed (or was closed). Its layers leave the screen unless its session keeps them.
    public func disconnected(_ client: ClientID) {
        guard sessions.removeValue(forKey: client) != nil else { return }
        watchers.remove(client)
        frameWaiters.removeAll { $0.client == client }
        displayLinks.removeClient(client)
        stopManagingApps(client)
        inputDisconnected(client, serial: model.index(of: client).map { model.entries[$0].serial })
        staged[client] = nil
        if let i = model.index(of: client) {
            let serial = model.entries[i].serial
            if !model.entries[i].session.isEmpty { sessionsChanged() }
            if model.detach(client) { requestFrame(.sceneChanged) }
            if model.entries.first(where: { $0.serial == serial }) == nil {
                // The client's layers went with it: forget its animations and their bookkeeping.
                if forgetAnimations(ofEntry: serial) { requestFrame(.sceneChanged) }
                animationRecords = animationRecords.filter { $0.value.entry != serial }
                groupCounts = groupCounts.filter { $0.key.entry != serial }
            }
        }
        logger.info("\(client) disconnected")
    }

    /// The most descriptors a client may have sent ahead of the frames that take them.
    public static let maximumPendingDescriptors = 512

    /// Bytes read from a client's socket, with the descriptors that came with them (SCM_RIGHTS),
    /// already mapped by the platform. A descriptor belongs to the frame that starts in the
    /// bytes it came with (docs/protocol.md, "Images and file descriptors").
    /// Handles at most `frameBudget` frames; whole frames left over (`hasPendingFrame`) are
    /// handled by `handlePending` on a later turn, so one client's burst cannot hold the loop.
    public func receive(_ bytes: UnsafeRawBufferPointer, attachments: [MemoryAttachment] = [], from client: ClientID,
                        frameBudget: Int = .max) {
        guard sessions[client] != nil else { return }
        let start = sessions[client]!.received
        sessions[client]!.received += bytes.count
        for a in attachments { sessions[client]!.attachments.append((a, start, start + bytes.count)) }
        guard sessions[client]!.attachments.count <= Self.maximumPendingDescriptors else {
            sessions[client]!.attachments.removeAll()
            drop(client, ErrorMessage(code: .malformedFrame, message: "more than \(Self.maximumPendingDescriptors) file descriptors were sent ahead of the frames that take them"))
            return
        }
        sessions[client]!.decoder.append(bytes)
        handlePending(client, frameBudget: frameBudget)
    }

    /// Handles up to `frameBudget` whole frames already received from `client`.
    public func handlePending(_ client: ClientID, frameBudget: Int) {
        if staged[client] != nil { continueStaged(client) } else { handleFrames(client, frameBudget: frameBudget) }
    }

    /// Whether a whole frame from `client` waits to be handled (or a bad header to be refused).
    public func hasPendingFrame(_ client: ClientID) -> Bool {
        guard let s = sessions[client], s.state != .closed, !s.waitsForFrame else { return false }
        return staged[client] != nil || s.decoder.hasWholeFrame
    }

    /// Whether a request of `client`'s waits for the next frame: nothing more of the client's
    /// is handled until it is answered, so the platform need not read from it meanwhile.
    public func isWaitingForFrame(_ client: ClientID) -> Bool { sessions[client]?.waitsForFrame ?? false }

    /// Whether `client` is connected and has not said hello yet.
    public func isAwaitingHello(_ client: ClientID) -> Bool { sessions[client]?.state == .awaitingHello }

    func handleFrames(_ client: ClientID, frameBudget: Int) {
        var handled = 0
        while sessions[client]?.state != .closed, sessions[client] != nil {
            // A staged commit holds the client's later frames back until it is done.
            guard handled < frameBudget, host?.isHeldBack(client) != true, staged[client] == nil, sessions[client]?.waitsForFrame == false else { return }
            handled += 1
            let frame: (type: UInt16, body: ArraySlice<UInt8>)?
            do {
                frame = try sessions[client]!.decoder.next()
            } catch {
                drop(client, ErrorMessage(code: error.isTooLarge ? .frameTooLarge : .malformedFrame,
                                          message: error.description + (sessions[client]?.state == .awaitingHello ? " (before hello)" : "")))
                return
            }
            guard let frame else { return }
            let frameStart = sessions[client]!.consumed
            let frameEnd = frameStart + Frame.headerSize + frame.body.count
            sessions[client]!.consumed = frameEnd
            handleFrame(type: frame.type, body: frame.body, frameStart: frameStart, from: client)
            // (type 2: a commit reports its own descriptor count mismatch.)
            // Descriptors whose read ended inside this frame belong to no later frame: the
            // frame should have taken them. Close them (dropping the mapping) and say so.
            guard var session = sessions[client], !session.attachments.isEmpty else { continue }
            let before = session.attachments.count
            session.attachments.removeAll { $0.end <= frameEnd }
            let orphans = before - session.attachments.count
            sessions[client] = session
            if orphans > 0 && frame.type != 2 {
                reply(client, .error(ErrorMessage(code: .invalidImage,
                                                  message: "\(orphans) file descriptor\(orphans == 1 ? "" : "s") came with a message of type \(frame.type), which takes none; closed")))
            }
        }
    }

    /// The descriptors that came with the frame starting at `frameStart` (and any earlier
    /// ones still queued), taken from the queue.
    func takeAttachments(frameStart: Int, for client: ClientID) -> [MemoryAttachment] {
        guard var session = sessions[client] else { return [] }
        let n = session.attachments.prefix { $0.start <= frameStart }.count
        let taken = session.attachments.prefix(n).map(\.attachment)
        session.attachments.removeFirst(n)
        sessions[client] = session
        return taken
    }


    /// Refuses a connection for a reason the platform found (a handshake that took too
    /// long): sends the error and closes it.
    public func refuse(_ client: ClientID, _ error: ErrorMessage) {
        guard sessions[client] != nil, sessions[client]?.state != .closed else { return }
        drop(client, error)
    }

    /// Sends an error and closes the connection. Other clients are not affected.
    func drop(_ client: ClientID, _ error: ErrorMessage) {
        logger.warning("dropping \(client): \(error)")
        send(client, ServerMessage.error(error).encoded())
        sessions[client]?.state = .closed
        stats.clientsDropped += 1
        host?.close(client)
    }

    func reply(_ client: ClientID, _ message: ServerMessage) { send(client, message.encoded()) }

    /// Tells every client of protocol 1.5 or later but `mover` the virtual clock's new time.
    /// (Over a copy of the client list: a send that overflows a queue drops that client.)
    func clockMoved(by mover: ClientID) {
        let frame = ServerMessage.clock(time: clock.virtualTime).encoded()
        for (c, s) in Array(sessions) where c != mover && s.state == .ready && s.minor >= 5 {
            guard sessions[c]?.state == .ready else { continue }
            send(c, frame)
        }
    }

    func handleFrame(type: UInt16, body: ArraySlice<UInt8>, frameStart: Int, from client: ClientID) {
        // A big commit is decoded and applied a step at a time (CompositorStaging.swift).
        if type == 2, sessions[client]?.state == .ready, body.count / 5 > configuration.commitStepOperations,
           beginStaged(body, frameStart: frameStart, from: client) {
            return
        }
        let message: ClientMessage
        do {
            message = try ClientMessage.decode(type: type, body: body)
        } catch {
            if sessions[client]?.state == .awaitingHello {
                let code: ErrorCode = type == 1 ? .unsupportedVersion : .notHello
                drop(client, ErrorMessage(code: code, message: "expected a hello: \(error)"))
                return
            }
            switch error {
            case .unknownType:
                reply(client, .error(ErrorMessage(code: .unknownMessage, message: error.description)))
            case .decode(let e):
                reply(client, .error(ErrorMessage(code: .malformedMessage, message: e.description)))
            case let .commit(serial, index, e):
                displayLinkAnswered(client)
                stats.commitsRejected += 1
                reply(client, .error(ErrorMessage(code: .malformedMessage, subject: .commit, serial: serial,
                                                  operationIndex: Int32(index), message: e.description)))
            }
            return
        }
        switch (sessions[client]?.state, message) {
        case (.awaitingHello, .hello(let hello)):
            welcome(client, hello)
        case (.awaitingHello, _):
            drop(client, ErrorMessage(code: .notHello, message: "the first message must be a hello"))
        case (.ready, .hello):
            drop(client, ErrorMessage(code: .notHello, message: "hello was already received"))
        case (.ready, .commit(let commit)):
            displayLinkAnswered(client)
            let attachments = commit.descriptorCount > 0 ? takeAttachments(frameStart: frameStart, for: client) : []
            apply(commit, attachments: attachments, from: client)
        case let (.ready, .request(id, request)):
            let attachments = request.descriptorCount > 0 ? takeAttachments(frameStart: frameStart, for: client) : []
            serve(request, id: id, for: client, attachments: attachments)
        default:
            break
        }
    }

    func welcome(_ client: ClientID, _ hello: Hello) {
        guard hello.major == ProtocolVersion.major else {
            drop(client, ErrorMessage(code: .unsupportedVersion,
                                      message: "protocol \(hello.major).\(hello.minor) is not supported; this server speaks \(ProtocolVersion.major).x"))
            return
        }
        let peer = sessions[client]!.peer
        if !peer.isPrivileged {
            let limits = configuration.limits
            let attached = model.entries.compactMap(\.client)
            guard attached.count < limits.maxClients else {
                drop(client, ErrorMessage(code: .limitExceeded, message: "\(attached.count) clients are connected, the most laminad serves (max_clients)"))
                return
            }
            let mine = attached.filter { sessions[$0]?.peer.uid == peer.uid }.count
            guard mine < limits.maxClientsPerUser else {
                drop(client, ErrorMessage(code: .limitExceeded, message: "uid \(peer.uid) has \(mine) clients connected, the most one user may have (max_clients_per_user)"))
                return
            }
        }
        let snapshot: [Operation]
        do {
            snapshot = try model.attach(client, hello: hello, peer: peer, limits: configuration.limits)
        } catch {
            drop(client, error)
            return
        }
        sessions[client]!.state = .ready
        sessions[client]!.decoder.limit = configuration.frameLimit
        if !hello.session.isEmpty { sessionsChanged() }
        sessions[client]!.name = hello.clientName
        sessions[client]!.minor = hello.minor
        logger.info("\(client) '\(hello.clientName)' connected\(hello.session.isEmpty ? "" : " to session '\(hello.session)'")")
        reply(client, .welcome(Welcome(clientID: client.rawValue, displayWidth: UInt32(model.width),
                                       displayHeight: UInt32(model.height), clock: clock.isVirtual ? .virtual : .real,
                                       time: now, snapshot: Self.operations(snapshot, forMinor: hello.minor))))
    }
}
