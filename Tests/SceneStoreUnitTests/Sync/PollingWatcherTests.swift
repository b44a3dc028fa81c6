import Foundation
import Testing
import TestSupport
import SystemPackage
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
    
        /// On a file system with coarse timestamps (ramfs: the kernel's
        /// tick, 4 ms here, as ext4's before Linux 6.13), two saves of the
        /// same size 1 ms apart often keep size and both times equal; when
        /// a scan falls between them, the scan after the second must still
        /// report the file. The handler reads the file at each report, as a
        /// store does: once a marker created after the second save is
        /// reported (scans report in name order, and it sorts after the
        /// file), the file's last reading must be the second save. Before
        /// the fix, 8 of 100 second saves were never seen here.
        // Hang guard: 100 trials took about 1 s here (2 cores); 2 minutes.
        @Test(.enabled(if: getuid() == 0, "mounting a ramfs needs root"), .timeLimit(.minutes(2)))
        func sameSizeSaveWithinOneTimestampTickIsSeen() async throws {
            let base = try TemporaryDirectory("ramfs")
            defer { base.remove() }
            let disk = try TmpfsMount.ramfs(at: base.url.appendingPathComponent("coarse"))
            defer { disk.unmount() }
            let directory = TemporaryDirectory(existing: disk.path)
            let watcher = PollingWatcher(interval: .milliseconds(5))
            let recorder = EventRecorder()
            let readings = Locked<[String: String]>([:])
            let token = try watcher.watch(directory: directory.url) { event in
                if case .changed(let name) = event, name.hasPrefix("a-"),
                   let text = try? String(contentsOfFile: directory.file(name), encoding: .utf8) {
                    readings.withLock { $0[name] = text }
                }
                recorder.handler(event)
            }
            defer { watcher.cancel(token) }

            var withinOneTick = 0
            var missed: [Int] = []
            for trial in 0..<100 {
                let name = "a-\(String(trial).leftPad(3))"
                let path = directory.file(name)
                // The workload, not a wait for anything: each trial starts
                // right after a scan (the marker's); the first save comes
                // 0-4.5 ms after it, so that some scans fall between the saves.
                usleep(UInt32(trial % 10) * 500)
                try Self.overwrite(path, "first  \(trial)")
                let first = try Self.stamp(path)
                // The workload, not a wait for anything: saves 1 ms apart.
                usleep(1000)
                try Self.overwrite(path, "second \(trial)")
                if try Self.stamp(path) == first { withinOneTick += 1 }
                let marker = "m-\(trial)"
                try directory.write(marker)
                #expect(await recorder.wait(for: .changed(name: marker)))
                if readings.withLock({ $0[name] }) != "second \(trial)" { missed.append(trial) }
            }
            #expect(missed.isEmpty, "\(missed.count) of 100 second saves never seen (\(withinOneTick) kept size and times)")
            print("polling on ramfs: \(missed.count) of 100 same-size second saves missed; \(withinOneTick) kept size and times")
        }

        /// Writes `text` over the start of `path` (created if missing), in place.
        static func overwrite(_ path: String, _ text: String) throws {
            let fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
            guard fd >= 0 else { throw SceneStoreError.io(syscall: "open", path: path, errno: Errno(rawValue: errno)) }
            defer { close(fd) }
            let bytes = Array(text.utf8)
            guard pwrite(fd, bytes, bytes.count, 0) == bytes.count else {
                throw SceneStoreError.io(syscall: "pwrite", path: path, errno: Errno(rawValue: errno))
            }
        }

        /// Inode, size, modification and change times of `path`.
        static func stamp(_ path: String) throws -> [Int] {
            var info = stat()
            guard stat(path, &info) == 0 else {
                throw SceneStoreError.io(syscall: "stat", path: path, errno: Errno(rawValue: errno))
            }
            return [Int(info.st_ino), Int(info.st_size), info.st_mtim.tv_sec, info.st_mtim.tv_nsec,
                    info.st_ctim.tv_sec, info.st_ctim.tv_nsec]
        }
    }
}

private extension String {
    func leftPad(_ width: Int) -> String {
        String(repeating: "0", count: max(0, width - count)) + self
    }
}
