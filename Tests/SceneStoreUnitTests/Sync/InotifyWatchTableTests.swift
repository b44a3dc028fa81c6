#if os(Linux)
import Foundation
import SystemPackage
import Testing
@testable import SceneStore

/// The wd table against a kernel of its own: which paths exist, which are
/// watched, and whether the watch limit is used up.
@Suite struct InotifyWatchTableTests {
    /// Paths that exist, and the wd of each watched one (one per path: no
    /// two paths share an inode here).
    final class FakeKernel: Sendable {
        private struct State {
            var existing: Set<String> = []
            var watches: [String: Int32] = [:]
            var nextWD: Int32 = 1
            var full = false
        }
        private let state = Locked(State())

        init(_ existing: Set<String>) { state.withLock { $0.existing = existing } }

        func exists(_ path: String, _ exists: Bool) {
            state.withLock { state in
                if exists { state.existing.insert(path) } else {
                    state.existing.remove(path)
                    state.watches[path] = nil
                }
            }
        }

        /// From now on no new watch can be added (a watch on a path already
        /// watched is only updated, as the kernel does).
        func fill() { state.withLock { $0.full = true } }

        func wd(of path: String) -> Int32? { state.withLock { $0.watches[path] } }

        func addWatch(_ path: String, _ role: InotifyWatchRole) -> Result<Int32, SceneStoreError> {
            state.withLock { state in
                guard state.existing.contains(path) else {
                    return .failure(.io(syscall: "inotify_add_watch", path: path, errno: .noSuchFileOrDirectory))
                }
                if let wd = state.watches[path] { return .success(wd) }
                guard !state.full else { return .failure(.watcherUnavailable(reason: "inotify watch limit reached")) }
                defer { state.nextWD += 1 }
                state.watches[path] = state.nextWD
                return .success(state.nextWD)
            }
        }

        func removeWatch(_ wd: Int32) {
            state.withLock { state in state.watches = state.watches.filter { $0.value != wd } }
        }
    }

    /// Moved away while the watch limit is used up, then created again:
    /// the directory cannot be watched again, and its interest is handed
    /// back (`.unavailable`) for another watcher to serve, not left
    /// unarmed in silence.
    @Test func aDirectoryThatCannotBeWatchedAgainIsHandedBack() throws {
        let kernel = FakeKernel(["/", "/r", "/r/scenes"])
        var table = InotifyWatchTable(
            addWatch: { kernel.addWatch($0, $1) }, removeWatch: { kernel.removeWatch($0) })
        try table.add(token: 1, directory: "/r/scenes") { _ in }
        let directoryWD = try #require(kernel.wd(of: "/r/scenes"))

        kernel.fill()
        kernel.exists("/r/scenes", false)
        var events = table.handle(InotifyEventRecord(wd: directoryWD, name: nil, losesTarget: true)).map(\.event)
        let parentWD = kernel.wd(of: "/r")
        #expect(parentWD != nil, "the parent, watched before the limit was reached, would see the directory come back")

        kernel.exists("/r/scenes", true)
        if let parentWD {
            events += table.handle(InotifyEventRecord(wd: parentWD, name: "scenes", addsSubdirectory: true)).map(\.event)
        }
        #expect(events.contains { if case .unavailable = $0 { true } else { false } }, "\(events)")
    }
}
#endif
