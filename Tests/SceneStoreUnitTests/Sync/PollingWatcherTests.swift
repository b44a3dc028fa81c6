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
