import Foundation
import Testing
@testable import SceneStore

#if canImport(Glibc)
import Glibc
#endif

extension SyncWatcherTests {
    @Suite struct PollingWatcherTests {
        let watcher = PollingWatcher(interval: .milliseconds(20))

        @Test func reportsPollingKind() {
            #expect(watcher.kind == .polling(interval: .milliseconds(20)))
        }

        @Test func renameIntoDirectoryReportsChanged() async throws {
            let directory = try TemporaryDirectory()
            let outside = try TemporaryDirectory("outside")
            defer { directory.remove(); outside.remove() }
            try outside.write("scene.json")
            let recorder = EventRecorder()
            let token = try watcher.watch(directory: directory.url, handler: recorder.handler)
            defer { watcher.cancel(token) }

            #expect(rename(outside.file("scene.json"), directory.file("scene.json")) == 0)
            #expect(await recorder.wait(for: .changed(name: "scene.json")))
        }

        @Test func writeReportsChanged() async throws {
            let directory = try TemporaryDirectory()
            defer { directory.remove() }
            try directory.write("main.json", "{}")
            let recorder = EventRecorder()
            let token = try watcher.watch(directory: directory.url, handler: recorder.handler)
            defer { watcher.cancel(token) }

            try directory.write("main.json", "{\"a\": 1}")
            #expect(await recorder.wait(for: .changed(name: "main.json")))
        }

        @Test func deleteReportsChanged() async throws {
            let directory = try TemporaryDirectory()
            defer { directory.remove() }
            try directory.write("gone.json")
            let recorder = EventRecorder()
            let token = try watcher.watch(directory: directory.url, handler: recorder.handler)
            defer { watcher.cancel(token) }

            #expect(unlink(directory.file("gone.json")) == 0)
            #expect(await recorder.wait(for: .changed(name: "gone.json")))
        }

        @Test func moveAwayReportsChanged() async throws {
            let directory = try TemporaryDirectory()
            let outside = try TemporaryDirectory("outside")
            defer { directory.remove(); outside.remove() }
            try directory.write("leaving.json")
            let recorder = EventRecorder()
            let token = try watcher.watch(directory: directory.url, handler: recorder.handler)
            defer { watcher.cancel(token) }

            #expect(rename(directory.file("leaving.json"), outside.file("leaving.json")) == 0)
            #expect(await recorder.wait(for: .changed(name: "leaving.json")))
        }

        @Test func unchangedDirectoryReportsNothing() async throws {
            let directory = try TemporaryDirectory()
            defer { directory.remove() }
            try directory.write("still.json")
            let quiet = EventRecorder()
            let quietToken = try watcher.watch(directory: directory.url, handler: quiet.handler)
            defer { watcher.cancel(quietToken) }
            // A second directory that does change, to know several scans happened.
            let busy = try TemporaryDirectory("busy")
            defer { busy.remove() }
            let busyEvents = EventRecorder()
            let busyToken = try watcher.watch(directory: busy.url, handler: busyEvents.handler)
            defer { watcher.cancel(busyToken) }
            for index in 0..<3 {
                try busy.write("tick-\(index)")
                #expect(await busyEvents.wait(for: .changed(name: "tick-\(index)")))
            }
            #expect(quiet.events.isEmpty)
        }

        @Test func cancelStopsDelivery() async throws {
            let directory = try TemporaryDirectory()
            defer { directory.remove() }
            let cancelled = EventRecorder()
            let cancelledToken = try watcher.watch(directory: directory.url, handler: cancelled.handler)
            let sentinel = EventRecorder()
            let sentinelToken = try watcher.watch(directory: directory.url, handler: sentinel.handler)
            defer { watcher.cancel(sentinelToken) }

            watcher.cancel(cancelledToken)
            watcher.cancel(cancelledToken)  // idempotent
            try directory.write("after-cancel")
            #expect(await sentinel.wait(for: .changed(name: "after-cancel")))
            #expect(cancelled.events.isEmpty)
        }

        @Test func missingDirectoryThrowsIOError() throws {
            let directory = try TemporaryDirectory()
            directory.remove()
            #expect {
                _ = try watcher.watch(directory: directory.url) { _ in }
            } throws: { error in
                guard case SceneStoreError.io(_, _, let code) = error else { return false }
                return code == ENOENT
            }
        }

        @Test func vanishingDirectoryReportsRescanAndEntries() async throws {
            let root = try TemporaryDirectory("root")
            defer { root.remove() }
            let scenes = TemporaryDirectory(existing: root.url.appendingPathComponent("scenes"))
            try FileManager.default.createDirectory(at: scenes.url, withIntermediateDirectories: true)
            try scenes.write("a.json")
            let recorder = EventRecorder()
            let token = try watcher.watch(directory: scenes.url, handler: recorder.handler)
            defer { watcher.cancel(token) }

            scenes.remove()
            #expect(await recorder.wait(for: .rescan))
            #expect(await recorder.wait(for: .changed(name: "a.json")))
        }
    }
}
