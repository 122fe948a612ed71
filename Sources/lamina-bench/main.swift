// lamina-bench: the numbers the issues ask for. Build with -c release:
//   swift run -c release lamina-bench [protocol|animation|frames|render|all]
//   lamina-bench live [SECONDS]   against a running laminad ($LAMINA_SOCKET): commits/s while
//                                 an animation plays there (the KMS VM test runs it in the guest)
let which = CommandLine.arguments.dropFirst().first ?? "all"
if which == "live" {
    let seconds = CommandLine.arguments.dropFirst(2).first.flatMap(Double.init) ?? 3
    do { print(try runLiveCommitBenchmark(seconds: seconds)) } catch { print("live benchmark failed: \(error)") }
}
if which == "protocol" || which == "all" { print(runProtocolBenchmark()) }
if which == "animation" || which == "all" { print(runAnimationBenchmark()) }
if which == "frames" || which == "all" { print(runAnimatedFrameBenchmark()) }
if which == "render" || which == "all" {
    do { print(try runRenderBenchmark()) } catch { print("render benchmark failed: \(error)") }
}
