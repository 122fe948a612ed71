import LaminaCore
import LaminaProtocol

/// The scene model: a client's commit applied to its tree (all or nothing), answered, animated
/// and scheduled; and the display following the outputs' size and layout.
extension Compositor {
    func apply(_ commit: Commit, attachments: [MemoryAttachment] = [], from client: ClientID) {
        do {
            // A layer given a transition shows its rendering from before the commit: what the
            // commit replaces is kept as values, and the frame step draws it.
            var replaced: ReplacedRendering?
            if let i = model.index(of: client) {
                let targets = transitionTargets(commit.operations, entry: i)
                if !targets.isEmpty { replaced = replacedRendering(of: targets, entry: i) }
            }
            let result = try model.apply(commit.operations, attachments: attachments, from: client, limits: configuration.limits)
            committed(serial: commit.serial, operations: commit.operations.count, result, replaced: replaced, from: client)
        } catch {
            rejected(serial: commit.serial, error, from: client)
        }
    }

    /// A commit stands: answer it, animate its changes, and schedule its frame.
    func committed(serial: UInt32, operations: Int, _ result: CommitResult, replaced: ReplacedRendering?, from client: ClientID) {
        if result.visibleChange { requestFrame(.sceneChanged) }
        stats.commitsApplied += 1
        if let i = model.index(of: client), !model.entries[i].session.isEmpty {
            sessionsChanged()
            // The reply says the commit stands: for a kept session, once the journal holds it.
            if model.entries[i].isKept { host?.acknowledgementAwaitsJournal(client) }
        }
        reply(client, .applied(serial: serial))
        if let i = model.index(of: client) {
            if !result.videoChanges.isEmpty { applyVideoChanges(result.videoChanges, entry: i) }
            startAnimatedImages(entry: i)
            animate(result, entry: i)
            attachTransitions(replaced, result.changes, entry: i)
            scrollsCommitted(result, entry: i)
            appsCommitted(result, entry: i)
        }
        if !watchers.isEmpty {
            watch(#"{"event":"commit","client":\#(client.rawValue),"serial":\#(serial),"operations":\#(operations),"time":\#(JSONWriter.format(now))}"#)
        }
    }

    /// A commit was refused whole: say which operation and why.
    func rejected(serial: UInt32, _ error: CommitRejection, from client: ClientID) {
        stats.commitsRejected += 1
        logger.debug("\(client) commit \(serial) rejected: \(error)")
        reply(client, .error(ErrorMessage(code: error.code, subject: .commit, serial: serial,
                                          operationIndex: Int32(error.operationIndex), message: error.message)))
    }

    /// The backend's desktop changed size (hotplug, unplug, a new mode): the display, every
    /// client's root layer and the next frame follow. Clients see the new size in `stats`
    /// and `tree`. Returns whether the size changed.
    @discardableResult
    public func resize(width: Int, height: Int) -> Bool {
        guard width > 0, height > 0, width != model.width || height != model.height else { return false }
        logger.notice("display resized from \(model.width)x\(model.height) to \(width)x\(height)")
        let laidOut = model.resize(width: width, height: height, limits: configuration.limits)
        for serial in Array(animationStates.keys) where animationStates[serial]!.renderTree != nil {
            animationStates[serial]!.fitRoot(width: Double(width), height: Double(height))
        }
        // The roots follow at once, as a window's root layer does; what layout moved under them
        // animates by the layers' actions, as a commit's changes do (default transaction).
        for (i, result) in laidOut.sorted(by: { $0.key < $1.key }) { animate(result, entry: i) }
        updateAppSizes()
        requestFrame(.sceneChanged)
        return true
    }

    /// Sets the "separate" layout's output rectangles (`ModelTree.outputRoots`); empty for
    /// one virtual desktop.
    public func setOutputRoots(_ roots: [String: Rect]) {
        guard roots != model.outputRoots else { return }
        logger.notice("output roots: \(roots.isEmpty ? "none (one desktop)" : roots.keys.sorted().joined(separator: ", "))")
        model.outputRoots = roots
        requestFrame(.sceneChanged)
    }
}
