import Testing
import LaminaTestSupport
import LaminaCore
import LaminaProtocol
@testable import LaminaCompositor

/// Crashes one client could cause, each turned into a bounded, named outcome (issue 11).
@Suite("Hostile clients cannot crash the compositor", .serialized)
final class HostileClientTests {
    let h: CompositorHarness
    var compositor: Compositor { h.compositor }

    init() throws {
        h = try CompositorHarness(headlessWidth: 64, height: 48)
    }

    func animated(_ n: UInt32, tag: UInt32) -> [Operation] {
        var move = BasicAnimation(keyPath: "position.x", fromValue: .number(0), toValue: .number(40))
        move.timing.duration = 1
        return [.create(LayerID(n)), .set(LayerID(n), .bounds, .rect(Rect(x: 0, y: 0, width: 8, height: 8))),
                .insert(parent: .root, child: LayerID(n), index: .max),
                .addAnimation(LayerID(n), key: "move", tag: tag, .basic(move))]
    }

    /// A send that fails while animation events go out used to remove that client's entry
    /// while `tickAnimations` walked the entries (index out of range). Now the disconnect
    /// waits until the compositor is done, and everyone else's frame is drawn.
    @Test func aClientDroppedWhileItsEventsAreSentIsRemovedAfterTheFrame() throws {
        let a = h.hello("a"), b = h.hello("b"), c = h.hello("c")
        for (i, id) in [a, b, c].enumerated() { h.feed(id, .commit(Commit(serial: 1, operations: animated(UInt32(i + 1), tag: 7)))) }
        try compositor.flushFrame(always: true)
        _ = h.take(a); _ = h.take(b); _ = h.take(c)
        // b's socket "fails" on its next event: the platform reports the disconnect at once.
        h.beforeSend = { [unowned h] id in
            if id == b { h.beforeSend = { _ in }; h.compositor.disconnected(b) }
        }
        h.feed(a, .request(id: 1, .advanceClock(seconds: 2)))
        #expect(compositor.clientCount == 2, "b went once the frame was done")
        #expect(compositor.model.index(of: b) == nil)
        let replies = h.take(a)
        #expect(replies.contains { if case .animationEvent(let n) = $0 { n.finished } else { false } }, "a's animation finished: \(replies)")
        #expect(replies.contains { if case .reply(1, .advanced) = $0 { true } else { false } })
        #expect(h.take(c).contains { if case .animationEvent(let n) = $0 { n.finished } else { false } }, "c is unaffected")
    }

    /// shadowRadius 1e308 or a scale of 1e308 on a layer with a sublayer (a blurred shadow of
    /// composited pixels) used to trap converting the blur's width to an Int.
    @Test(arguments: [
        [Operation.set(LayerID(1), .shadowRadius, .number(1e308))],
        [Operation.set(LayerID(1), .transform, .transform(.scale(x: 1e308, y: 1e308, z: 1)))],
        [Operation.set(LayerID(1), .shadowRadius, .number(1e308)), .set(LayerID(1), .shadowOffset, .size(Size(width: 1e308, height: -1e308)))],
        // Batched layers' cells are placed on a tile grid: huge geometry must not trap there.
        [Operation.set(LayerID(2), .bounds, .rect(Rect(x: 0, y: 0, width: 1e20, height: 10))), .set(LayerID(2), .borderWidth, .number(2)),
         .set(LayerID(2), .cornerRadius, .number(3)), .set(LayerID(2), .borderColor, .color(.white))],
        [Operation.set(LayerID(2), .position, .point(Point(x: -1e300, y: 1e300))), .set(LayerID(2), .cornerRadius, .number(3))],
        [Operation.set(LayerID(1), .shadowPath, .path(Path(rect: Rect(x: 0, y: 0, width: 20, height: 20)))),
         .set(LayerID(1), .transform, .transform(.scale(x: 1e200, y: 1e-200, z: 1)))],
    ])
    func hugeShadowsDrawWithoutTrapping(_ hostile: [Operation]) throws {
        let a = h.hello("a")
        var ops: [Operation] = [.create(LayerID(1)), .create(LayerID(2)),
                                .set(LayerID(1), .bounds, .rect(Rect(x: 0, y: 0, width: 20, height: 20))),
                                .set(LayerID(1), .position, .point(Point(x: 20, y: 20))),
                                .set(LayerID(1), .shadowOpacity, .number(1)),
                                .set(LayerID(2), .bounds, .rect(Rect(x: 0, y: 0, width: 10, height: 10))),
                                .set(LayerID(2), .backgroundColor, .color(.red)),
                                .insert(parent: .root, child: LayerID(1), index: 0), .insert(parent: LayerID(1), child: LayerID(2), index: 0)]
        ops += hostile
        h.feed(a, .commit(Commit(serial: 1, operations: ops)))
        #expect(h.take(a).contains { if case .applied = $0 { true } else { false } })
        try compositor.flushFrame(always: true)
        h.feed(a, .request(id: 2, .screenshot))
        #expect(h.take(a).contains { if case .reply(2, .screenshot) = $0 { true } else { false } })
    }

