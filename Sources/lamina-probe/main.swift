// lamina-probe: a client that measures a running laminad ($LAMINA_SOCKET) from outside, for the
// KMS VM tests (Tests/LaminaKMSTests) that run it in the guest. The benchmarks proper live in the
// nested Benchmarks/ package.
//   lamina-probe live [SECONDS]           commits/s (each waited for) while an animation plays
//   lamina-probe input-latency [N] [LAYERS]  kernel event → client time for N device events over
//                                         LAYERS small layers; prints "ready" once it listens
//   lamina-probe open-transaction         Transaction.openAcrossSuspension's reports, in a process
//                                         of its own (no laminad needed)
//   lamina-probe cec-tv DEVICE [SECONDS]  a TV on an HDMI-CEC adapter: claims logical address 0
//                                         and prints the messages it receives (CECTVProbe.swift)
//   lamina-probe cec-list                 each /dev/cecN: driver, adapter name, physical address
//   lamina-probe splash --fbdev | --kms [--exit]  a known boot splash on the display (SplashProbe.swift)
//   lamina-probe crtc                     what each CRTC of card0 shows
#if canImport(Glibc)
import Glibc
#endif
let arguments = Array(CommandLine.arguments.dropFirst())
switch arguments.first {
case "live":
    let seconds = arguments.dropFirst().first.flatMap(Double.init) ?? 3
    do { print(try runLiveCommitProbe(seconds: seconds)) } catch { print("live probe failed: \(error)") }
case "input-latency":
    let n = arguments.dropFirst().first.flatMap { Int($0) } ?? 100
    let layers = arguments.dropFirst(2).first.flatMap { Int($0) } ?? 100
    do { print(try await runInputLatencyProbe(samples: max(1, n), layers: max(0, layers))) } catch { print("input latency failed: \(error)") }
case "open-transaction":
    print(await runOpenTransactionProbe())
case "cec-list":
    exit(runCECList())
case "cec-tv" where arguments.count >= 2:
    exit(runCECTV(device: arguments[1], seconds: arguments.dropFirst(2).first.flatMap(Double.init) ?? 600))
case "splash" where arguments.dropFirst().first == "--fbdev":
    exit(runFbdevSplash())
case "splash" where arguments.dropFirst().first == "--kms":
    exit(runKMSSplash(exitAtOnce: arguments.contains("--exit")))
case "crtc":
    exit(runCRTCList())
default:
    print("usage: lamina-probe live [SECONDS] | input-latency [N] [LAYERS]   (against $LAMINA_SOCKET) | open-transaction | cec-tv DEVICE [SECONDS] | cec-list | splash --fbdev | splash --kms [--exit] | crtc")
    exit(2)
}
