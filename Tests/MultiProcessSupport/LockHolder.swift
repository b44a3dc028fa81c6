import Foundation
import SceneStore
#if canImport(Glibc)
import Glibc
#endif

/// Another process holding a lock of a scene root for as long as a test
/// wants: `perl` (in every Debian) takes the range's byte of the root's
/// lock file with `F_OFD_SETLK`, as a registry does, prints its pid and
/// sleeps. Ended by pid (nothing waits for an end of file that a
/// descriptor inherited by a parallel test's child could delay).
package final class LockHolder {
    package let pid: Int32
    private var running = true

    /// Returns once the lock is held.
    package init(_ range: RootLock.Range, root: URL) throws {
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        let output = try cloexecPipe()
        // Started by `spawnChild`, not `Foundation.Process` (see ``ChildReaper``).
        pid = try spawnChild(
            Self.perl, ["-e", Self.script, root.appendingPathComponent(RootLock.fileName).path, String(range.offset)],
            environment: ProcessInfo.processInfo.environment, descriptors: (nil, output.write.fileDescriptor, nil))
        try output.write.close()
        let line = String(decoding: try output.read.readToEnd() ?? Data(), as: UTF8.self)
        guard line == "\(pid)\n" else {
            kill(pid, SIGKILL)
            _ = waitForExit(pid)
            throw LockHolderFailure(description: "the holder printed \(line.debugDescription)")
        }
    }

    /// Scene `scene`'s lock.
    package convenience init(scene: String, root: URL) throws {
        try self.init(.scene(SceneID(scene)), root: root)
    }

    package static var isAvailable: Bool { FileManager.default.isExecutableFile(atPath: perl) }

    /// Stops the holder (it keeps the lock).
    package func stop() { kill(pid, SIGSTOP) }

    /// Lets go of the lock: the holder is killed.
    package func release() {
        guard running else { return }
        running = false
        kill(pid, SIGKILL)
        kill(pid, SIGCONT)
        _ = waitForExit(pid)
    }

    deinit { release() }

    private static let perl = "/usr/bin/perl"
    /// `F_OFD_SETLK` is 37; `struct flock` is type, whence, start, length, pid.
    /// Standard output is closed once the pid is written, so the test reads
    /// to its end.
    private static let script = #"""
        use Fcntl;
        sysopen(my $f, $ARGV[0], O_RDWR | O_CREAT, 0600) or die "open: $!";
        fcntl($f, 37, pack("s s x4 q q i x4", F_WRLCK, 0, $ARGV[1], 1, 0)) or die "lock: $!";
        print "$$\n";
        close(STDOUT);
        sleep 3600;
        """#
}

package struct LockHolderFailure: Error, CustomStringConvertible {
    package let description: String
}
