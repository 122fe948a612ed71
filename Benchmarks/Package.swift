// swift-tools-version: 6.1
import PackageDescription

/// Lamina's benchmarks, in a package of their own so the main package's dependency graph stays
/// clean (as swift-nio keeps its benchmarks). It depends on the main package by path and reaches
/// the server's modules through its `LaminaInternals` product.
///
/// - `Benchmarks/<Name>/<Name>.swift`: in-process suites for ordo-one's package-benchmark, which
///   reports wall time, CPU, allocations and peak memory:
///   `swift package --package-path Benchmarks benchmark` (README.md).
/// - `lamina-bench`: the other figures, printed as text (`swift run -c release --package-path
///   Benchmarks lamina-bench NAME`).
let suites = ["TreeEdits", "StagedCommit", "Frames"]

let package = Package(
    name: "LaminaBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "Lamina", path: ".."),
        // The malloc interposer gives the allocation counts; naming the traits leaves out the
        // default RuntimeInterposer (ARC counts), whose package is not needed here.
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: suites.map { name in
        .executableTarget(
            name: name,
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "LaminaCore", package: "Lamina"),
                .product(name: "LaminaInternals", package: "Lamina"),
            ],
            path: "Benchmarks/\(name)",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        )
    } + [
        .executableTarget(name: "lamina-bench", dependencies: [
            .product(name: "Lamina", package: "Lamina"),
            .product(name: "LaminaCore", package: "Lamina"),
            .product(name: "LaminaInternals", package: "Lamina"),
        ]),
    ],
    swiftLanguageModes: [.v6]
)
