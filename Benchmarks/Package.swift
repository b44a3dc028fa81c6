// swift-tools-version: 6.1
// SceneStore's benchmarks in package-benchmark's form, in a package of
// their own beside the library (as swift-nio keeps its Benchmarks/), so the
// library's users never resolve package-benchmark. From this folder, as
// root (the system-call counters need tracefs mounted):
//
//   swift package benchmark                      # run them all, the counts' percentiles
//   bash ../.ci/bench-thresholds                 # CI's check against Thresholds/<toolchain>/
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
        .target(
            name: "CSyscallCount", path: "Sources/CSyscallCount",
            cSettings: [.unsafeFlags(["-Wall", "-Wextra", "-Werror"])]
        ),
        .executableTarget(
            name: "SceneStoreBenchmarks",
            dependencies: [
                "CSyscallCount",
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "SceneStore", package: "SceneStore"),
            ],
            path: "Benchmarks/SceneStoreBenchmarks",
            // No warnings in our code: .ci/run's warnings check does not see
            // the plugin's build log, so a warning fails the build here.
            swiftSettings: [
                .swiftLanguageMode(.v6), .enableUpcomingFeature("ExistentialAny"), .unsafeFlags(["-warnings-as-errors"]),
            ],
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ]
)
