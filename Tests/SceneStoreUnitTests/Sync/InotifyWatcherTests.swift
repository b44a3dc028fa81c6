#if os(Linux)
import Foundation
import Testing
@testable import SceneStore

#if canImport(Glibc)
import Glibc
#endif

extension SyncWatcherTests {
    @Suite struct InotifyWatcherTests {
        let watcher = InotifyWatcher.shared

        @Test func twoHandlersOnOneDirectoryAreIndependent() async throws {
            let directory = try TemporaryDirectory()
            defer { directory.remove() }
            let first = EventRecorder()
            let second = EventRecorder()
            let firstToken = try watcher.watch(directory: directory.url, handler: first.handler)
            let secondToken = try watcher.watch(directory: directory.url, handler: second.handler)
            defer { watcher.cancel(secondToken) }

            try directory.write("a")
            #expect(await first.wait(for: .changed(name: "a")))
            #expect(await second.wait(for: .changed(name: "a")))

            watcher.cancel(firstToken)
            try directory.write("b")
            #expect(await second.wait(for: .changed(name: "b")))
            #expect(!first.events.contains(.changed(name: "b")))
        }

        @Test func handlerCanCancelItselfAndWatchAgain() async throws {
            let directory = try TemporaryDirectory()
            defer { directory.remove() }
            let watcher = self.watcher
            let own = EventRecorder()
            let later = EventRecorder()
            let tokens = Locked<(own: FileWatchToken?, added: FileWatchToken?)>((nil, nil))
            let ownToken = try watcher.watch(directory: directory.url) { event in
                // Runs on the owner thread: both calls are handled in place.
                if let token = tokens.withLock({ $0.own }) {
                    watcher.cancel(token)
                    let added = try? watcher.watch(directory: directory.url, handler: later.handler)
                    tokens.withLock { $0.added = added }
                }
                own.record(event)
            }
            tokens.withLock { $0.own = ownToken }

            try directory.write("first")
            #expect(await own.wait(for: .changed(name: "first")))
            try directory.write("second")
            #expect(await later.wait(for: .changed(name: "second")))
            #expect(own.events == [.changed(name: "first")])
            if let added = tokens.withLock({ $0.added }) { watcher.cancel(added) }
        }

        @Test func deletedAndRecreatedDirectoryIsWatchedAgain() async throws {
            let root = try TemporaryDirectory("root")
            defer { root.remove() }
            let scenes = root.url.appendingPathComponent("scenes/nested")
            try FileManager.default.createDirectory(at: scenes, withIntermediateDirectories: true)
            let recorder = EventRecorder()
            let token = try watcher.watch(directory: scenes, handler: recorder.handler)
            defer { watcher.cancel(token) }

            for cycle in 0..<5 {
                let rescans = recorder.events.filter { $0 == .rescan }.count
                try FileManager.default.removeItem(at: root.url.appendingPathComponent("scenes"))
                #expect(await recorder.wait(for: .rescan, count: rescans + 1))
                // Waits for the ancestor; re-created, the directory is watched again.
                try FileManager.default.createDirectory(at: scenes, withIntermediateDirectories: true)
                #expect(await recorder.wait(for: .rescan, count: rescans + 2))
                try TemporaryDirectory(existing: scenes).write("back-\(cycle).scene")
                #expect(await recorder.wait(for: .changed(name: "back-\(cycle).scene")))
            }
        }

