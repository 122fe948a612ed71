import LaminaCore
import LaminaProtocol

/// A big commit part way through: decoded and applied a step at a time, to a copy of the
/// client's tree (the display keeps showing the old one until the commit is whole).
struct StagedCommit {
    let serial: UInt32
    /// The entry the commit is for (its serial stays while entries move).
    let entrySerial: EntrySerial
    var tree: ClientTree
    var progress: CommitInProgress
    /// The frame's body, read up to the next operation to decode.
    var reader: ByteReader
    var decoded = 0
    /// Layers whose old rendering a transition in the commit needs, found as it is decoded.
    var transitions = TransitionScan()
    var steps = 0
}

extension Compositor {
    /// Starts a commit of more than `commitStepOperations` operations: reads its header, copies
    /// its body and the client's tree, and takes the first step. The client's later frames wait
    /// (`hasPendingFrame` stays true, so the platform serves it a step per turn like any client
    /// with work); other clients are served between the steps. Returns false for a commit that
    /// is not big after all (or whose header does not decode): it is handled as usual.
    func beginStaged(_ body: ArraySlice<UInt8>, frameStart: Int, from client: ClientID) -> Bool {
        var reader = ByteReader(Array(body))
        guard let (serial, count) = try? reader.commitHeader(), count > configuration.commitStepOperations,
              let i = model.index(of: client) else { return false }
        let attachments = takeAttachments(frameStart: frameStart, for: client)
        let tree = model.entries[i].tree
        do {
            let limits = model.commitLimits(createsImages: true, createsLayers: true, entry: i, limits: configuration.limits)
            let progress = try tree.beginStreamedCommit(count: count, attachments: attachments, limits: limits)
            staged[client] = StagedCommit(serial: serial, entrySerial: model.entries[i].serial, tree: tree,
                                          progress: progress, reader: reader)
            stats.commitsStaged += 1
            continueStaged(client)
        } catch {
            rejected(serial: serial, error, from: client)
        }
        return true
    }

    /// One step of a client's staged commit: decode and apply up to `commitStepOperations`
    /// operations. The last step puts the new tree in place and answers the commit as an
    /// ordinary one is answered; a bad operation anywhere refuses all of it.
    func continueStaged(_ client: ClientID) {
        guard var s = staged.removeValue(forKey: client),
              let i = model.entries.firstIndex(where: { $0.serial == s.entrySerial }), model.entries[i].client == client
        else { return }
        let step = configuration.commitStepOperations
        var ops: [Operation] = []
        ops.reserveCapacity(min(step, s.progress.total - s.decoded))
        do throws(DecodeError) {
            while ops.count < step, s.decoded < s.progress.total {
                ops.append(try s.reader.nextOperation(index: s.decoded))
                s.decoded += 1
            }
            if s.decoded == s.progress.total { try s.reader.finish() }
        } catch {
            stats.commitsRejected += 1
            let index = s.decoded < s.progress.total ? Int32(s.decoded) : -1
            reply(client, .error(ErrorMessage(code: .malformedMessage, subject: .commit, serial: s.serial, operationIndex: index,
                                              message: error.description)))
            return
        }
        s.transitions.scan(ops, in: model.entries[i].tree)
        if s.steps == 0 {
            // Room for the layers the commit will likely create (from the first step's share of
            // creates), so the table is not regrown — each regrowth one long step — later.
            let creates = ops.reduce(0) { if case .create = $1 { $0 + 1 } else { $0 } }
            let expected = ops.isEmpty ? 0 : Int((Double(creates) / Double(ops.count) * Double(s.progress.total)).rounded(.up))
            s.tree.reserveLayers(s.tree.layers.count + min(expected, configuration.limits.maxLayers))
        }
        s.progress.supply(ops)
        do throws(CommitRejection) {
            try s.tree.continueCommit(&s.progress, operations: step)
            s.steps += 1
            stats.stagedSteps += 1
            // The shared budgets, against what the others hold now (their staged copies too):
            // the limits taken at the start cannot know what was committed since.
            if let problem = sharedBudgetProblem(of: s, entry: i, client: client) {
                throw CommitRejection(code: .limitExceeded, operationIndex: -1, message: problem)
            }
            guard s.progress.isApplied else {
                staged[client] = s
                return
            }
            var result = try s.tree.finishCommit(&s.progress)
            // What the commit replaces on transitioned layers: the display still shows the old tree.
            let replaced = s.transitions.targets.isEmpty ? nil : replacedRendering(of: s.transitions.targets, entry: i)
            // The display may have changed size meanwhile: the root follows it, as in `resize`.
            // Layout's moves join the commit's changes (what they replaced is in its `original`).
            result.changes += s.tree.fitRoot(width: Double(model.width), height: Double(model.height), limits: configuration.limits).changes
            model.entries[i].tree = s.tree
            logger.debug("\(client) commit \(s.serial): \(s.progress.total) operations applied in \(s.steps) steps")
            committed(serial: s.serial, operations: s.progress.total, result, replaced: replaced, from: client)
        } catch {
            rejected(serial: s.serial, error, from: client)
        }
    }

    /// Whether the staged copy takes a budget that all sessions share past what the others
    /// leave it now: layers in all, layers of kept sessions, image bytes (video frames included). Other clients' staged
    /// copies count as theirs, so copies being built cannot add up past a budget either.
    func sharedBudgetProblem(of s: StagedCommit, entry i: Int, client: ClientID) -> String? {
        let limits = configuration.limits
        let others = staged.filter { $0.key != client }.values
        func held(_ entry: ModelTree.Entry, layers: Bool) -> Int {
            let copy = entry.client.flatMap { staged[$0] }.map { $0.entrySerial == entry.serial ? $0.tree : entry.tree } ?? entry.tree
            return layers ? copy.layers.count : copy.imageBytes
        }
        let elsewhere = model.entries.indices.filter { $0 != i }
        let layersElsewhere = elsewhere.reduce(0) { $0 + held(model.entries[$1], layers: true) }
        let mine = s.tree.layers.count
        if mine > model.entries[i].tree.layers.count, mine + layersElsewhere > limits.maxTotalLayers {
            return "all sessions may hold at most \(limits.maxTotalLayers) layers together (max_total_layers); the others hold \(layersElsewhere)\(others.isEmpty ? "" : ", commits in progress included")"
        }
        if model.entries[i].isKept {
            let kept = elsewhere.filter { model.entries[$0].isKept }.reduce(0) { $0 + held(model.entries[$1], layers: true) }
            if mine > model.entries[i].tree.layers.count, mine + kept > limits.maxKeptLayers {
                return "kept sessions may hold at most \(limits.maxKeptLayers) layers together (max_kept_layers); other kept sessions hold \(kept)"
            }
        }
        // Video frames count as images do (other clients' and this one's).
        let bytes = s.tree.imageBytes
        let before = model.entries[i].tree.imageBytes
        if bytes > before {
            let bytesElsewhere = elsewhere.reduce(0) { $0 + held(model.entries[$1], layers: false) }
            if bytes + bytesElsewhere > limits.maxTotalImageBytes {
                return "all clients' images may hold \(limits.maxTotalImageBytes) bytes together (max_total_image_bytes), and the others hold \(bytesElsewhere)"
            }
        }
        return nil
    }
}
