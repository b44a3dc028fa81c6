import Foundation
import Logging
import Testing
@testable import SceneStore

/// A primary watcher that always fails with `error`.
private struct FailingWatcher: FileWatcher {
    let error: SceneStoreError
    var kind: WatcherKind { .inotify }

    func watch(directory: URL, handler: @escaping @Sendable (FileWatchEvent) -> Void) throws -> FileWatchToken {
        throw error
    }

    func cancel(_ token: FileWatchToken) {}
}

/// A primary watcher that accepts interests and can later hand them all
/// back, as inotify does when reading its events fails.
private final class GivingUpWatcher: FileWatcher, Sendable {
    private let handlers = Locked<[@Sendable (FileWatchEvent) -> Void]>([])
    var kind: WatcherKind { .inotify }

    func watch(directory: URL, handler: @escaping @Sendable (FileWatchEvent) -> Void) throws -> FileWatchToken {
        handlers.withLock { $0.append(handler) }
        return FileWatchToken(id: 1)
    }

    func cancel(_ token: FileWatchToken) {}

    func giveUp() {
        for handler in handlers.withLock({ $0 }) { handler(.unavailable(reason: "test: inotify failed")) }
    }
}

extension SyncWatcherTests {
    @Suite struct FallbackWatcherTests {
        let logger = Logger(label: "SceneStoreTests.FallbackWatcher")

        @Test func refusedPrimaryDegradesToPolling() async throws {
            let watcher = FallbackWatcher(
                primary: FailingWatcher(error: .watcherUnavailable(reason: "test: watch limit")),
                fallbackInterval: .milliseconds(20),
                logger: logger
            )
            #expect(watcher.kind == .inotify)
            let directory = try TemporaryDirectory()
            defer { directory.remove() }
            let recorder = EventRecorder()
            let token = try watcher.watch(directory: directory.url, handler: recorder.handler)
            defer { watcher.cancel(token) }

            #expect(watcher.kind == .polling(interval: .milliseconds(20)))
            try directory.write("polled.json")
            #expect(await recorder.wait(for: .changed(name: "polled.json")))
        }

        /// inotify that fails hands its interests back: they
        /// move to polling, the handler rescans, and `kind` says polling.
        @Test func interestsHandedBackMoveToPolling() async throws {
            let primary = GivingUpWatcher()
            let watcher = FallbackWatcher(primary: primary, fallbackInterval: .milliseconds(20), logger: logger)
            let directory = try TemporaryDirectory()
            defer { directory.remove() }
            let recorder = EventRecorder()
            let token = try watcher.watch(directory: directory.url, handler: recorder.handler)
            defer { watcher.cancel(token) }
            #expect(watcher.kind == .inotify)

            primary.giveUp()
            #expect(await recorder.wait(for: .rescan))
            #expect(watcher.kind == .polling(interval: .milliseconds(20)))
            try directory.write("after.json")
            #expect(await recorder.wait(for: .changed(name: "after.json")))
        }

        @Test func otherErrorsAreThrownWithoutDegrading() throws {
            let directory = try TemporaryDirectory()
            defer { directory.remove() }
            let watcher = FallbackWatcher(
                primary: FailingWatcher(error: .io(syscall: "inotify_add_watch", path: directory.path, errno: .permissionDenied)),
                logger: logger
            )
            #expect(throws: SceneStoreError.io(syscall: "inotify_add_watch", path: directory.path, errno: .permissionDenied)) {
                _ = try watcher.watch(directory: directory.url) { _ in }
            }
            #expect(watcher.kind == .inotify)
        }

        @Test func defaultFallbackIntervalIs250Milliseconds() throws {
            let watcher = FallbackWatcher(
                primary: FailingWatcher(error: .watcherUnavailable(reason: "test")),
                logger: logger
            )
            let directory = try TemporaryDirectory()
            defer { directory.remove() }
            let token = try watcher.watch(directory: directory.url) { _ in }
            watcher.cancel(token)
            #expect(watcher.kind == .polling(interval: .milliseconds(250)))
        }

        #if os(Linux)
        @Test func workingPrimaryKeepsInotify() async throws {
            let watcher = try #require(makeFileWatcher(.automatic, logger: logger))
            let directory = try TemporaryDirectory()
            defer { directory.remove() }
            let recorder = EventRecorder()
            let token = try watcher.watch(directory: directory.url, handler: recorder.handler)
            defer { watcher.cancel(token) }
            #expect(watcher.kind == .inotify)
            try directory.write("live.json")
            #expect(await recorder.wait(for: .changed(name: "live.json")))
        }
        #endif

        @Test func preferenceSelectsWatcher() {
            #expect(makeFileWatcher(.polling(interval: .seconds(2)), logger: logger)?.kind == .polling(interval: .seconds(2)))
            #if os(Linux)
            #expect(makeFileWatcher(.inotify, logger: logger)?.kind == .inotify)
            #endif
            #expect(makeFileWatcher(.none, logger: logger) == nil)
        }
    }
}