    /// advance-clock 1e308 twice made the shared clock +inf for every client.
    @Test func theVirtualClockStaysFinite() {
        let a = h.hello("a")
        h.feed(a, .request(id: 1, .advanceClock(seconds: 1e308)))
        guard case .error(let e) = h.take(a).first else { Issue.record("expected an error"); return }
        #expect(e.code == .invalidRequest)
        #expect(e.message.contains("maximum"), "\(e.message)")
        h.feed(a, .request(id: 2, .advanceClock(seconds: FrameClock.maximumVirtualTime)))
        #expect(h.take(a).contains { if case .reply(2, .advanced(let t, _)) = $0 { t == FrameClock.maximumVirtualTime } else { false } })
        h.feed(a, .request(id: 3, .advanceClock(seconds: 1)))
        #expect(h.take(a).contains { if case .error = $0 { true } else { false } })
        #expect(compositor.now.isFinite)
    }

    /// Before hello, a frame over 64 KiB is refused at its header; after hello the full limit holds.
    @Test func framesBeforeHelloAreSmall() {
        let id = compositor.connect()
        var header: [UInt8] = [0, 0, 2, 0, 1, 0, 0, 0]  // 128 KiB body, type 1 (hello)
        h.feed(id, bytes: header)
        guard case .error(let e) = h.take(id).first else { Issue.record("expected an error"); return }
        #expect(e.code == .frameTooLarge)
        #expect(e.message.contains("before hello"), "\(e.message)")
        header = [0, 0, 2, 0, 2, 0, 0, 0]
        let b = h.hello("b")
        h.feed(b, bytes: header)
        #expect(h.take(b).isEmpty, "a 128 KiB commit header after hello is fine (the body is awaited)")
    }
}

/// Kept sessions outlive their clients, so they share budgets of their own (20 names ×
/// 100 000 layers held 5 GB after their clients left).
@Suite("Kept-session budgets")
struct KeptSessionBudgetTests {
    @Test func keptSessionsAndTheirLayersAreBounded() throws {
        let h = try CompositorHarness(headlessWidth: 32, height: 32) {
            $0.limits.maxKeptSessions = 2
            $0.limits.maxKeptSessionsPerUser = 1
            $0.limits.maxKeptLayers = 10
        }
        let compositor = h.compositor
        let (a, welcomeA) = h.sayHello(session: "a", flags: .keepLayers, peer: .user(1000))
        guard case .welcome = welcomeA else { Issue.record("a: \(String(describing: welcomeA))"); return }
        let (_, second) = h.sayHello(session: "a2", flags: .keepLayers, peer: .user(1000))
        guard case .error(let perUser)? = second else { Issue.record("expected a refusal"); return }
        #expect(perUser.code == .limitExceeded && perUser.message.contains("max_kept_sessions_per_user"), "\(perUser.message)")
        let (b, welcomeB) = h.sayHello(session: "b", flags: .keepLayers, peer: .user(1001))
        guard case .welcome = welcomeB else { Issue.record("b: \(String(describing: welcomeB))"); return }
        let (_, third) = h.sayHello(session: "c", flags: .keepLayers, peer: .user(1002))
        guard case .error(let total)? = third else { Issue.record("expected a refusal"); return }
        #expect(total.message.contains("max_kept_sessions"), "\(total.message)")
        // 10 layers in all: a takes 6 (root included), b may add 3 more, not 4.
        guard case .applied = h.commit(a, (1...5).map { .create(LayerID(UInt32($0))) }) else { Issue.record("a's layers"); return }
        guard case .error(let layers)? = h.commit(b, (1...4).map { .create(LayerID(UInt32($0))) }) else { Issue.record("expected a refusal"); return }
        #expect(layers.code == .limitExceeded && layers.message.contains("max_kept_layers"), "\(layers.message)")
        guard case .applied = h.commit(b, (1...3).map { .create(LayerID(UInt32($0))) }) else { Issue.record("b's 3 layers fit"); return }
        #expect(compositor.statistics().first { $0.name == "keptLayers" }?.value == 10)
    }
}

