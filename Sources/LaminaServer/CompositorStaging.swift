import LaminaCore
import LaminaProtocol

/// A big commit part way through: applied to a copy of the client's tree a step at a time.
struct StagedCommit {
    let commit: Commit
    /// The entry the commit is for (its serial stays while entries move).
    let entrySerial: UInt32
    /// The client's tree as the commit leaves it so far; the display keeps the old one.
    var tree: ClientTree
    var progress: CommitInProgress
    /// Transition snapshots taken before the commit began.
    let snapshots: [LayerID: [DrawCommand]]
    /// Steps taken, for stats.
    var steps = 0
}

extension Compositor {
    /// Starts a big commit: checks it, copies the client's tree, and applies the first step.
    /// The client's later frames wait (`hasPendingFrame` stays true, so the platform serves it
    /// a step per turn like any client with work).
    func beginStaged(_ commit: Commit, attachments: [MemoryAttachment], from client: ClientID, entry i: Int) {
        let targets = transitionTargets(commit.operations, entry: i)
        let snapshots = targets.isEmpty ? [:] : self.snapshots(of: targets, entry: i)
        let tree = display.entries[i].tree
        let limits = display.commitLimits(commit.operations, entry: i, limits: configuration.limits)
        do {
            let progress = try tree.beginCommit(commit.operations, attachments: attachments, limits: limits)
            staged[client] = StagedCommit(commit: commit, entrySerial: display.entries[i].serial, tree: tree,
                                          progress: progress, snapshots: snapshots)
            stats.commitsStaged += 1
            continueStaged(client)
        } catch {
            rejected(commit, error, from: client)
        }
    }

    /// One step of a client's staged commit; the last one puts the new tree in place and
    /// answers the commit as an ordinary one is answered.
    func continueStaged(_ client: ClientID) {
        guard var s = staged.removeValue(forKey: client) else { return }
        do {
            try s.tree.continueCommit(&s.progress, operations: configuration.commitStepOperations)
            s.steps += 1
            stats.stagedSteps += 1
            guard s.progress.isApplied else {
                staged[client] = s
                return
            }
            let result = try s.tree.finishCommit(&s.progress)
            guard let i = display.entries.firstIndex(where: { $0.serial == s.entrySerial }), display.entries[i].client == client else { return }
            // The display may have changed size meanwhile: the root follows it, as in `resize`.
            s.tree.fitRoot(width: Double(display.width), height: Double(display.height))
            display.entries[i].tree = s.tree
            logger.debug("\(client) commit \(s.commit.serial): \(s.commit.operations.count) operations applied in \(s.steps) steps")
            committed(s.commit, result, snapshots: s.snapshots, from: client)
        } catch {
            rejected(s.commit, error, from: client)
        }
    }
}
