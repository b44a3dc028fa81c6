internal import CSceneSupport
#if canImport(Glibc)
import Glibc
#endif

/// A read-write registry's mark on its root while it is open: a shared open
/// file description lock (`F_OFD_SETLK`, `F_RDLCK`) on the root directory,
/// taken before the registry reads any scene and dropped when it closes
/// (by the kernel when its process dies). A discard asks whether another
/// registry, in this process or another, has the root open
/// (``isAlone``); when none has, no other store holds the scene, and its
/// tombstone and lock file go with it
/// (``SceneDirectory/removeSideFilesIfAlone(_:)``).
final class RootMark: Sendable {
    /// The marked descriptor of the root, -1 once released.
    private let fd: Locked<Int32>

    /// Marks `root`; `nil` when it cannot be opened or the file system
    /// refuses the lock (a discard on that file system is then never alone).
    init?(root: String) {
        guard let root = try? Descriptor(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC), scenestore_ofd_mark(root.raw) == 0
        else { return nil }
        fd = Locked(root.release())
    }

    /// Whether no other open file description marks the root: one
    /// `F_OFD_GETLK` for a write lock, which this mark never conflicts with.
    var isAlone: Bool {
        fd.withLock { $0 >= 0 && scenestore_ofd_is_locked($0) == 0 }
    }

    /// Drops the mark (the registry closed).
    func release() {
        fd.withLock { fd in
            guard fd >= 0 else { return }
            scenestore_ofd_unlock(fd)
            close(fd)
            fd = -1
        }
    }

    deinit { release() }
}
