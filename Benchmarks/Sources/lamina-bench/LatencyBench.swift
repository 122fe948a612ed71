import Foundation
import Lamina
import LaminaCore
import LaminaPlatform

/// Commit-to-frame latency on a real laminad with the real clock (headless, 60 Hz): the time
/// from a client committing a change to the `frame` watch event of the first frame that shows
/// it, over a real Unix socket. The frame is presented at the next refresh boundary, so the
/// median sits near half a refresh plus the render time.
@MainActor
func runLatencyBenchmark(layers layerCount: Int = 100, samples: Int = 300) async throws -> String {
    let socket = NSTemporaryDirectory() + "lamina-bench-\(getpid()).sock"
    let daemon = Process()
    daemon.executableURL = try laminadExecutable()
    daemon.arguments = ["--backend", "headless", "--size", "1280x720", "--clock", "real", "--socket", socket, "--log-level", "warning"]
    try daemon.run()
    defer { daemon.terminate(); daemon.waitUntilExit() }
    for _ in 0..<400 where !FileManager.default.fileExists(atPath: socket) { usleep(25_000) }

    let c = try Connection.connect(to: socket, name: "lamina-bench latency")
    var layers: [Layer] = []
    for i in 0..<layerCount {
        let l = Layer()
        l.frame = Rect(x: Double(i % 20) * 60, y: Double(i / 20) * 60, width: 50, height: 50)
        l.backgroundColor = Color(red: Double(i % 7) / 7, green: 0.5, blue: 0.8, alpha: 1)
        c.rootLayer.addSublayer(l)
        layers.append(l)
    }
    try await c.sync()

    // The frame events say how many commits the frame shows.
    final class Frames { var shownCommits = 0.0; var seen: [(commits: Double, at: Double)] = [] }
    let frames = Frames()
    c.onWatchEvent = { line in
        guard line.contains("\"event\":\"frame\""), let r = line.range(of: "\"commits\":") else { return }
        let rest = line[r.upperBound...].prefix { $0.isNumber }
        frames.seen.append((Double(rest) ?? 0, monotonicSeconds()))
    }
    try await c.watch()
    let base = try await c.stats().first { $0.name == "commitsApplied" }?.value ?? 0

    var latencies: [Double] = []
    for i in 0..<samples {
        Transaction.begin()
        Transaction.disableActions = true
        layers[i % layerCount].position.x += i % 2 == 0 ? 1 : -1
        let sent = monotonicSeconds()
        Transaction.commit()
        let target = base + Double(i + 1)
        let deadline = sent + 1
        while !frames.seen.contains(where: { $0.commits >= target }), monotonicSeconds() < deadline {
            try await Task.sleep(for: .microseconds(200))
        }
        guard let hit = frames.seen.first(where: { $0.commits >= target }) else { continue }
        latencies.append(hit.at - sent)
        frames.seen.removeAll()
        // Spread commits over the refresh so they land at every phase of it.
        try await Task.sleep(for: .microseconds(Int.random(in: 1_000...17_000)))
    }
    c.close()
    latencies.sort()
    func ms(_ q: Double) -> String {
        guard !latencies.isEmpty else { return "n/a" }
        return String(format: "%.2f", latencies[min(latencies.count - 1, Int(q * Double(latencies.count)))] * 1000)
    }
    return "latency: commit → frame event over a real socket, laminad --clock real (60 Hz), headless 1280×720, "
        + "\(layerCount) layers, \(latencies.count)/\(samples) samples: median \(ms(0.5)) ms, p90 \(ms(0.9)) ms, p99 \(ms(0.99)) ms, max \(ms(1))"
}

/// The laminad to start: `$LAMINAD`, else one beside this executable, else the main package's
/// release build (this package's build has no laminad: it is not a product it depends on).
private func laminadExecutable() throws -> URL {
    if let path = ProcessInfo.processInfo.environment["LAMINAD"] { return URL(fileURLWithPath: path) }
    let beside = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        .appendingPathComponent("laminad")
    // Benchmarks/Sources/lamina-bench/LatencyBench.swift → the repository root.
    var root = URL(fileURLWithPath: #filePath)
    for _ in 0..<4 { root.deleteLastPathComponent() }
    let main = root.appendingPathComponent(".build/release/laminad")
    for candidate in [beside, main] where FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
    throw SystemError("no laminad at \(beside.path) or \(main.path): build it (swift build -c release --product laminad) or set LAMINAD", errno: 0)
}
