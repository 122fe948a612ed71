import Foundation
import Lamina
import LaminaCore
import LaminaPlatform
import LaminaProtocol

/// `lamina-probe input-latency [N] [LAYERS]` against a running laminad ($LAMINA_SOCKET) with
/// input devices: a client with a full-screen layer (over LAYERS (100) small ones) receives N
/// (100) events from a real device and reports, for each, the time from the kernel's timestamp
/// of the device event (`deviceTime`, CLOCK_MONOTONIC) to the client holding the event: the
/// whole path through libinput, the output mapping, hit testing, routing, the socket and the
/// client library. Prints "ready" once it listens, so a driver can start sending events.
/// The KMS VM test drives it with QMP tablet events.
@MainActor
func runInputLatencyProbe(samples: Int, layers layerCount: Int) async throws -> String {
    let c = try Connection.connect(name: "lamina-probe input-latency")
    let size = c.displaySize
    let back = Layer()
    back.frame = Rect(x: 0, y: 0, width: size.width, height: size.height)
    back.backgroundColor = Color(red: 0.1, green: 0.1, blue: 0.2, alpha: 1)
    c.rootLayer.addSublayer(back)
    for i in 0..<layerCount {
        let l = Layer()
        l.frame = Rect(x: Double(i % 20) * 60 + 5, y: Double(i / 20) * 60 + 5, width: 50, height: 50)
        l.backgroundColor = Color(red: Double(i % 7) / 7, green: 0.5, blue: 0.8, alpha: 1)
        l.isUserInteractionEnabled = i % 2 == 0
        back.addSublayer(l)
    }
    try await c.sync()
    var latencies: [Double] = []
    var injected = 0
    let events = c.inputEvents()
    FileHandle.standardOutput.write(Data("ready\n".utf8))
    for await e in events {
        guard e.kind != .focusIn, e.kind != .focusOut else { continue }
        guard e.event.deviceTime > 0 else { injected += 1; continue }
        latencies.append(monotonicSeconds() - e.event.deviceTime)
        if latencies.count >= samples { break }
    }
    c.close()
    guard !latencies.isEmpty else { return "input latency: no device events (\(injected) injected ones have no kernel time)" }
    let sorted = latencies.sorted()
    func ms(_ v: Double) -> String { String(format: "%.2f ms", v * 1000) }
    let p95 = sorted[min(sorted.count - 1, Int(Double(sorted.count) * 0.95))]
    return "input latency, kernel event → client, \(sorted.count) events over \(layerCount + 1) layers: median \(ms(sorted[sorted.count / 2])), p95 \(ms(p95)), max \(ms(sorted.last!))"
}
