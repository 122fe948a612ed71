import LaminaCore
import LaminaProtocol

/// A request refused: the error its client is told, with the request's serial.
struct RequestRefused: Error, CustomStringConvertible {
    let code: ErrorCode
    let message: String
    var description: String { message }
    init(_ code: ErrorCode, _ message: String) {
        self.code = code
        self.message = message
    }
}

/// Requests (docs/protocol.md, "Requests"): one method per request, each returning its reply,
/// or nil where the reply waits for the next frame (`drawn(for:…)`), or throwing
/// `RequestRefused`. `serve` checks privilege and sends what they give.
extension Compositor {
    func serve(_ request: Request, id: UInt32, for client: ClientID, attachments: [MemoryAttachment] = []) {
        let peer = sessions[client]?.peer ?? .trusted
        do {
            if !peer.isPrivileged, let what = request.privilegedPurpose {
                throw RequestRefused(.permissionDenied, "\(what) is a privileged request: uid \(peer.uid) is not laminad's user, root or a member of its privileged group (docs/protocol.md, \"Authorisation\")")
            }
            let answer: Reply?
            switch request {
            case .screenshot: answer = try screenshot(request, id: id, client: client)
            case .tree: answer = tree(for: peer)
            case .advanceClock(let seconds): answer = try advanceClock(by: seconds, request, id: id, client: client)
            case .snapshot: answer = try snapshot(of: client)
            case .stats: answer = try stats(request, id: id, client: client)
            case .presentation(let layer): answer = try presentation(of: layer, for: client)
            case .presentationTree: answer = presentationTree(for: peer)
            case .watch: answer = watch(by: client)
            case .registerFont(let byteCount): answer = try registerFont(byteCount: byteCount, attachments: attachments, for: client)
            case .injectInput(let injection): answer = try inject(injection)
            case .takeKeyboardFocus: answer = takeKeyboardFocus(for: client)
            case .listen(let session): answer = try listen(to: session, by: client, peer: peer)
            case let .displayPower(on, output): answer = try displayPower(on, output: output)
            case let .output(name, change): answer = try outputRequest(name: name, change)
            case let .displayLink(link, change): answer = try displayLinkRequest(link: link, change, for: client)
            case .manageApps(let r): answer = try manageApps(r, for: client)
            }
            if let answer { reply(client, .reply(id: id, answer)) }
        } catch let refused as RequestRefused {
            reply(client, .error(ErrorMessage(code: refused.code, subject: .request, serial: id, message: refused.message)))
        } catch let error as UnknownOutput {
            reply(client, .error(ErrorMessage(code: .invalidRequest, subject: .request, serial: id, message: error.description)))
        } catch {
            logger.error("request \(id) from \(client) failed: \(error)")
            reply(client, .error(ErrorMessage(code: .internalError, subject: .request, serial: id, message: "\(error)")))
        }
    }

    /// The reply of a request that needed the current state drawn, once it is.
    func replyAfterFrame(_ request: Request) throws -> Reply? {
        switch request {
        case .screenshot: .screenshot(try presenter.screenshot())
        case .advanceClock: .advanced(time: clock.virtualTime, framesRendered: stats.framesRendered)
        case .stats: .stats(statistics())
        default: nil
        }
    }

    private func screenshot(_ request: Request, id: UInt32, client: ClientID) throws -> Reply? {
        guard try drawn(for: request, id: id, client: client, always: stats.framesRendered == 0) else { return nil }
        return try replyAfterFrame(request)
    }

    /// Without privilege, a client sees only its own layers.
    private func tree(for peer: PeerIdentity) -> Reply {
        .tree(model.json(clock: clock.isVirtual ? .virtual : .real, time: now, owner: peer.isPrivileged ? nil : peer.uid))
    }

    private func advanceClock(by seconds: Double, _ request: Request, id: UInt32, client: ClientID) throws -> Reply? {
        guard clock.isVirtual else {
            throw RequestRefused(.invalidRequest, "advance-clock needs a virtual clock; this server runs a real one (start laminad with --clock virtual)")
        }
        guard seconds.isFinite, seconds >= 0 else {
            throw RequestRefused(.invalidRequest, "advance-clock takes a finite number of seconds ≥ 0, got \(seconds)")
        }
        guard clock.advance(by: seconds) else {
            throw RequestRefused(.invalidRequest, "advance-clock by \(seconds) s would take the virtual clock from \(clock.virtualTime) past its maximum of \(FrameClock.maximumVirtualTime) s")
        }
        if isAnimating || videosPlaying || animatedImagesPlaying || liveEmitters > 0 || isScrolling || tilesFading || bootFading { repaint.request(.sceneChanged) }
        // A running display link hears of every refresh the clock passes (at most one message
        // per advance: the latest).
        if seconds > 0, displayLinks.isActive { repaint.request(.displayLink) }
        if seconds > 0 { clockMoved(by: client) }
        // Kept sessions' animations and playing videos are journalled against the clock:
        // a restart puts them where the clock had taken them.
        if seconds > 0, model.entries.contains(where: {
            $0.isKept && (animationStates[$0.serial]?.animated.isEmpty == false || $0.tree.videos.values.contains { $0.isPlaying })
        }) {
            sessionsChanged()
            host?.acknowledgementAwaitsJournal(client)
        }
        guard try drawn(for: request, id: id, client: client, always: false) else { return nil }
        return try replyAfterFrame(request)
    }