/// Connections and the layers of all sessions together are budgets too, so that memory has a
/// ceiling however many clients connect.
@Suite("Connection and total-layer budgets")
struct ConnectionBudgetTests {
    @Test func clientsPerUserInAllAndLayersInAllAreBounded() throws {
        let h = try CompositorHarness(headlessWidth: 32, height: 32) {
            $0.limits.maxClients = 3
            $0.limits.maxClientsPerUser = 2
            $0.limits.maxTotalLayers = 12
        }
        let compositor = h.compositor
        let (a, wa) = h.sayHello(peer: .user(1000)), (_, wb) = h.sayHello(peer: .user(1000))
        guard case .welcome = wa, case .welcome = wb else { Issue.record("two clients of one user"); return }
        let (third, refusedUser) = h.sayHello(peer: .user(1000))
        guard case .error(let perUser)? = refusedUser else { Issue.record("expected a refusal"); return }
        #expect(perUser.code == .limitExceeded && perUser.message.contains("max_clients_per_user"), "\(perUser.message)")
        #expect(h.closed.contains(third))
        let (c, wc) = h.sayHello(peer: .user(1001))
        guard case .welcome = wc else { Issue.record("a third client of another user"); return }
        let (_, refusedAll) = h.sayHello(peer: .user(1002))
        guard case .error(let total)? = refusedAll else { Issue.record("expected a refusal"); return }
        #expect(total.message.contains("max_clients"), "\(total.message)")
        // An administrator still gets in.
        let (adminID, admin) = h.sayHello(peer: .user(0, privileged: true))
        guard case .welcome = admin else { Issue.record("the privileged peer is admitted"); return }
        // 12 layers in all; four roots are held: a may add 5, then c only 3.
        guard case .applied = h.commit(a, (1...5).map { .create(LayerID(UInt32($0))) }) else { Issue.record("a's layers"); return }
        guard case .error(let layers)? = h.commit(c, (1...4).map { .create(LayerID(UInt32($0))) }) else { Issue.record("expected a refusal"); return }
        #expect(layers.code == .limitExceeded && layers.message.contains("max_total_layers"), "\(layers.message)")
        guard case .applied = h.commit(c, (1...3).map { .create(LayerID(UInt32($0))) }) else { Issue.record("c's 3 layers fit"); return }
        #expect(compositor.statistics().first { $0.name == "budget.maxClients" }?.value == 3)
        // Clients leaving free their places (the administrator counted too).
        compositor.disconnected(a)
        compositor.disconnected(adminID)
        let (_, again) = h.sayHello(peer: .user(1002))
        guard case .welcome = again else { Issue.record("a place was freed: \(String(describing: again))"); return }
    }
}

/// Budgets on what one commit can multiply at render time or in memory (issue 10, item 6).
@Suite("Per-frame and image budgets", .serialized)
struct RenderBudgetTests {
    /// Nested replicators of 10⁴ × 10⁴ copies from a tiny commit passed 8 GB in 20 s: the walk
    /// stops at the per-client draw budget and the frame is drawn.
    @Test func nestedReplicatorsStopAtTheDrawBudget() throws {
        var tree = ModelTree(width: 64, height: 48)
        let client = ClientID(rawValue: 1)
        _ = try tree.attach(client, hello: Hello(clientName: "r"))
        let outer = LayerID(1), inner = LayerID(2), leaf = LayerID(3)
        _ = try tree.apply([.create(outer, kind: .replicator), .create(inner, kind: .replicator), .create(leaf),
                        .set(outer, .instanceCount, .number(10_000)), .set(inner, .instanceCount, .number(10_000)),
                        .set(leaf, .bounds, .rect(Rect(x: 0, y: 0, width: 1, height: 1))), .set(leaf, .backgroundColor, .color(.red)),
                        .insert(parent: .root, child: outer, index: 0), .insert(parent: outer, child: inner, index: 0),
                        .insert(parent: inner, child: leaf, index: 0)], from: client, limits: ClientLimits())
        let list = tree.drawList()
        #expect(list.truncated == [tree.entries[0].serial])
        #expect(list.commands.count <= 3 * RenderWalkBudget.maximumVisits, "\(list.commands.count) commands")
        #expect(list.commands.count > 1000, "what fits the budget is drawn")
    }

    /// One 16384² image made 3.2 GB of RSS: image pixels are a per-client and a global budget.
    @Test func imagesAreABudget() throws {
        var tree = ModelTree(width: 64, height: 48)
        var limits = ClientLimits()
        limits.maxImageBytes = 1 << 20
        limits.maxTotalImageBytes = (1 << 20) + (1 << 18)
        let a = ClientID(rawValue: 1), b = ClientID(rawValue: 2)
        _ = try tree.attach(a, hello: Hello(clientName: "a"))
        _ = try tree.attach(b, hello: Hello(clientName: "b"))
        func image(_ n: UInt32, side: UInt32, for client: ClientID) -> CommitRejection? {
            let memory = HeapPixelMemory([UInt8](repeating: 0, count: Int(side * side * 4)))
            do {
                _ = try tree.apply([.createImage(image: n, ImageFormat(width: side, height: side))], attachments: [.memory(memory)], from: client, limits: limits)
            } catch { return error }
            return nil
        }
        #expect(image(1, side: 512, for: a) == nil)  // 1 MiB: a's whole share
        let perClient = image(2, side: 256, for: a)
        #expect(perClient?.code == .limitExceeded && perClient?.message.contains("max_image_bytes") == true, "\(String(describing: perClient))")
        #expect(image(1, side: 256, for: b) == nil)  // 1.25 MiB in all
        let global = image(2, side: 256, for: b)
        #expect(global?.message.contains("max_total_image_bytes") == true, "\(String(describing: global))")
    }
}
