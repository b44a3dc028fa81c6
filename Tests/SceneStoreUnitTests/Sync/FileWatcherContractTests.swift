import Foundation
import Testing
@testable import SceneStore

#if canImport(Glibc)
import Glibc
#endif

/// The watcher behind the `FileWatcher` seam.
enum WatcherUnderTest: String, CaseIterable, CustomTestStringConvertible {
    #if os(Linux)
    case inotify
    #endif

    var watcher: any FileWatcher {
        switch self {
        #if os(Linux)
        case .inotify: InotifyWatcher.shared
        #endif
        }
    }

    var testDescription: String { rawValue }
}

extension SyncWatcherTests {
    /// What every `FileWatcher` promises, checked on each implementation.
    @Suite struct FileWatcherContractTests {
        @Test(arguments: WatcherUnderTest.allCases)
        func renameIntoDirectoryReportsChanged(_ kind: WatcherUnderTest) async throws {
            let watcher = kind.watcher
            let directory = try TemporaryDirectory()
            let outside = try TemporaryDirectory("outside")
            defer { directory.remove(); outside.remove() }
            try outside.write("scene.scene")
            let recorder = EventRecorder()
            let token = try watcher.watch(directory: directory.url, handler: recorder.handler)
            defer { watcher.cancel(token) }

            #expect(rename(outside.file("scene.scene"), directory.file("scene.scene")) == 0)
            #expect(await recorder.wait(for: .changed(name: "scene.scene")))
        }

        @Test(arguments: WatcherUnderTest.allCases)
        func writeReportsChanged(_ kind: WatcherUnderTest) async throws {
            let watcher = kind.watcher
            let directory = try TemporaryDirectory()
            defer { directory.remove() }
            try directory.write("main.scene", "{}")
            let recorder = EventRecorder()
            let token = try watcher.watch(directory: directory.url, handler: recorder.handler)
            defer { watcher.cancel(token) }

            try directory.write("main.scene", "{\"a\": 1}")
            #expect(await recorder.wait(for: .changed(name: "main.scene")))
        }

        @Test(arguments: WatcherUnderTest.allCases)
        func deleteAndMoveAwayReportChanged(_ kind: WatcherUnderTest) async throws {
            let watcher = kind.watcher
            let directory = try TemporaryDirectory()
            let outside = try TemporaryDirectory("outside")
            defer { directory.remove(); outside.remove() }
            try directory.write("gone.scene")
            try directory.write("leaving.scene")
            let recorder = EventRecorder()
            let token = try watcher.watch(directory: directory.url, handler: recorder.handler)
            defer { watcher.cancel(token) }

            #expect(unlink(directory.file("gone.scene")) == 0)
            #expect(await recorder.wait(for: .changed(name: "gone.scene")))
            #expect(rename(directory.file("leaving.scene"), outside.file("leaving.scene")) == 0)
            #expect(await recorder.wait(for: .changed(name: "leaving.scene")))
        }

        @Test(arguments: WatcherUnderTest.allCases)
        func cancelStopsDelivery(_ kind: WatcherUnderTest) async throws {
            let watcher = kind.watcher
            let directory = try TemporaryDirectory()
            defer { directory.remove() }
            let cancelled = EventRecorder()
            let cancelledToken = try watcher.watch(directory: directory.url, handler: cancelled.handler)
            // Registered after, so it is called after `cancelled` for the same event.
            let sentinel = EventRecorder()
            let sentinelToken = try watcher.watch(directory: directory.url, handler: sentinel.handler)
            defer { watcher.cancel(sentinelToken) }

            watcher.cancel(cancelledToken)
            watcher.cancel(cancelledToken)  // idempotent
            try directory.write("after-cancel")
            #expect(await sentinel.wait(for: .changed(name: "after-cancel")))
            #expect(cancelled.events.isEmpty)
        }

        @Test(arguments: WatcherUnderTest.allCases)
        func missingDirectoryThrowsIOError(_ kind: WatcherUnderTest) throws {
            let watcher = kind.watcher
            let directory = try TemporaryDirectory()
            directory.remove()
            #expect {
                _ = try watcher.watch(directory: directory.url) { _ in }
            } throws: { error in
                guard case SceneStoreError.io(_, _, let code) = error else { return false }
                return code.rawValue == ENOENT
            }
        }
    }
}
