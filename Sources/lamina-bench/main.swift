// lamina-bench: the numbers the issues ask for. Build with -c release:
//   swift run -c release lamina-bench [protocol|animation|frames|render|all]
let which = CommandLine.arguments.dropFirst().first ?? "all"
if which == "protocol" || which == "all" { print(runProtocolBenchmark()) }
if which == "animation" || which == "all" { print(runAnimationBenchmark()) }
if which == "frames" || which == "all" { print(runAnimatedFrameBenchmark()) }
if which == "render" || which == "all" {
    do { print(try runRenderBenchmark()) } catch { print("render benchmark failed: \(error)") }
    do { print(try runLooksRenderBenchmark()) } catch { print("appearance render benchmark failed: \(error)") }
}
