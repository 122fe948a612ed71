// lamina-bench: the numbers the issues ask for. Build with -c release:
//   swift run -c release lamina-bench [protocol|animation|frames|render|latency|contents|raster|all] [frames for render]
//   lamina-bench live [SECONDS]   against a running laminad ($LAMINA_SOCKET): commits/s while
//                                 an animation plays there (the KMS VM test runs it in the guest)
//   lamina-bench flood [FRAMES] [PID]   FRAMES (10^7) protocol frames, valid and mutated, through
//                                 a running laminad ($LAMINA_SOCKET): frames/s, longest wait, RSS, fds
//   lamina-bench input-latency [N] [LAYERS]   kernel event → client time for N device events,
//                                 against a running laminad with input devices ($LAMINA_SOCKET)
//   lamina-bench staged [N]       a commit of N (10^5) operations applied in steps: the longest step
//   lamina-bench hittest [N]     microseconds per hit test with N (10^4) layers on screen
//   lamina-bench soak [SECONDS] [PID]  clients connecting, animating, committing and dying against
//                                 a running laminad: RSS and descriptor slope
let which = CommandLine.arguments.dropFirst().first ?? "all"
if which == "flood" {
    let frames = CommandLine.arguments.dropFirst(2).first.flatMap { Int($0) } ?? 10_000_000
    let pid = CommandLine.arguments.dropFirst(3).first.flatMap { Int32($0) }
    do { print(try runFloodBenchmark(frames: frames, pid: pid)) } catch { print("flood failed: \(error)") }
}
if which == "soak" {
    let seconds = CommandLine.arguments.dropFirst(2).first.flatMap(Double.init) ?? 3600
    let pid = CommandLine.arguments.dropFirst(3).first.flatMap { Int32($0) }
    do { print(try runSoakBenchmark(seconds: seconds, pid: pid)) } catch { print("soak failed: \(error)") }
}
if which == "input-latency" {
    let n = CommandLine.arguments.dropFirst(2).first.flatMap { Int($0) } ?? 100
    let layers = CommandLine.arguments.dropFirst(3).first.flatMap { Int($0) } ?? 100
    do { print(try await runInputLatencyBenchmark(samples: max(1, n), layers: max(0, layers))) } catch { print("input latency failed: \(error)") }
}
if which == "hittest" {
    let n = CommandLine.arguments.dropFirst(2).first.flatMap { Int($0) } ?? 10_000
    print(runHitTestBenchmark(count: n))
}
if which == "staged" {
    let n = CommandLine.arguments.dropFirst(2).first.flatMap { Int($0) } ?? 100_000
    print(runStagedCommitBenchmark(count: max(3, n)))
}
if which == "tree" {
    let n = CommandLine.arguments.dropFirst(2).first.flatMap { Int($0) } ?? 100_000
    print(runTreeEditBenchmark(count: n))
}
if which == "live" {
    let seconds = CommandLine.arguments.dropFirst(2).first.flatMap(Double.init) ?? 3
    do { print(try runLiveCommitBenchmark(seconds: seconds)) } catch { print("live benchmark failed: \(error)") }
}
if which == "protocol" || which == "all" { print(runProtocolBenchmark()) }
if which == "animation" || which == "all" { print(runAnimationBenchmark()) }
if which == "frames" || which == "all" { print(runAnimatedFrameBenchmark()) }
if which == "render" || which == "all" {
    let frames = CommandLine.arguments.dropFirst(2).first.flatMap { Int($0) }.map { max(1, $0) } ?? 60
    do { print(try runRenderBenchmark(frames: frames)) } catch { print("render benchmark failed: \(error)") }
    do { print(try runLooksRenderBenchmark()) } catch { print("appearance render benchmark failed: \(error)") }
}
if which == "latency" || which == "all" {
    do { print(try await runLatencyBenchmark()) } catch { print("latency benchmark failed: \(error)") }
}
if which == "contents" || which == "all" {
    do { print(try runContentsBenchmark()) } catch { print("contents benchmark failed: \(error)") }
}
if which == "raster" || which == "all" { print(runRasterBenchmark()) }
