import Foundation
import SceneStore
import SceneStoreTesting
import MultiProcessSupport
import Testing

extension MultiProcess {
    /// No lost updates: saves merge under the scene lock, and every process
    /// converges to what is on disk.
    @Suite struct LostUpdateTests {
        // Hang guard: it took 13 s here (2 cores); 3 minutes, as the load step runs it several times slower.
        @Test(.timeLimit(.minutes(3)))
        func fourWritersOfDistinctKeysKeepEveryKey() async throws {
            try await checkDistinctKeysSurvive(
                watcherArguments: [], observer: .init(savePolicy: .onFlush, watcher: .automatic))
        }

        // Hang guard: it took 1 s here (2 cores); 3 minutes, as the load step runs it several times slower.
        @Test(.timeLimit(.minutes(3)))
        func fourWritersOfOneKeyConvergeToTheDiskWithinASecond() async throws {
            try await checkSameKeyConverges(
                watcherArguments: [], observer: .init(savePolicy: .onFlush, watcher: .automatic))
        }
    }
}

/// 4 processes × `saves` saves of distinct keys into one scene, at once:
/// afterwards every key is on disk, in each writer's view and in an
/// observing registry of the test process.
func checkDistinctKeysSurvive(
    writers: Int = 4, saves: Int = 500, watcherArguments: [String],
    observer configuration: SceneRegistry.Configuration
) async throws {
    let fixture = try await SceneStoreFixture(configuration: configuration)
    let total = writers * saves
    let observer = try await fixture.registry.store(for: "shared")
    let changes = observer.changes()
    let started = ContinuousClock.now
    let processes = try (0..<writers).map { writer in
        try RunningScenes(
            ["stress", "--scene", "shared", "--count", "\(saves)", "--prefix", "w\(writer)-", "--converge"] + contendedWriter
                + watcherArguments,
            root: fixture.root, program: .lab)
    }
    let logs = processes.map(LineLog.init)
    for log in logs {
        #expect(await log.next { $0.hasPrefix("ready") } != nil)
    }
    // A writer's first view is printed right after its last save returned.
    // One deadline for all: 2000 durable saves take a few seconds on a
    // quiet disk, minutes while it writes back a build (an fsync there
    // took 0.5-2 s).
    var lastViews: [StressView] = []
    let deadline = ContinuousClock.now + .seconds(480)
    for (index, log) in logs.enumerated() {
        let view = try #require(await log.next(StressView.self, prefix: "view ", within: deadline - .now),
                                "writer \(index) did not finish: \(log.lines.suffix(3)), stderr: \(processes[index].errorOutput.suffix(2000))")
        lastViews.append(view)
    }
    let lastSave = lastViews.map(\.at).max() ?? 0
    let writing = ContinuousClock.now - started

    let disk = try await onDisk("shared", root: fixture.root)
    #expect(disk.values.count == total)
    #expect(disk.generation == UInt64(total), "one save per flush, none skipped")
    let missing = (0..<writers).flatMap { writer in
        (0..<saves).compactMap { index in disk.values["w\(writer)-\(index)"] == .int(index) ? nil : "w\(writer)-\(index)" }
    }
    #expect(missing.isEmpty, "keys missing or wrong on disk: \(missing.prefix(10))")

    var convergence: [Double] = []
    for (index, log) in logs.enumerated() {
        var view: StressView? = lastViews[index]
        if view?.keys != total {
            view = await log.next(StressView.self, prefix: "view ", within: .seconds(30)) { $0.keys == total }
        }
        let converged = try #require(view, "writer \(index) never saw all \(total) keys: \(log.lines.suffix(2))")
        #expect(converged.generation == disk.generation)
        convergence.append(milliseconds(max(0, converged.at - lastSave)))
    }
    if observer.snapshot.count < total {
        _ = await changes.first(within: .seconds(30)) { _ in observer.snapshot.count >= total }
    }
    #expect(observer.snapshot == disk.values, "the observing registry has \(observer.snapshot.count) keys")

    for (process, log) in zip(processes, logs) {
        process.closeInput()
        #expect(await log.next { $0.hasPrefix("done ") } == "done \(saves)")
        #expect(await process.exitStatus(within: .seconds(30)) == 0)
    }
    print("""
        lost updates (\(watcherArguments.isEmpty ? "inotify" : watcherArguments.joined(separator: " "))): \
        \(writers) writers x \(saves) saves in \(writing): \(disk.values.count) keys on disk at generation \
        \(disk.generation); every writer saw all \(total), within \(convergence.map { String(format: "%.1f", $0) }) ms \
        of the last save; the observer has \(observer.snapshot.count)
        """)
    await fixture.tearDown()
}

/// 4 processes saving one key at once: afterwards each converges to the
/// value on disk within a second of the last save.
func checkSameKeyConverges(
    writers: Int = 4, saves: Int = 250, watcherArguments: [String],
    observer configuration: SceneRegistry.Configuration
) async throws {
    let fixture = try await SceneStoreFixture(configuration: configuration)
    let observer = try await fixture.registry.store(for: "contended")
    let processes = try (0..<writers).map { _ in
        try RunningScenes(
            ["stress", "--scene", "contended", "--count", "\(saves)", "--same-key", "k", "--converge"] + contendedWriter + watcherArguments,
            root: fixture.root, program: .lab)
    }
    let logs = processes.map(LineLog.init)
    for log in logs {
        #expect(await log.next { $0.hasPrefix("ready") } != nil)
    }
    var lastViews: [StressView] = []
    for (index, log) in logs.enumerated() {
        lastViews.append(try #require(await log.next(StressView.self, prefix: "view ", within: .seconds(60)),
                                      "writer \(index) did not finish"))
    }
    let lastSave = lastViews.map(\.at).max() ?? 0
    let disk = try await onDisk("contended", root: fixture.root)
    let winner = try #require(disk.values["k"].flatMap { value -> String? in
        if case .string(let text) = value { return text }
        return nil
    })
    #expect(disk.generation == UInt64(writers * saves))

    var convergence: [Double] = []
    for (index, log) in logs.enumerated() {
        var view: StressView? = lastViews[index]
        if view?.value != winner {
            view = await log.next(StressView.self, prefix: "view ", within: .seconds(30)) { $0.value == winner }
        }
        let converged = try #require(view, "writer \(index) never saw \(winner): \(log.lines.suffix(2))")
        let lag = milliseconds(max(0, converged.at - lastSave))
        convergence.append(lag)
    }
    let observed = await observer.values(forKey: "k", default: "").first(within: .seconds(30)) { $0 == winner }
    #expect(observed == winner)
    let observerLag = milliseconds(max(0, monotonicNow() - lastSave))

    for (process, log) in zip(processes, logs) {
        process.closeInput()
        #expect(await log.next { $0.hasPrefix("done ") } == "done \(saves)")
        #expect(await process.exitStatus(within: .seconds(30)) == 0)
    }
    print("""
        same key (\(watcherArguments.isEmpty ? "inotify" : watcherArguments.joined(separator: " "))): \
        \(writers) writers x \(saves) saves; disk holds \(winner) at generation \(disk.generation); writers \
        converged \(convergence.map { String(format: "%.1f", $0) }) ms after the last save; observer by \
        \(String(format: "%.1f", observerLag)) ms
        """)
    await fixture.tearDown()
}
