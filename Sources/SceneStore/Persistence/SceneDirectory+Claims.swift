import Foundation
import SystemPackage
#if canImport(Glibc)
import Glibc
#endif

/// The file root's claims on windows: a claim is the window's byte of the
/// root's lock file (``RootLock``), taken without waiting and held for the
/// window's life. Whether a claim is held is asked with `F_OFD_GETLK`,
/// never by taking it (a launch that probed by taking could make another
/// launch's claim fail). A quit that cannot change the windows' records
/// writes `quit` into the window's `.<id>~claim` file
/// (``FileClaim/markQuit()``), read as a quit while nobody holds the
/// window and emptied by the next claim. Every call runs on the root's
/// own queue (``onOwnThread(_:)``), never on the caller's thread.
extension SceneDirectory: WindowClaims {
    func claim(_ id: SceneID) async throws(SceneStoreError) -> (any SceneClaim)? {
        try await onOwnThread { () throws(SceneStoreError) in try claimNow(id) }
    }

    private func claimNow(_ id: SceneID) throws(SceneStoreError) -> (any SceneClaim)? {
        guard let held = try lockIfFree(.claim(id)) else { return nil }
        do {
            try clearQuitMark(id)
        } catch {
            held.unlock()
            throw error
        }
        return FileClaim(held, directory: self, id: id)
    }

    /// A probe costs an `F_OFD_GETLK` and an `lstat` of the quit mark.
    func claimStates(_ ids: [SceneID]) async -> [SceneID: ClaimState] {
        await onOwnThread {
            Dictionary(ids.map { ($0, claimState($0)) }, uniquingKeysWith: { first, _ in first })
        }
    }

    /// Removes the quit mark of a scene closed for good (the caller holds
    /// the claim or nobody does).
    func removeClaim(_ id: SceneID) async {
        await onOwnThread { _ = unlink(claimPath(id)) }
    }

    /// Whether some open file description, in this process or another,
    /// holds the claim on scene `id` (one `F_OFD_GETLK`), and if not,
    /// whether its holder marked its quit.
    private func claimState(_ id: SceneID) -> ClaimState {
        // Not knowing counts as held: a window is never offered twice.
        guard locks.isHeld(.claim(id)) == false else { return .held }
        var info = stat()
        let path = claimPath(id)
        let marked = path.withCString { lstat($0, &info) } == 0 && info.st_mode & S_IFMT == S_IFREG && info.st_size > 0
        return marked ? .quit : .free
    }

    /// Empties the window's quit mark (``FileClaim/markQuit()``): it is
    /// open again, and a crash from now on reads as one.
    private func clearQuitMark(_ id: SceneID) throws(SceneStoreError) {
        let path = claimPath(id)
        switch Descriptor.open(path, O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC) {
        case .success(let file):
            var info = stat()
            try syscall("fstat", path: path) { fstat(file.raw, &info) }
            guard info.st_size > 0 else { return }
            try syscall("ftruncate", path: path) { ftruncate(file.raw, 0) }
            try syscall("fdatasync", path: path) { fdatasync(file.raw) }
        case .failure(.io(_, _, .noSuchFileOrDirectory)): return
        case .failure(let error): throw error
        }
    }
}

/// A scene's claim: its byte of the root's lock file, held until
/// ``release()``.
private final class FileClaim: SceneClaim, Sendable {
    private let held: Locked<RootLock.Held?>
    private let directory: SceneDirectory
    private let id: SceneID

    init(_ held: RootLock.Held, directory: SceneDirectory, id: SceneID) {
        self.held = Locked(held)
        self.directory = directory
        self.id = id
    }

    func release() {
        abandon()
    }

    /// Writes `quit` into the window's `.<id>~claim` file (never through a
    /// symbolic link) and makes it durable, on the root's queue.
    func markQuit() async -> Bool {
        await directory.onOwnThread {
            guard held.withLock({ $0 != nil }) else { return false }
            let path = directory.claimPath(id)
            guard case .success(let file) = Descriptor.open(path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, mode: 0o600)
            else { return false }
            let mark = Array("quit\n".utf8)
            return pwrite(file.raw, mark, mark.count, 0) == mark.count && fdatasync(file.raw) == 0
                && (try? directory.syncDirectory()) != nil
        }
    }

    func abandon() {
        held.withLock { held in
            held?.unlock()
            held = nil
        }
    }

    deinit { abandon() }
}
