import Foundation
import Testing
import LaminaCore
import LaminaProtocol
import LaminaTestSupport

/// Issue 24, item 8: after hostile load laminad kept its peak memory with one client left
/// (312 MB against 112 MB before). What departed clients freed lies between blocks still in
/// use, where malloc keeps it; laminad gives it back to the kernel a moment after clients leave.
@Suite("Memory after load", .serialized)
@MainActor
struct MemoryAfterLoadTests {
    typealias Peer = ResilienceTests.RawPeer

    /// `pid`'s resident set in bytes (VmRSS).
    static func residentBytes(_ pid: Int32) throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
              let kib = Int(line.split(separator: " ")[1]) else { throw DaemonError("no VmRSS for \(pid)") }
        return kib << 10
    }

    /// Creates layers `first..<first + count` at the root: 4-point squares with names of 8 to 80
    /// bytes, so a tree's memory comes in many sizes.
    static func layers(_ first: UInt32, _ count: UInt32, _ rng: inout SplitMix) -> [LaminaProtocol.Operation] {
        var ops: [LaminaProtocol.Operation] = [.settings(TransactionSettings(disableActions: true))]
        for n in first..<first + count {
            let id = LayerID(n)
            ops += [.create(id), .set(id, .bounds, .rect(Rect(x: 0, y: 0, width: 4, height: 4))),
                    .set(id, .position, .point(Point(x: Double(rng.next() % 320), y: Double(rng.next() % 240)))),
                    .set(id, .backgroundColor, .color(Color(red: Double(rng.next() % 256) / 255, green: 0.4, blue: 0.6, alpha: 1))),
                    .set(id, .name, .string("layer \(n) " + String(repeating: "x", count: Int(8 + rng.next() % 72)))),
                    .insert(parent: .root, child: id, index: .max)]
        }
        return ops
    }

    func statistics(_ peer: Peer, id: UInt32) throws -> [String: Double] {
        try peer.send(.request(id: id, .stats))
        guard case .reply(id, .stats(let list))? = try peer.next() else { throw DaemonError("no stats reply") }
        return Dictionary(list.map { ($0.name, $0.value) }, uniquingKeysWith: { a, _ in a })
    }

    /// Waves of clients commit 5000 layers each, take a screenshot and stats, send a refused
    /// commit, and leave (half of them by a malformed frame), while a client with 53 layers
    /// changes some of its own between them (its blocks land among theirs). Once they are gone
    /// and laminad's trim has followed, its RSS is within 25 % of what it was with that one
    /// client alone. Without the trim it stays near the peak (1.8 times the baseline).
    @Test func residentMemoryComesBackAfterAWaveOfClients() async throws {
        let daemon = try DaemonProcess()
        let pid = daemon.process.processIdentifier
        var rng = SplitMix(state: 0x24_08)
        let keeper = try Peer(socket: daemon.socket)
        try keeper.send(.commit(Commit(serial: 1, operations: Self.layers(1, 53, &rng))))
        guard case .applied(1)? = try keeper.next() else { throw DaemonError("the keeper's layers were not applied") }
        try keeper.send(.request(id: 1, .screenshot))
        guard case .reply(1, .screenshot)? = try keeper.next() else { throw DaemonError("no screenshot") }
        let baseline = try Self.residentBytes(pid)

        var peak = baseline
        for round in 0..<3 {
            let peers = try (0..<4).map { _ in try Peer(socket: daemon.socket) }
            for peer in peers {
                try peer.send(.commit(Commit(serial: 1, operations: Self.layers(1, 5000, &rng))))
                try peer.send(.commit(Commit(serial: 2, operations: [.set(LayerID(999_999), .opacity, .number(0.5))])))
                try peer.send(.request(id: 3, .screenshot))
                try peer.send(.request(id: 4, .stats))
            }
            // Five new layers in place of its five oldest: 53 all along.
            let k = UInt32(1000 + 5 * round), oldest = round == 0 ? 1..<6 : k - 5..<k
            try keeper.send(.commit(Commit(serial: UInt32(10 + round), operations: Self.layers(k, 5, &rng) + oldest.map { .destroy(LayerID($0)) })))
            // Generous bounds on a hang, not budgets: a slow machine takes its time over 80 000 layers.
            guard case .applied? = try keeper.next(within: 120) else { throw DaemonError("the keeper's change was not applied") }
            for (n, peer) in peers.enumerated() {
                guard case .applied(1)? = try peer.next(within: 120) else { throw DaemonError("a wave's commit was not applied") }
                guard case .error? = try peer.next(within: 120) else { throw DaemonError("the bad commit was not refused") }
                guard case .reply(3, .screenshot)? = try peer.next(within: 120), case .reply(4, .stats)? = try peer.next(within: 120) else {
                    throw DaemonError("a wave's requests were not answered")
                }
                peak = max(peak, try Self.residentBytes(pid))
                if n % 2 == 1 { try? peer.fd.writeAll([UInt8](repeating: 0xFF, count: 64)) }
                peer.fd.close()
            }
        }

        // Every wave client gone, and no trim still due: the one after the last of them is done.
        // Each poll is a round trip; the trim comes a second (real time) after the last leaves.
        var stats: [String: Double] = [:]
        for poll in 0..<1500 {
            stats = try statistics(keeper, id: UInt32(100 + poll))
            if stats["clients"] == 1, stats["memory.trimPending"] ?? 0 == 0 { break }
            usleep(10_000)
        }
        let after = try Self.residentBytes(pid)
        let mib = { (b: Int) in String(format: "%.1f MiB", Double(b) / 1048576) }
        let summary = "baseline \(mib(baseline)), peak \(mib(peak)), after \(mib(after))"
        #expect(stats["clients"] == 1 && stats["layers"] == 54, "\(stats)")
        #expect(peak > baseline + baseline / 2, "the waves raised RSS by half at least: \(summary)")
        #expect(stats["memory.trims"] ?? 0 >= 1, "laminad trimmed its heap after the clients left")
        #expect(after <= baseline + baseline / 4, "RSS within 25 % of its baseline after the load: \(summary)")
        print("memory after load: \(summary); \(stats.filter { $0.key.hasPrefix("memory.") })")
        #expect(daemon.process.isRunning)
    }
}
