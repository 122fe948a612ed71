import Testing
import LaminaTestSupport
import LaminaCore
import LaminaProtocol
@testable import LaminaCompositor

/// A commit bigger than `commitStepOperations` is applied a step per turn to a copy of the
/// client's tree: others are served between steps, nothing of it shows until it is whole,
/// and a bad operation anywhere refuses all of it.
@Suite("Big commits in steps")
struct StagedCommitTests {
    static func creates(_ n: Int, from first: UInt32 = 1) -> [LaminaProtocol.Operation] {
        (0..<UInt32(n)).flatMap { k -> [LaminaProtocol.Operation] in
            let id = LayerID(first + k)
            return [.create(id), .set(id, .bounds, .rect(Rect(x: 0, y: 0, width: 4, height: 4))),
                    .insert(parent: .root, child: id, index: .max)]
        }
    }

    @Test func othersAreServedBetweenStepsAndTheCommitShowsWhole() throws {
        let h = try CompositorHarness(headlessWidth: 32, height: 32)
        let (big, _) = h.sayHello(peer: .user(1))
        let (other, _) = h.sayHello(peer: .user(2))
        h.outbox = [:]
        let step = h.compositor.configuration.commitStepOperations
        let ops = Self.creates(2000)                          // 6000 operations: three steps
        h.feed(big, .commit(Commit(serial: 7, operations: ops)))   // step 1
        h.feed(big, .request(id: 1, .stats))                 // step 2 (the request waits behind the commit)
        #expect(ops.count > 2 * step && ops.count <= 3 * step)
        #expect(h.outbox[big] == nil)
        #expect(h.compositor.hasPendingFrame(big))
        // Another client is answered meanwhile, and sees none of the commit yet.
        h.feed(other, .request(id: 2, .stats))
        guard case .reply(2, .stats(let stats))? = h.outbox[other]?.last else { Issue.record("no stats"); return }
        #expect(stats.first { $0.name == "layers" }?.value == 2)    // the two root layers
        #expect(h.compositor.model.layerCount == 2)
        h.compositor.handlePending(big, frameBudget: 8)          // step 3: whole
        #expect(h.outbox[big]?.first == .applied(serial: 7))
        #expect(h.compositor.model.layerCount == 2002)
        h.compositor.handlePending(big, frameBudget: 8)          // then the request that waited
        guard case .reply(1, .stats(let after))? = h.outbox[big]?.last else { Issue.record("no stats"); return }
        #expect(after.first { $0.name == "commitsStaged" }?.value == 1)
        #expect(after.first { $0.name == "stagedSteps" }?.value == 3)
        #expect(!h.compositor.hasPendingFrame(big))
    }

    @Test func aBadOperationInTheLastStepRefusesAll() throws {
        let h = try CompositorHarness(headlessWidth: 32, height: 32)
        let (c, _) = h.sayHello(peer: .user(1))
        h.outbox = [:]
        var ops = Self.creates(1500)
        ops.append(.set(LayerID(99_999), .opacity, .number(0.5)))   // no such layer
        h.feed(c, .commit(Commit(serial: 3, operations: ops)))
        for _ in 0..<4 where h.outbox[c] == nil { h.compositor.handlePending(c, frameBudget: 8) }
        guard case .error(let e)? = h.outbox[c]?.first else { Issue.record("no error: \(String(describing: h.outbox[c]))"); return }
        #expect(e.code == .unknownLayer && e.serial == 3 && e.operationIndex == Int32(ops.count - 1))
        #expect(h.compositor.model.layerCount == 1)
        // The next commit goes through as usual.
        #expect(h.commit(c, Self.creates(1)) == .applied(serial: 1))
    }

    @Test func aClientLeavingMidCommitLeavesNothingBehind() throws {
        let h = try CompositorHarness(headlessWidth: 32, height: 32)
        let (c, _) = h.sayHello(session: "kept", flags: .keepLayers, peer: .user(1))
        h.feed(c, .commit(Commit(serial: 1, operations: Self.creates(3000))))
        h.compositor.disconnected(c)
        #expect(!h.compositor.hasPendingFrame(c))
        h.compositor.handlePending(c, frameBudget: 8)
        #expect(h.compositor.model.layerCount == 1)        // the kept session's root only
    }

    /// A big commit is decoded a step at a time too: an undecodable operation far into it is
    /// refused as malformed, naming its index, with nothing applied.
    @Test func anUndecodableOperationRefusesAll() throws {
        let h = try CompositorHarness(headlessWidth: 32, height: 32)
        let (c, _) = h.sayHello(peer: .user(1))
        h.outbox = [:]
        var frame = ClientMessage.commit(Commit(serial: 4, operations: Self.creates(2000))).encoded()
        // Operation 4998 is a create; make its opcode unknown. Each create, set-bounds and
        // insert is 5 + 39 + 13 = 57 bytes, after the frame header (8), serial and count (8).
        let offset = 8 + 8 + 1666 * 57
        #expect(frame[offset] == 1)
        frame[offset] = 200
        h.feed(c, bytes: frame)
        for _ in 0..<4 where h.outbox[c] == nil { h.compositor.handlePending(c, frameBudget: 8) }
        guard case .error(let e)? = h.outbox[c]?.first else { Issue.record("no error"); return }
        #expect(e.code == .malformedMessage && e.serial == 4 && e.operationIndex == 4998)
        #expect(e.message.contains("operation 4998 opcode"))
        #expect(h.compositor.model.layerCount == 1)
        #expect(!h.compositor.hasPendingFrame(c))
    }

    /// Two big commits built at once cannot add up past a shared budget: the limits are taken
    /// again at every step, counting the other commit's copy.
    @Test func concurrentBigCommitsShareTheLayerBudget() throws {
        let h = try CompositorHarness(headlessWidth: 32, height: 32) { $0.limits.maxTotalLayers = 5000 }
        let (a, _) = h.sayHello(peer: .user(1))
        let (b, _) = h.sayHello(peer: .user(2))
        h.outbox = [:]
        h.feed(a, .commit(Commit(serial: 1, operations: Self.creates(3000))))   // 9000 operations each
        h.feed(b, .commit(Commit(serial: 1, operations: Self.creates(3000))))
        for _ in 0..<8 {
            h.compositor.handlePending(a, frameBudget: 8)
            h.compositor.handlePending(b, frameBudget: 8)
        }
        let answers = [h.outbox[a]?.first, h.outbox[b]?.first]
        #expect(answers.contains(.applied(serial: 1)))
        let refusal = answers.compactMap { if case .error(let e)? = $0 { e } else { nil } }.first
        #expect(refusal?.code == .limitExceeded && refusal?.message.contains("max_total_layers") == true, "\(answers)")
        #expect(h.compositor.model.layerCount == 3002)
    }
}
