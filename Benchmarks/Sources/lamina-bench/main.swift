// lamina-bench: the figures the package-benchmark suites beside it (Benchmarks/Benchmarks/) do not
// give, printed as text. Build with -c release, from the repository root:
//   swift run -c release --package-path Benchmarks lamina-bench [protocol|animation|render|latency|contents|raster|all] [frames for render]
//   lamina-bench flood [FRAMES] [PID]   FRAMES (10^7) protocol frames, valid and mutated, through
//                                 a running laminad ($LAMINA_SOCKET): frames/s, longest wait, RSS, fds
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
if which == "hittest" {
    let n = CommandLine.arguments.dropFirst(2).first.flatMap { Int($0) } ?? 10_000
    print(runHitTestBenchmark(count: n))
}
if which == "protocol" || which == "all" { print(runProtocolBenchmark()) }
if which == "animation" || which == "all" { print(runAnimationBenchmark()) }
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
