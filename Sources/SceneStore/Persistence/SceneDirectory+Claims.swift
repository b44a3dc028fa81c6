import Foundation
import SystemPackage

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

    /// A probe costs an `F_OFD_GETLK` and a `statx` of the quit mark.
    func claimStates(_ ids: [SceneID]) async -> [SceneID: ClaimState] {
        await onOwnThread {
            Dictionary(ids.map { ($0, claimState($0)) }, uniquingKeysWith: { first, _ in first })
        }
    }

    /// Removes the quit mark of a scene closed for good (the caller holds
    /// the claim or nobody does).
    func removeClaim(_ id: SceneID) async {
        await onOwnThread { try? system.unlink(claimPath(id)) }
    }

    /// Whether some open file description, in this process or another,
    /// holds the claim on scene `id` (one `F_OFD_GETLK`), and if not,
    /// whether its holder marked its quit.
    private func claimState(_ id: SceneID) -> ClaimState {
        // Not knowing counts as held: a window is never offered twice.
        guard locks.isHeld(.claim(id)) == false else { return .held }
        let mark = try? system.status(claimPath(id), followingLinks: false)
        return mark?.kind == .regular && mark?.size ?? 0 > 0 ? .quit : .free
    }

    /// Empties the window's quit mark (``FileClaim/markQuit()``): it is
    /// open again, and a crash from now on reads as one.
    private func clearQuitMark(_ id: SceneID) throws(SceneStoreError) {
        let path = claimPath(id)
        switch OpenFile.open(path, .write, system: system) {
        case .success(let file):
            guard try file.status().size > 0 else { return }
            try file.resize(to: 0)
            try file.syncData()
        case .failure(.noSuchFileOrDirectory): return
        case .failure(let errno): throw .io(syscall: "open", path: path, errno: errno)
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

    /// Lets go of the byte on the root's queue.
    func release() async {
        await directory.onOwnThread { abandon() }
    }

    /// Writes `quit` into the window's `.<id>~claim` file (never through a
    /// symbolic link) and makes it durable, on the root's queue.
    func markQuit() async -> Bool {
        await directory.onOwnThread {
            guard held.withLock({ $0 != nil }) else { return false }
            let path = directory.claimPath(id)
            guard case .success(let file) = OpenFile.open(path, .writeCreating, system: directory.system) else { return false }
            return (try? file.write(Array("quit\n".utf8))) != nil && (try? file.syncData()) != nil
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
