import Foundation
import ScenesCLIKit
#if canImport(Glibc)
import Glibc
#endif

/// Counters of this process, read from /proc/self (for the hidden `probe`
/// and `bench` commands).
enum ProcessStats {
    /// What a leak check compares.
    struct Counts: Codable, Equatable {
        var fds: Int
        var threads: Int
        /// Descriptors that are inotify instances.
        var inotifyFDs: Int
        /// `inotify wd:` lines in the fdinfo of those descriptors.
        var inotifyWatches: Int
        /// What each descriptor is (its /proc/self/fd link), sorted: to
        /// tell what leaked.
        var fdTargets: [String]
        /// The threads' names, sorted.
        var threadNames: [String]
    }

    static func counts() -> Counts {
        let inotify = inotifyDescriptors()
        let fds = entries(of: "/proc/self/fd")
        let threads = entries(of: "/proc/self/task")
        return Counts(
            fds: fds.count,
            threads: threads.count,
            inotifyFDs: inotify.count,
            inotifyWatches: inotify.reduce(0) { $0 + watchCount(ofInotifyFD: $1) },
            fdTargets: fds.map { name in
                (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(name)")) ?? "?"
            }.sorted(),
            threadNames: threads.map { task in
                ((try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8)) ?? "?")
                    .trimmingCharacters(in: .whitespacesAndNewlines)
            }.sorted())
    }

    /// Descriptors whose /proc/self/fd link reads `anon_inode:inotify`.
    static func inotifyDescriptors() -> [Int32] {
        entries(of: "/proc/self/fd").compactMap { name in
            guard let fd = Int32(name),
                  (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(name)")) == "anon_inode:inotify"
            else { return nil }
            return fd
        }
    }

    /// The watches of one inotify descriptor: its fdinfo has one
    /// `inotify wd:` line per watch.
    static func watchCount(ofInotifyFD fd: Int32) -> Int {
        guard let info = try? String(contentsOfFile: "/proc/self/fdinfo/\(fd)", encoding: .utf8) else { return 0 }
        return info.split(separator: "\n").filter { $0.hasPrefix("inotify wd:") }.count
    }

    /// utime + stime, in seconds, from a /proc `stat` file (the process by
    /// default, or one thread's `/proc/self/task/<tid>/stat`).
    static func cpuSeconds(statPath: String = "/proc/self/stat") -> Double? {
        guard let text = try? String(contentsOfFile: statPath, encoding: .utf8),
              let close = text.lastIndex(of: ")") else { return nil }
        // After "(comm)" the state is field 3; utime and stime are fields 14 and 15.
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// The `stat` file of the first thread whose name starts with `prefix`.
    static func threadStatPath(named prefix: String) -> String? {
        entries(of: "/proc/self/task").lazy.map { "/proc/self/task/\($0)" }.first { task in
            ((try? String(contentsOfFile: "\(task)/comm", encoding: .utf8)) ?? "").hasPrefix(prefix)
        }.map { "\($0)/stat" }
    }

    private static func entries(of directory: String) -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
    }
}

/// `CLOCK_MONOTONIC` in nanoseconds: one clock for every process of the
/// machine, so a timestamp written by one process can be subtracted from
/// the time another reads it.
func monotonicNanoseconds() -> Int {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Int(now.tv_sec) * 1_000_000_000 + Int(now.tv_nsec)
}

/// A fresh directory from `mkdtemp` under `parent` (default: the temporary
/// directory).
func makeTemporaryDirectory(_ label: String, in parent: String? = nil) throws -> URL {
    let base = parent ?? FileManager.default.temporaryDirectory.standardizedFileURL.path
    var template = Array("\(base)/scenes-\(label)-XXXXXX".utf8CString)
    let made = template.withUnsafeMutableBufferPointer { buffer -> String? in
        guard let base = buffer.baseAddress, let result = mkdtemp(base) else { return nil }
        return String(cString: result)
    }
    guard let made else { throw failure("mkdtemp in \(base) failed: errno \(errno)") }
    return URL(fileURLWithPath: made, isDirectory: true)
}