        /// A registry holds its root open (its mark): while any descriptor
        /// holds a deleted directory, the kernel reports no `IN_DELETE_SELF`
        /// for it, so the watch would stay on the dead inode. The parent's
        /// `IN_DELETE` of its name says it, at once.
        @Test func deletedDirectoryHeldOpenIsWatchedAgain() async throws {
            let root = try TemporaryDirectory("root")
            defer { root.remove() }
            let scenes = root.url.appendingPathComponent("scenes")
            try FileManager.default.createDirectory(at: scenes, withIntermediateDirectories: true)
            let recorder = EventRecorder()
            let token = try watcher.watch(directory: scenes, handler: recorder.handler)
            defer { watcher.cancel(token) }

            for cycle in 0..<10 {
                let held = open(scenes.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
                #expect(held >= 0)
                defer { close(held) }
                let rescans = recorder.events.filter { $0 == .rescan }.count
                try FileManager.default.removeItem(at: scenes)
                let heard = await recorder.wait(for: .rescan, count: rescans + 1, timeout: .seconds(10))
                #expect(heard, "cycle \(cycle): the deletion of a directory held open was not noticed")
                guard heard else { return }
                try FileManager.default.createDirectory(at: scenes, withIntermediateDirectories: true)
                #expect(await recorder.wait(for: .rescan, count: rescans + 2))
                try TemporaryDirectory(existing: scenes).write("back-\(cycle).scene")
                #expect(await recorder.wait(for: .changed(name: "back-\(cycle).scene")))
            }
        }

        @Test func watchReturnsQuicklyWhileOwnerThreadWaits() async throws {
            let anchor = try TemporaryDirectory("anchor")
            defer { anchor.remove() }
            let anchorEvents = EventRecorder()
            let anchorToken = try watcher.watch(directory: anchor.url, handler: anchorEvents.handler)
            defer { watcher.cancel(anchorToken) }
            // One round trip so the owner thread is certainly back in next_event.
            try anchor.write("ping")
            #expect(await anchorEvents.wait(for: .changed(name: "ping")))

            var latencies: [Duration] = []
            for index in 0..<50 {
                let directory = try TemporaryDirectory("latency")
                defer { directory.remove() }
                let recorder = EventRecorder()
                let start = ContinuousClock.now
                let token = try watcher.watch(directory: directory.url, handler: recorder.handler)
                latencies.append(ContinuousClock.now - start)
                try directory.write("file-\(index)")
                #expect(await recorder.wait(for: .changed(name: "file-\(index)")))
                watcher.cancel(token)
            }
            let sorted = latencies.sorted()
            print("watch() latency while the owner waits: median \(sorted[sorted.count / 2]), max \(sorted[sorted.count - 1])")
        }

        @Test func inotifyDescriptorIsCloseOnExecAndWakeFileIsUnlinked() throws {
            let directory = try TemporaryDirectory()
            defer { directory.remove() }
            let token = try watcher.watch(directory: directory.url) { _ in }
            defer { watcher.cancel(token) }

            let descriptors = ProcessProbe.descriptors(linkingTo: "anon_inode:inotify")
            #expect(!descriptors.isEmpty)
            for fd in descriptors {
                #expect(fcntl(fd, F_GETFD) & FD_CLOEXEC != 0, "inotify fd \(fd) lacks FD_CLOEXEC")
            }
            let temporary = FileManager.default.temporaryDirectory.path
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: temporary)
                .filter { $0.hasPrefix("scenestore-wake-\(getpid())-") }
            #expect(leftovers.isEmpty)
        }
    }
}

#endif

#if os(Linux)
/// The owner thread delivers a batch of queued events with each entry's
/// repeated `.changed` left out: a save's rename is one re-read, not two.
@Suite struct InotifyBatchTests {
    @Test func aBatchKeepsTheFirstChangeOfEachEntryAndEveryOtherEvent() {
        let handler: InotifyHandler = { _ in }
        let batch: [(UInt64, FileWatchEvent)] = [
            (1, .changed(name: "main.scene")), (1, .changed(name: "main.scene")), (2, .changed(name: "main.scene")),
            (1, .rescan), (1, .changed(name: "other.scene")), (1, .changed(name: "main.scene")), (1, .rescan),
        ]
        let kept = InotifyWatcher.firstOfEach(batch.map { InotifyDelivery(token: $0, handler: handler, event: $1) })
        #expect(kept.map(\.token) == [1, 2, 1, 1, 1])
        #expect(kept.map(\.event) == [
            .changed(name: "main.scene"), .changed(name: "main.scene"), .rescan, .changed(name: "other.scene"), .rescan,
        ])
    }
}
#endif
