import Foundation
import Testing

/// A small tmpfs mounted for one test (mounting needs root, which CI has):
/// a real full disk, or a file system to remount read-only.
struct TmpfsMount {
    let path: URL

    /// Mounts a tmpfs of `size` (as mount's `size=` takes it) at `path`.
    init(at path: URL, size: String) throws {
        self.path = path
        try FileManager.default.createDirectory(at: path, withIntermediateDirectories: true)
        #expect(try Self.run("/bin/mount", "-t", "tmpfs", "-o", "size=\(size)", "tmpfs", path.path) == 0)
    }

    /// Remounts it read-only or read-write; whether mount succeeded.
    func remount(readOnly: Bool) throws -> Bool {
        try Self.run("/bin/mount", "-o", readOnly ? "remount,ro" : "remount,rw", path.path) == 0
    }

    /// Unmounts it, lazily (busy descriptors do not keep it).
    func unmount() {
        _ = try? Self.run("/bin/umount", "-l", path.path)
    }

    private static func run(_ arguments: String...) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: arguments[0])
        process.arguments = Array(arguments.dropFirst())
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }
}
