import ArgumentParser
import Foundation
import SceneStore
import ScenesCLIKit
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

extension Probe {
    /// Opens and closes registries while another thread of the process
    /// creates and closes inotify instances of its own, as an app that uses
    /// inotify for something else does; reports which watchers the
    /// registries got, and the inotify descriptors left once all closed.
    struct InotifyNeighbours: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "inotify-neighbours",
            abstract: "Open/close registries while other code creates inotify instances; print the watchers chosen as JSON.")

        @Option(help: "Registries opened and closed one after another.") var registries = 150

        struct Report: Encodable {
            var probe = "inotify-neighbours"
            var registries: Int
            /// How many registries got each watcher (`WatcherKind`'s description).
            var kinds: [String: Int]
            /// Instances the other thread created meanwhile.
            var neighbourInstances: Int
            /// inotify descriptors open after the last close, the other
            /// thread's closed (at most 5 s after it, for the watcher's
            /// thread to close its own).
            var inotifyFDsAfter: Int
        }

        func validate() throws {
            guard registries >= 1 else { throw ValidationError("--registries must be at least 1") }
        }

        func run() async throws {
            let scratch = try makeTemporaryDirectory("inotify-neighbours")
            defer { try? FileManager.default.removeItem(at: scratch) }
            let neighbour = Neighbour()
            let thread = Thread { neighbour.run() }
            thread.start()
            var kinds: [String: Int] = [:]
            for index in 0..<registries {
                let registry = try await SceneRegistry(
                    root: scratch.appendingPathComponent("r-\(index)/scenes"), configuration: .init(savePolicy: .onFlush))
                kinds[registry.watcherKind?.description ?? "none", default: 0] += 1
                try await registry.close()
            }
            let created = await neighbour.stop()
            // The watcher's thread closes its session after the last close.
            let deadline = ContinuousClock.now + .seconds(5)
            while !ProcessStats.inotifyDescriptors().isEmpty
                    || ProcessStats.threadStatPath(named: WatcherKind.inotifyThreadName) != nil,
                  ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(10))
            }
            emit(try jsonLine(Report(
                registries: registries, kinds: kinds, neighbourInstances: created,
                inotifyFDsAfter: ProcessStats.inotifyDescriptors().count)))
        }

        /// Keeps two inotify instances of its own, closing the older and
        /// creating a new one in a loop, until stopped.
        final class Neighbour: Sendable {
            private struct State {
                var stopping = false
                var created = 0
                var done: CheckedContinuation<Int, Never>?
                var finished = false
            }
            private let state = Mutex(State())

            func run() {
                var open: [Int32] = []
                var created = 0
                while !state.withLock({ $0.stopping }) {
                    let fd = inotify_init1(Int32(IN_CLOEXEC))
                    if fd >= 0 {
                        open.append(fd)
                        created += 1
                    }
                    if open.count > 2 { _ = close(open.removeFirst()) }
                }
                for fd in open { _ = close(fd) }
                let done = state.withLock { state in
                    state.created = created
                    state.finished = true
                    return state.done
                }
                done?.resume(returning: created)
            }

            /// Stops the loop; returns once its instances are closed.
            func stop() async -> Int {
                await withCheckedContinuation { continuation in
                    let finished = state.withLock { state -> Int? in
                        state.stopping = true
                        if state.finished { return state.created }
                        state.done = continuation
                        return nil
                    }
                    if let finished { continuation.resume(returning: finished) }
                }
            }
        }
    }
}
