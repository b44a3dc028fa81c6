import Foundation
import SceneStore
import ScenesCLIKit
import SceneStoreTesting
#if canImport(Glibc)
import Glibc
#endif

/// `CLOCK_MONOTONIC` in nanoseconds, the clock `scenes` stamps views with.
package func monotonicNow() -> Int {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Int(now.tv_sec) * 1_000_000_000 + Int(now.tv_nsec)
}

package func milliseconds(_ nanoseconds: Int) -> Double { Double(nanoseconds) / 1_000_000 }

/// The lines a running `scenes` printed, kept, so a test can wait for one
/// line after another (with a deadline, never a sleep).
package final class LineLog: Sendable {
    private struct State {
        var lines: [String] = []
        var finished = false
        var waiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
        var nextID: UInt64 = 0
    }

    private let state = Locked(State())
    /// How many lines ``next(within:where:)`` has taken.
    private let taken = Locked(0)

    package init(_ process: RunningScenes) {
        let lines = process.lines
        Task { [state] in
            for await line in lines {
                let waiters = state.withLock { state in
                    state.lines.append(line)
                    defer { state.waiters = [:] }
                    return Array(state.waiters.values)
                }
                for waiter in waiters { waiter.resume() }
            }
            let waiters = state.withLock { state in
                state.finished = true
                defer { state.waiters = [:] }
                return Array(state.waiters.values)
            }
            for waiter in waiters { waiter.resume() }
        }
    }

    /// Every line so far.
    package var lines: [String] { state.withLock { $0.lines } }

    /// The first line not taken yet that matches `predicate`; it and the
    /// lines before it are taken. `nil` if the process's stdout ended or
    /// `timeout` passed first. `predicate` runs outside every lock.
    package func next(within timeout: Duration = .seconds(30), where predicate: (String) -> Bool = { _ in true }) async -> String? {
        let deadline = ContinuousClock.now + timeout
        // Wakes the wait below at the deadline.
        let alarm = Task { [weak self] in
            try? await Task.sleep(until: deadline)
            self?.wakeAll()
        }
        defer { alarm.cancel() }
        var index = taken.withLock { $0 }
        while true {
            let (fresh, finished) = state.withLock { state in
                (index < state.lines.count ? Array(state.lines[index...]) : [], state.finished)
            }
            for line in fresh {
                index += 1
                if predicate(line) {
                    taken.withLock { $0 = index }
                    return line
                }
            }
            taken.withLock { $0 = index }
            if finished || ContinuousClock.now >= deadline { return nil }
            let seen = index
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLock { state -> Bool in
                    // The alarm may have rung between the check above and
                    // here: never wait past the deadline for it again.
                    if state.lines.count > seen || state.finished || ContinuousClock.now >= deadline { return true }
                    state.nextID += 1
                    state.waiters[state.nextID] = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        }
    }

    /// The next line starting with `prefix`, decoded from the JSON after it.
    package func next<T: Decodable>(
        _ type: T.Type, prefix: String = "", within timeout: Duration = .seconds(30),
        where predicate: (T) -> Bool = { _ in true }
    ) async -> T? {
        let line = await next(within: timeout) { line in
            guard line.hasPrefix(prefix), let value = decodeJSON(T.self, from: line.dropFirst(prefix.count)) else { return false }
            return predicate(value)
        }
        return line.flatMap { decodeJSON(T.self, from: $0.dropFirst(prefix.count)) }
    }

    private func wakeAll() {
        let waiters = state.withLock { state in
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }
}

package func decodeJSON<T: Decodable>(_ type: T.Type, from text: some StringProtocol) -> T? {
    try? JSONDecoder().decode(T.self, from: Data(text.utf8))
}

/// `stress --converge`: one writer's view of the scene (`view <json>`).
package struct StressView: Decodable {
    /// `CLOCK_MONOTONIC` nanoseconds when the writer saw this view.
    package let at: Int
    package let generation: UInt64
    package let keys: Int
    package let value: String?
}

/// `probe follow`: one scene as a process holds it.
package struct FollowedScene: Decodable, Equatable {
    package let scene: String
    package let generation: UInt64
    package let values: [String: SceneValue]

    package init(scene: String, generation: UInt64, values: [String: SceneValue]) {
        self.scene = scene
        self.generation = generation
        self.values = values
    }
}

/// One line of `scenes watch --json`.
package struct WatchEvent: Decodable {
    package let event: String
    package let scene: String
    package let key: String?
    package let new: SceneValue?
    package let origin: String?
    package let pid: Int32?
    package let watcher: String?
}

/// What is on disk now, read by a registry of its own that watches nothing
/// in time to matter.
package func onDisk(_ scene: String, root: URL) async throws -> (generation: UInt64, values: [String: SceneValue], recovered: Bool) {
    let registry = try await SceneRegistry(root: root, configuration: .init(
        savePolicy: .onFlush, watcher: .polling(interval: .seconds(3600))))
    defer { registry.abandon() }
    let store = try await registry.store(for: scene)
    return (store.generation, store.snapshot, store.lastQuarantined != nil)
}

/// Runs a `scenes-lab probe` in a fresh process and decodes its JSON line.
package func probe<T: Decodable>(_ type: T.Type, _ arguments: [String]) async throws -> T {
    let result = try await scenes(["probe"] + arguments, root: FileManager.default.temporaryDirectory, program: .lab)
    let line = result.stdout.split(separator: "\n").last.map(String.init) ?? ""
    guard result.status == 0, let value = decodeJSON(T.self, from: line) else {
        throw ProbeFailure(arguments: arguments, stdout: result.stdout, stderr: result.stderr)
    }
    return value
}

package struct ProbeFailure: Error, CustomStringConvertible {
    package let arguments: [String]
    package let stdout: String
    package let stderr: String
    package var description: String { "probe \(arguments) printed \(stdout.debugDescription), stderr \(stderr.debugDescription)" }
}
