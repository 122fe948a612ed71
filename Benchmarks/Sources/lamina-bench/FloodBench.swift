#if canImport(Glibc)
import Glibc
#endif
import LaminaCore
import LaminaTestSupport
import LaminaPlatform
import LaminaProtocol

/// `lamina-bench flood FRAMES [PID]`: FRAMES protocol frames through a running laminad
/// ($LAMINA_SOCKET) from four connections: valid commits and requests, the same with bytes
/// flipped, and now and then a frame that gets the connection dropped (a second hello), after
/// which it reconnects. Every frame is answered or ends its connection; the longest wait for an
/// answer, frames/s, and laminad's RSS and descriptors (PID, else found by its socket) are
/// reported at the start and end, so a leak or a stall shows as a slope or a gap.
func runFloodBenchmark(frames total: Int, pid: Int32?) throws -> String {
    let path = SocketPath.resolve()
    var rng = SplitMix(state: 0xF100D)
    let commits: [[UInt8]] = (0..<8).map { k in
        let id = LayerID(UInt32(k + 1))
        let ops: [Operation] = [.settings(TransactionSettings(disableActions: true)), .create(id),
                                .set(id, .bounds, .rect(Rect(x: 0, y: 0, width: 10 + Double(k), height: 10))),
                                .set(id, .backgroundColor, .color(Color(red: Double(k) / 8, green: 0.5, blue: 0.2, alpha: 1))),
                                .set(id, .cornerRadius, .number(3)), .set(id, .shadowOpacity, .number(0.4)),
                                .insert(parent: .root, child: id, index: .max), .destroy(id)]
        return ClientMessage.commit(Commit(serial: UInt32(k), operations: ops)).encoded()
    }
    let requests: [[UInt8]] = [Request.stats, .tree, .presentation(LayerID(1)), .presentationTree].map { ClientMessage.request(id: 5, $0).encoded() }
    let hello = ClientMessage.hello(Hello(clientName: "flood")).encoded()

    final class Peer {
        var socket: FileDescriptor
        var decoder = FrameDecoder(limit: 1 << 30)
        init(_ s: FileDescriptor) { socket = s }
    }
    func open() throws -> Peer {
        let p = Peer(try UnixSocket.connect(path: path))
        try p.socket.writeAll(hello)
        return p
    }
    var buffer = [UInt8](repeating: 0, count: 1 << 16)
    var longestWait = 0.0
    /// Reads until `count` answers came (true) or the connection ended (false).
    func answers(_ p: Peer, _ count: Int) throws -> Bool {
        var got = 0
        while got < count {
            while let f = try p.decoder.next() {
                if f.type != 0x81, f.type != 0x85, f.type != 0x86, f.type != 0x87 { got += 1 }
            }
            if got >= count { break }
            let start = monotonicSeconds()
            var pfd = pollfd(fd: p.socket.rawValue, events: Int16(POLLIN), revents: 0)
            _ = poll(&pfd, 1, 10_000)
            longestWait = max(longestWait, monotonicSeconds() - start)
            let read: Int?? = try? buffer.withUnsafeMutableBytes { try p.socket.read(into: $0) }
            guard let n = read ?? 0, n > 0 else { return false }
            p.decoder.append(Array(buffer[0..<n]))
        }
        return true
    }

    let laminad = pid ?? findDaemon(socket: path)
    let before = processUsage(laminad)
    var peers = try (0..<4).map { _ in try open() }
    var sent = 0, dropped = 0, mutated = 0
    var samples: [(rss: Int, fds: Int)] = []
    var nextSample = max(1, total / 10)
    let start = monotonicSeconds()
    while sent < total {
        for k in peers.indices where sent < total {
            var batch: [UInt8] = []
            let n = min(256, total - sent)
            for _ in 0..<n {
                var f = rng.next() % 3 == 0 ? requests[Int(rng.next() % UInt64(requests.count))] : commits[Int(rng.next() % UInt64(commits.count))]
                if rng.next() % 4 == 0, f.count > Frame.headerSize {
                    // A flipped byte in the body: refused with an error, or applied if still valid.
                    f[Frame.headerSize + Int(rng.next() % UInt64(f.count - Frame.headerSize))] ^= UInt8(truncatingIfNeeded: rng.next() | 1)
                    mutated += 1
                }
                if rng.next() % 5000 == 0 { f = hello }  // a second hello: the connection is dropped
                batch += f
            }
            try? peers[k].socket.writeAll(batch)
            sent += n
            if sent >= nextSample {
                samples.append(processUsage(laminad))
                nextSample += max(1, total / 10)
            }
            if try !answers(peers[k], n) {
                dropped += 1
                peers[k] = try open()
            }
        }
    }
    let seconds = monotonicSeconds() - start
    for p in peers { p.socket.close() }
    peers.removeAll()
    // laminad sees the hang-ups on its next turns; a stats round trip on a fresh connection
    // comes after them.
    let probe = try open()
    _ = try answers(probe, 0)
    try probe.socket.writeAll(ClientMessage.request(id: 1, .stats).encoded())
    _ = try answers(probe, 1)
    probe.socket.close()
    let after = processUsage(laminad)
    return """
        flood: \(sent) frames (\(mutated) with a flipped byte) from 4 connections in \(String(format: "%.1f", seconds)) s: \
        \(Int(Double(sent) / seconds)) frames/s; \(dropped) connections dropped and reopened; longest wait for an answer \
        \(String(format: "%.1f", longestWait * 1000)) ms
        laminad pid \(laminad.map(String.init) ?? "?"): RSS \(before.rss / 1024) → \(after.rss / 1024) KiB, \
        descriptors \(before.fds) → \(after.fds) (after the flood's connections closed); RSS along the way (MiB): \
        \(samples.map { String($0.rss >> 20) }.joined(separator: " "))
        """
}

/// laminad's pid from /proc: the process whose command line names the socket.
func findDaemon(socket: String) -> Int32? {
    guard let dir = opendir("/proc") else { return nil }
    defer { closedir(dir) }
    while let entry = readdir(dir) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        guard let pid = Int32(name), let cmd = readText("/proc/\(pid)/cmdline") else { continue }
        let args = cmd.split(separator: "\0").map(String.init)
        if args.first?.hasSuffix("laminad") == true, args.contains(socket) { return pid }
    }
    return nil
}

func readText(_ path: String) -> String? {
    guard let f = fopen(path, "r") else { return nil }
    defer { fclose(f) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    while true {
        let n = fread(&chunk, 1, chunk.count, f)
        if n <= 0 { break }
        bytes += chunk[0..<n]
    }
    return String(decoding: bytes, as: UTF8.self)
}

/// VmRSS in bytes and the number of open descriptors of `pid` (zeros when unknown).
func processUsage(_ pid: Int32?) -> (rss: Int, fds: Int) {
    guard let pid, let status = readText("/proc/\(pid)/status") else { return (0, 0) }
    let rss = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") }
        .flatMap { Int($0.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") } ?? 0
    var fds = 0
    if let dir = opendir("/proc/\(pid)/fd") {
        while readdir(dir) != nil { fds += 1 }
        closedir(dir)
        fds -= 2  // . and ..
    }
    return (rss * 1024, fds)
}

