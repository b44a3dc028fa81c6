// swift-tools-version: 6.2
import PackageDescription

let package = Package(
    name: "SceneStore",
    products: [
        .library(name: "SceneStore", targets: ["SceneStore"]),
        .library(name: "SceneNavigation", targets: ["SceneNavigation"]),
        .library(name: "SceneStoreTesting", targets: ["SceneStoreTesting"]),
        // Scenes kept in PostgreSQL: its own product, so that only apps
        // that use it build postgres-nio.
        .library(name: "SceneStorePostgres", targets: ["SceneStorePostgres"]),
        // The registry as a swift-service-lifecycle Service (graceful
        // shutdown = quit): its own product, built only by apps that use it.
        .library(name: "SceneStoreServiceLifecycle", targets: ["SceneStoreServiceLifecycle"]),
        .executable(name: "scenes", targets: ["scenes"]),
    ],
    traits: [
        // Off by default, so the demo (`swift run scenes ...`) builds no
        // postgres-nio; `swift test --traits Postgres` and
        // `swift run --traits Postgres scenes --backend postgres://...` turn it on.
        .trait(name: "Postgres", description: "`scenes --backend postgres://...`: the CLI and the demo keep scenes in PostgreSQL."),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.0"),
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.81.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.6.0"),
        // Typed errno (`Errno`) in SceneStore's errors.
        .package(url: "https://github.com/apple/swift-system", from: "1.4.0"),
        // SceneStoreTesting's manual clock.
        .package(url: "https://github.com/pointfreeco/swift-clocks", from: "1.0.6"),
    ],
    targets: [
        .systemLibrary(
            name: "CInotifyTools",
            path: "Sources/CInotifyTools",
            providers: [.apt(["libinotifytools0-dev"])]
        ),
        // Linux calls Swift cannot make directly (renameat2, prctl).
        .target(name: "CSceneSupport"),
        .systemLibrary(
            name: "CSQLite",
            path: "Demo/CSQLite",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        .target(
            name: "SceneStore",
            dependencies: [
                "CInotifyTools",
                "CSceneSupport",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),
        // The only target that depends on postgres-nio, and only with the
        // Postgres trait: without it the module is empty and nothing of
        // postgres-nio is built (apps enable the trait with the product).
        .target(
            name: "SceneStorePostgres",
            dependencies: [
                "SceneStore",
                .product(name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: ["Postgres"])),
                .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: ["Postgres"])),
                .product(name: "NIOPosix", package: "swift-nio", condition: .when(traits: ["Postgres"])),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio", condition: .when(traits: ["Postgres"])),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "SceneStoreServiceLifecycle",
            dependencies: [
                "SceneStore",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .target(
            name: "SceneNavigation",
            dependencies: [
                "SceneStore",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "SceneStoreTesting",
            dependencies: [
                "SceneStore",
                .product(name: "Clocks", package: "swift-clocks"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),
        .target(
            name: "ScenesCLIKit",
            dependencies: [
                "SceneStore",
                "SceneStorePostgres",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Demo/ScenesCLIKit"
        ),
        .executableTarget(
            name: "scenes",
            dependencies: [
                "SceneStore",
                "SceneNavigation",
                "ScenesCLIKit",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Demo/scenes"
        ),
        // `scenes get`'s floor in `scenes-lab bench compare`: a program that
        // only imports Foundation.
        .executableTarget(name: "foundation-floor", path: "Demo/foundation-floor"),
        // Benchmarks, probes and the stress and torture writers that the
        // tests drive: apart from the user-facing CLI, as swift-nio keeps
        // its performance tester.
        .executableTarget(
            name: "scenes-lab",
            dependencies: [
                "SceneStore",
                "SceneNavigation",
                "SceneStorePostgres",
                "SceneStoreTesting",
                "ScenesCLIKit",
                "CSQLite",
                // bench compare's look at a scene file's inode, without its times.
                "CSceneSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                // bench load's floor: plain connections, one statement per commit.
                .product(name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: ["Postgres"])),
            ],
            path: "Demo/scenes-lab"
        ),
        // What the multi-process tests of SceneStoreTests and ScenesCLITests
        // share: launching and reading processes, the history and torture
        // checkers, the storages a test runs on.
        .target(
            name: "MultiProcessSupport",
            dependencies: ["SceneStore", "SceneStoreTesting", "SceneStorePostgres", "ScenesCLIKit"],
            path: "Tests/MultiProcessSupport"
        ),
        // The library's unit layer: in-process tests that need no child
        // process, scenes-lab, SQLite or PostgreSQL. `SCENESTORE_LAYER=unit`
        // (see the end of this file) builds it and nothing else.
        .testTarget(
            name: "SceneStoreUnitTests",
            dependencies: [
                "SceneStore",
                "SceneStoreTesting",
                "TestSupport",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),
        // What the test targets share: a tmpfs to fill, a root's lock held
        // as another process would.
        .target(name: "TestSupport", dependencies: ["SceneStore"], path: "Tests/TestSupport"),
        // What needs more: the multi-process checks (scenes-lab children),
        // the storage contract and history on files and PostgreSQL.
        .testTarget(
            name: "SceneStoreTests",
            dependencies: [
                "SceneStore",
                "SceneStoreTesting",
                "SceneStorePostgres",
                "MultiProcessSupport",
                "TestSupport",
                // The child processes of the multi-process tests.
                "scenes-lab",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),
        // Runs a real PostgreSQL server of its own (skipped without the
        // binaries; `.ci/deps --test` installs them).
        .testTarget(
            name: "SceneStorePostgresTests",
            dependencies: [
                "SceneStore",
                "SceneStorePostgres",
                "SceneStoreTesting",
                .product(name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: ["Postgres"])),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "SceneStoreServiceLifecycleTests",
            dependencies: [
                "SceneStore",
                "SceneStoreServiceLifecycle",
                "SceneStoreTesting",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "SceneNavigationTests",
            dependencies: [
                "SceneNavigation",
                "SceneStoreTesting",
                "TestSupport",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        .testTarget(
            name: "ReadmeTests",
            dependencies: ["SceneStore", "SceneNavigation", "SceneStoreTesting", "SceneStorePostgres"]
        ),
        .testTarget(
            name: "ScenesCLITests",
            dependencies: [
                "SceneStore", "SceneNavigation", "SceneStoreTesting", "scenes", "scenes-lab",
                "SceneStorePostgres", "MultiProcessSupport", "ScenesCLIKit", "TestSupport",
            ]
        ),

        // Fuzzing (run by .ci/fuzz): the properties both decoders must keep,
        // one libFuzzer executable per decoder, and a test that replays the
        // seed corpus (Tests/Fuzz/Corpus) through the same checks.
        .target(
            name: "FuzzChecks",
            dependencies: ["SceneStore", "SceneNavigation"],
            path: "Tests/Fuzz/FuzzChecks"
        ),
        .executableTarget(
            name: "SceneFileFuzzer",
            dependencies: ["FuzzChecks"],
            path: "Tests/Fuzz/SceneFileFuzzer"
        ),
        .executableTarget(
            name: "ScenePathFuzzer",
            dependencies: ["FuzzChecks"],
            path: "Tests/Fuzz/ScenePathFuzzer"
        ),
        .testTarget(
            name: "FuzzCorpusTests",
            dependencies: ["FuzzChecks"],
            path: "Tests/Fuzz/CorpusTests"
        ),
    ]
)

// Strict settings for every Swift target of ours, set once.
for target in package.targets where target.type != .system && target.name != "CSceneSupport" {
    target.swiftSettings = (target.swiftSettings ?? []) + [
        .enableUpcomingFeature("ExistentialAny"),
    ]
}

// SCENESTORE_TSAN=1 (set by .ci/tsan): ThreadSanitizer on this package's own
// targets only. `swift build --sanitize=thread` instruments the whole graph,
// swift-nio, postgres-nio, swift-nio-ssl and swift-crypto's BoringSSL too
// (about 600k lines of C, compiled a second time); here dependencies are
// built plain, the same objects as the plain build's, and only our modules
// (SceneStorePostgres included) are compiled under TSan. Executables and
// test products link the TSan runtime. Only the targets of .ci/tsan's
// suites are declared (their tests, the libraries, scenes-lab that
// FaultTests launches): the CLI, its tests, the README's and the fuzzers'
// are not compiled a second time.
if Context.environment["SCENESTORE_TSAN"] == "1" {
    let dropped: Set = [
        "scenes", "ScenesCLITests", "ReadmeTests", "foundation-floor", "SceneStoreServiceLifecycle",
        "SceneStoreServiceLifecycleTests", "FuzzChecks", "SceneFileFuzzer", "ScenePathFuzzer", "FuzzCorpusTests",
    ]
    package.targets = package.targets.filter { !dropped.contains($0.name) }
    package.products = package.products.filter { !dropped.contains($0.name) }
    package.dependencies = package.dependencies.filter { dependency in
        guard case .sourceControl(_, let location, _) = dependency.kind else { return true }
        return !location.hasSuffix("/swift-service-lifecycle")
    }
    for target in package.targets where target.type != .system {
        if target.name == "CSceneSupport" {
            target.cSettings = (target.cSettings ?? []) + [.unsafeFlags(["-fsanitize=thread"])]
        } else {
            target.swiftSettings = (target.swiftSettings ?? []) + [.unsafeFlags(["-sanitize=thread"])]
        }
        if target.type == .executable || target.type == .test {
            target.linkerSettings = (target.linkerSettings ?? []) + [.unsafeFlags(["-sanitize=thread"])]
        }
    }
}

// SCENESTORE_LAYER=unit: the unit layer alone (CONTRIBUTING.md, "Test layers"). The
// package then declares only SceneStore, SceneStoreTesting and
// SceneStoreUnitTests, with the three packages they use (swift-log,
// swift-system, swift-clocks), so nothing of scenes-lab, SQLite, PostgreSQL, swift-nio or
// argument-parser is resolved or built. Run it in a scratch path of its own
// (.build-unit), so the main build in .build keeps its graph.
if Context.environment["SCENESTORE_LAYER"] == "unit" {
    let unitTargets: Set = ["CInotifyTools", "CSceneSupport", "SceneStore", "SceneStoreTesting", "SceneStoreUnitTests", "TestSupport"]
    let unitPackages = ["swift-log", "swift-system", "swift-clocks"]
    package.targets = package.targets.filter { unitTargets.contains($0.name) }
    package.products = package.products.filter { product in
        product.name == "SceneStore" || product.name == "SceneStoreTesting"
    }
    package.dependencies = package.dependencies.filter { dependency in
        guard case .sourceControl(_, let location, _) = dependency.kind else { return false }
        return unitPackages.contains { location.hasSuffix("/" + $0) }
    }
}