    /// The client's own tree only: no privilege needed.
    private func snapshot(of client: ClientID) throws -> Reply {
        guard let i = model.index(of: client) else { throw RequestRefused(.notHello, "\(client) is not attached") }
        let ops = model.entries[i].tree.snapshot() + Self.animationOperations(model.entries[i], animationState(entry: i))
        return .snapshot(Self.operations(ops, forMinor: sessions[client]?.minor ?? ProtocolVersion.minor))
    }

    /// Textures are uploaded and freed as frames are drawn: with the virtual clock, what is
    /// pending is drawn first (a real clock draws it within a refresh anyway, paced).
    private func stats(_ request: Request, id: UInt32, client: ClientID) throws -> Reply? {
        if clock.isVirtual, !(try drawn(for: request, id: id, client: client, always: false)) { return nil }
        return try replyAfterFrame(request)
    }

    private func presentation(of layer: LayerID, for client: ClientID) throws -> Reply {
        guard let i = model.index(of: client), let p = presentation(of: layer, entry: i, at: now) else {
            throw RequestRefused(.unknownLayer, "layer \(layer) does not exist")
        }
        return .presentation(p, minor: sessions[client]?.minor ?? ProtocolVersion.minor)
    }

    private func presentationTree(for peer: PeerIdentity) -> Reply {
        let t = now
        let json = model.json(clock: clock.isVirtual ? .virtual : .real, time: t, owner: peer.isPrivileged ? nil : peer.uid) { i, layer in
            self.animationState(entry: i)?.animated[layer] == nil ? nil : self.presentation(of: layer, entry: i, at: t)
        }
        return .tree(json)
    }

    private func watch(by client: ClientID) -> Reply {
        watchers.insert(client)
        return .watching
    }

    private func registerFont(byteCount: UInt64, attachments: [MemoryAttachment], for client: ClientID) throws -> Reply {
        guard let fontRegistry else { throw RequestRefused(.invalidRequest, "this laminad draws no text, so it takes no fonts") }
        guard let attachment = attachments.first else {
            throw RequestRefused(.invalidRequest, "register-font needs the font's memory file with the frame (one descriptor, SCM_RIGHTS)")
        }
        let memory: any PixelMemory
        switch attachment {
        case .memory(let m): memory = m
        case .unusable(let why): throw RequestRefused(.invalidRequest, "the font's memory file cannot be used: \(why)")
        case .dmabuf: throw RequestRefused(.invalidRequest, "a font comes in a memory file, not a dma-buf")
        }
        guard byteCount <= UInt64(memory.byteCount) else {
            throw RequestRefused(.invalidRequest, "register-font says \(byteCount) bytes but its memory file holds \(memory.byteCount)")
        }
        let families: [String]
        do {
            families = try fontRegistry.register(UnsafeRawBufferPointer(start: memory.base, count: Int(byteCount)))
        } catch {
            throw RequestRefused(error.code, error.message)
        }
        // Text already drawn may now find its font: rasters kept in the render-list cache are
        // asked for again.
        renderCache.removeAll()
        logger.info("\(client): registered font \(families.joined(separator: ", ")) (\(byteCount) bytes)")
        return .fontRegistered(families: families)
    }

    private func inject(_ injection: InputInjection) throws -> Reply {
        let action: InputAction
        switch self.action(for: injection) {
        case .success(let a): action = a
        case .failure(let refused): throw RequestRefused(.invalidRequest, refused.message)
        }
        if host?.routeInjected(action, origin: .injected) != true { handleInput(action, origin: .injected) }
        return .done
    }

    private func takeKeyboardFocus(for client: ClientID) -> Reply {
        takeFocus(client)
        return .done
    }

    private func listen(to session: String, by client: ClientID, peer: PeerIdentity) throws -> Reply {
        do { try listen(client, session: session, peer: peer) } catch { throw RequestRefused(error.code, error.message) }
        return .watching
    }

    private func displayPower(_ on: Bool, output: String) throws -> Reply {
        let name = output.isEmpty ? nil : output
        guard let outputs = try host?.displayPower(on, output: name) else {
            // Headless: there is nothing to blank, and no output of any name.
            if let name { throw UnknownOutput(name: name, known: [], backend: backend.name) }
            return .displayPower(backend: backend.name, outputs: [])
        }
        return .displayPower(backend: backend.name, outputs: outputs)
    }
}
