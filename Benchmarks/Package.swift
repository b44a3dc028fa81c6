// swift-tools-version: 6.1
// SceneStore's benchmarks in package-benchmark's form, in a package of
// their own beside the library (as swift-nio keeps its Benchmarks/), so the
// library's users never resolve package-benchmark. Run from this folder:
//
//   swift package benchmark                      # run them all
//   swift package benchmark thresholds check --path "$PWD/Thresholds/6.3" --no-progress
//
// BENCHMARKS.md says what each measures; CONTRIBUTING.md how to update a
// threshold on purpose.
import PackageDescription

let package = Package(
    name: "SceneStoreBenchmarks",
    dependencies: [
        .package(name: "SceneStore", path: ".."),
        // Pinned: the counts the thresholds hold include what the harness
        // itself does around a measurement. The trait list replaces the
        // package's default traits: the malloc interposer (mallocCountTotal)
        // without its Swift-runtime interposer.
        .package(url: "https://github.com/ordo-one/benchmark", exact: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        // The process's system calls, all threads, from one perf counter
        // (package-benchmark has no system-call count on Linux).
        .target(name: "CSyscallCount", path: "Sources/CSyscallCount"),
        .executableTarget(
            name: "SceneStoreBenchmarks",
            dependencies: [
                "CSyscallCount",
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "SceneStore", package: "SceneStore"),
            ],
            path: "Benchmarks/SceneStoreBenchmarks",
            swiftSettings: [.swiftLanguageMode(.v6), .enableUpcomingFeature("ExistentialAny")],
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ]
)
