// lamina-bench: the numbers the issues ask for. Build with -c release:
//   swift run -c release lamina-bench [render|protocol|animation|all]
let which = CommandLine.arguments.dropFirst().first ?? "all"
if which == "protocol" || which == "all" { print(runProtocolBenchmark()) }
if which == "render" || which == "all" {
    do { print(try runRenderBenchmark()) } catch { print("render benchmark failed: \(error)") }
}
