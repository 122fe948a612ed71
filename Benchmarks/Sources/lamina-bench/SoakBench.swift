#if canImport(Glibc)
import Glibc
#endif
import LaminaCore
import LaminaTestSupport
import LaminaPlatform
import LaminaProtocol

/// `lamina-bench soak SECONDS [PID]`: clients connecting, animating, committing and dying
/// against a running laminad ($LAMINA_SOCKET) for SECONDS (an hour by default). Up to eight
/// clients at a time; each builds 24 layers with repeating animations, then commits changes
/// (animated implicitly) and asks for stats, and ends by closing cleanly or by vanishing with
/// its replies unread. A third of them keep their layers in one of three named sessions, which
/// later clients adopt. laminad's RSS and descriptors are sampled every SECONDS/60; the report
/// gives the least-squares slope over the second half (after warm-up), per hour.
func runSoakBenchmark(seconds: Double, pid: Int32?) throws -> String {
    let path = SocketPath.resolve()
    guard let laminad = pid ?? findDaemon(socket: path) else { return "soak: no laminad found for \(path); pass its pid" }
    var rng = SplitMix(state: 0x50AC)
    final class Client {
        let socket: FileDescriptor
        var serial: UInt32 = 1
        init(_ s: FileDescriptor) { socket = s }
    }
    var clients: [Client] = []
    var buffer = [UInt8](repeating: 0, count: 1 << 16)
    var (connected, died, closed, commits) = (0, 0, 0, 0)
    func drain(_ c: Client) {
        while true {
            var pfd = pollfd(fd: c.socket.rawValue, events: Int16(POLLIN), revents: 0)
            guard poll(&pfd, 1, 0) > 0 else { return }
            let read: Int?? = try? buffer.withUnsafeMutableBytes { try c.socket.read(into: $0) }
            guard let n = read ?? 0, n > 0 else { return }
        }
    }
    func commit(_ c: Client, _ ops: [Operation]) throws {
        try c.socket.writeAll(ClientMessage.commit(Commit(serial: c.serial, operations: ops)).encoded())
        c.serial &+= 1
        commits += 1
    }
    func connect() throws {
        let c = Client(try UnixSocket.connect(path: path))
        let kept = rng.next() % 3 == 0
        let session = kept ? "soak-\(rng.next() % 3)" : ""
        try? c.socket.writeAll(ClientMessage.hello(Hello(clientName: "soak", session: session, flags: kept ? .keepLayers : [])).encoded())
        // A session in use answers with an error and a close; the client is then just dropped later.
        var ops: [Operation] = [.settings(TransactionSettings(disableActions: true))]
        for k in 1...24 {
            let id = LayerID(UInt32(1000 + k))
            var spin = BasicAnimation(keyPath: "transform.rotation.z", fromValue: .number(0), toValue: .number(6.283))
            spin.duration = 1 + Double(k % 5)
            spin.repeatCount = .infinity
            ops += [.create(id, kind: k % 6 == 0 ? .text : .layer),
                    .set(id, .bounds, .rect(Rect(x: 0, y: 0, width: 30, height: 20))),
                    .set(id, .position, .point(Point(x: Double(k * 40 % 1200), y: Double(k * 29 % 700)))),
                    .set(id, .backgroundColor, .color(Color(red: Double(k) / 24, green: 0.4, blue: 0.7, alpha: 0.8))),
                    .set(id, .cornerRadius, .number(4)),
                    .insert(parent: .root, child: id, index: .max),
                    .addAnimation(id, key: "spin", tag: 0, .basic(spin))]
            if k % 6 == 0 { ops.append(.set(id, .string, .string("soak \(k)"))) }
        }
        // Adopting a kept session that has them already, the creates are refused (duplicate
        // layers) and the kept layers go on as they were.
        connected += 1
        do {
            try commit(c, ops)
            clients.append(c)
        } catch {
            c.socket.close()  // refused at hello (a session in use): it is gone
        }
    }
    let start = monotonicSeconds()
    let interval = max(1, seconds / 60)
    var nextSample = start
    var samples: [(t: Double, rss: Int, fds: Int)] = []
    while monotonicSeconds() - start < seconds {
        let now = monotonicSeconds()
        if now >= nextSample {
            let u = processUsage(laminad)
            samples.append((now - start, u.rss, u.fds))
            nextSample += interval
        }
        switch rng.next() % 10 {
        case 0...1 where clients.count < 8:
            try connect()
        case 2 where !clients.isEmpty:
            // Vanishes with its replies unread.
            let c = clients.remove(at: Int(rng.next() % UInt64(clients.count)))
            c.socket.close()
            died += 1
        case 3 where !clients.isEmpty:
            let c = clients.remove(at: Int(rng.next() % UInt64(clients.count)))
            drain(c)
            c.socket.close()
            closed += 1
        default:
            guard !clients.isEmpty else { try connect(); continue }
            let c = clients[Int(rng.next() % UInt64(clients.count))]
            let id = LayerID(UInt32(1001 + rng.next() % 24))
            let x = Double(rng.next() % 1200), y = Double(rng.next() % 700)
            do {
                try commit(c, [.set(id, .position, .point(Point(x: x, y: y))), .set(id, .opacity, .number(Double(rng.next() % 100) / 100))])
                if rng.next() % 8 == 0 { try c.socket.writeAll(ClientMessage.request(id: 1, .stats).encoded()) }
            } catch {
                // laminad closed it (a session in use, or a budget): forget it.
                clients.removeAll { $0 === c }
                c.socket.close()
            }
        }
        for c in clients { drain(c) }
        usleep(20_000)
    }
    for c in clients { c.socket.close() }
    usleep(500_000)
    let end = processUsage(laminad)
    samples.append((monotonicSeconds() - start, end.rss, end.fds))
    func slope(_ values: [(Double, Double)]) -> Double {
        let n = Double(values.count)
        guard n >= 2 else { return 0 }
        let mx = values.map(\.0).reduce(0, +) / n, my = values.map(\.1).reduce(0, +) / n
        let sxx = values.map { ($0.0 - mx) * ($0.0 - mx) }.reduce(0, +)
        let sxy = values.map { ($0.0 - mx) * ($0.1 - my) }.reduce(0, +)
        return sxx == 0 ? 0 : sxy / sxx
    }
    let late = Array(samples.suffix(max(2, samples.count / 2)))
    let rssSlope = slope(late.map { ($0.t, Double($0.rss) / 1024) }) * 3600
    let fdSlope = slope(late.map { ($0.t, Double($0.fds)) }) * 3600
    return """
    soak: \(Int(seconds)) s, \(connected) clients connected (\(died) vanished, \(closed) closed cleanly), \(commits) commits
    laminad pid \(laminad): RSS \(samples.first.map { $0.rss >> 10 } ?? 0) → \(end.rss >> 10) KiB, descriptors \(samples.first?.fds ?? 0) → \(end.fds)
    slope over the second half: RSS \(Int(rssSlope)) KiB/hour, descriptors \(String(fdSlope)) /hour
    RSS along the way (MiB): \(samples.map { String($0.rss >> 20) }.joined(separator: " "))
    """
}
