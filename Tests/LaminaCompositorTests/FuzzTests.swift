import Testing
import LaminaTestSupport
import LaminaCore
import LaminaProtocol
@testable import LaminaCompositor

/// Mutated client bytes never crash the decoder or the tree: every mutation either decodes and
/// applies (or is refused with a `CommitRejection`), or is refused with a `MessageError`.
@Suite("Malformed input fuzzing")
struct FuzzTests {

    static var seedCommit: [UInt8] {
        var ops: [Operation] = [.create(LayerID(1)), .create(LayerID(2), kind: .shape), .create(LayerID(3), kind: .gradient),
                                .insert(parent: .root, child: LayerID(1), index: .max),
                                .insert(parent: LayerID(1), child: LayerID(2), index: 0)]
        ops += [
            .set(LayerID(2), .path, .path(Path(ellipseIn: Rect(x: 0, y: 0, width: 40, height: 30)))),
            .set(LayerID(2), .lineDashPattern, .numbers([3, 1])),
            .set(LayerID(3), .colors, .colors([.red, .blue, .white])),
            .set(LayerID(1), .contentsGravity, .string("topLeft")),
            .set(LayerID(1), .transform, .transform(.rotation(angle: 0.3))),
            .settings(TransactionSettings(duration: 0.5, timingFunction: .easeIn, completionGroups: [1])),
            .addAnimation(LayerID(1), key: "position", tag: 3,
                          .basic(BasicAnimation(keyPath: "position", fromValue: .point(Point(x: 0, y: 0)), toValue: .point(Point(x: 9, y: 9))))),
            .setAction(LayerID(1), dictionary: .actions, key: "opacity", .noAnimation),
        ]
        let frame = ClientMessage.commit(Commit(serial: 1, operations: ops)).encoded()
        return Array(frame.dropFirst(Frame.headerSize))
    }

    @Test func mutatedCommitsAreRefusedOrAppliedNeverCrash() {
        var rng = SplitMix(state: 0x5EED)
        let seed = Self.seedCommit
        var decoded = 0, refused = 0, rejected = 0
        for _ in 0..<3000 {
            var body = seed
            for _ in 0..<Int.random(in: 1...4, using: &rng) {
                switch Int.random(in: 0..<3, using: &rng) {
                case 0: body[Int.random(in: 0..<body.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
                case 1: body.removeLast(Int.random(in: 0...min(8, body.count), using: &rng))
                default: body.insert(UInt8.random(in: 0...255, using: &rng), at: Int.random(in: 0...body.count, using: &rng))
                }
            }
            do {
                let message = try ClientMessage.decode(type: 2, body: body[...])
                decoded += 1
                guard case .commit(let commit) = message else { continue }
                var tree = ClientTree(displayWidth: 320, displayHeight: 240)
                do { _ = try tree.apply(commit.operations, limits: ClientLimits(maxLayers: 64, maxOperationsPerCommit: 1000)) } catch {
                    rejected += 1
                    #expect(!error.message.isEmpty)
                }
            } catch {
                refused += 1
                #expect(!error.description.isEmpty)
            }
        }
        // The mutations must exercise both outcomes.
        #expect(decoded > 100 && refused > 100, "decoded \(decoded), refused \(refused), rejected \(rejected)")
    }
}
