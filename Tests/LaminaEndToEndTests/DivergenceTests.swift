import Foundation
import Testing
import Lamina
import LaminaCore
import LaminaProtocol

/// After laminad refuses a commit, the client's model is what laminad holds: the refused
/// transaction's values, layers and animations are gone from the model too.
@Suite("Client and server agree after a refused commit", .serialized)
@MainActor
struct DivergenceTests {
    @Test func aRefusedTransactionIsRolledBackInTheModel() async throws {
        let daemon = try DaemonProcess()
        let c = try Connection.connect(to: daemon.socket, name: "app")
        var errors: [LaminaError] = []
        c.onError = { errors.append($0) }
        let box = Layer()
        box.name = "box"
        box.bounds = Rect(x: 0, y: 0, width: 20, height: 20)
        box.position = Point(x: 50, y: 40)
        c.rootLayer.addSublayer(box)
        try await c.sync()

        // One transaction: a good value, a new layer, and an animation laminad refuses.
        Transaction.begin()
        Transaction.disableActions = true
        box.opacity = 0.3
        let extra = Layer()
        extra.name = "extra"
        c.rootLayer.addSublayer(extra)
        box.add(.basic(BasicAnimation(keyPath: "noSuchProperty", fromValue: .number(0), toValue: .number(1))), forKey: "bad")
        Transaction.commit()
        var refused: LaminaError?
        do { try await c.sync() } catch let e as LaminaError { refused = e }
        #expect(refused?.serverError?.subject == .commit, "\(String(describing: refused))")

        // The model is laminad's again: presentation() and the tree agree with it.
        #expect(box.opacity == 1)
        #expect(box.animationKeys().isEmpty)
        #expect(extra.superlayer == nil)
        #expect(c.rootLayer.sublayers.count == 1)
        #expect(try await box.presentation().opacity == box.opacity)
        let tree = try await c.treeJSON()
        #expect(!tree.contains("extra"), "\(tree)")

        // And it goes on working: the same changes without the bad animation are applied.
        Transaction.begin()
        Transaction.disableActions = true
        box.opacity = 0.3
        c.rootLayer.addSublayer(extra)
        Transaction.commit()
        try await c.sync()
        #expect(try await box.presentation().opacity == 0.3)
        #expect(try await c.treeJSON().contains("extra"))
        c.close()
    }

    @Test func changesMadeAfterTheRefusedCommitAreKept() async throws {
        let daemon = try DaemonProcess()
        let c = try Connection.connect(to: daemon.socket, name: "app")
        c.onError = { _ in }
        let box = Layer()
        c.rootLayer.addSublayer(box)
        try await c.sync()
        Transaction.begin()
        box.opacity = 0.3
        box.add(.basic(BasicAnimation(keyPath: "noSuchProperty")), forKey: "bad")
        Transaction.commit()
        Transaction.flush()
        // Not yet committed when the model is put back: it stays, and is sent next.
        box.position = Point(x: 7, y: 8)
        await c.resynchronise()
        #expect(box.opacity == 1)
        #expect(box.position == Point(x: 7, y: 8))
        // sync reports the refusal once (it was not yet reported), then all is applied.
        await #expect(throws: LaminaError.self) { try await c.sync() }
        try await c.sync()
        try await c.advanceClock(by: 1)  // past the implicit position animation
        #expect(try await box.presentation().position == Point(x: 7, y: 8))
        c.close()
    }
}
