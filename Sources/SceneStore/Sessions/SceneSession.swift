import Foundation

/// One window's scene as the registry's window lifecycle knows it: when it
/// was made and last active, its title, and whether a live process has it
/// open or it waits to be restored.
///
/// Made by ``SceneRegistry/newScene(title:)`` and
/// ``SceneRegistry/reopen(_:)``; listed by ``SceneRegistry/sessions()``
/// and ``SceneRegistry/scenesToRestore()``.
public struct SceneSession: Sendable, Hashable {
    /// The window's scene.
    public let id: SceneID
    /// When ``SceneRegistry/newScene(title:)`` made it.
    public var created: Date
    /// When a process last claimed it or let go of it.
    public var lastActive: Date
    /// What the app called the window (``SceneRegistry/setTitle(_:for:)``).
    public var title: String?
    /// Whether a live process has it open, or why it can be restored.
    public var state: State

    /// Whether a live process holds the scene, or why it can be restored.
    public enum State: Sendable, Hashable {
        /// A live process holds it (by a lock the kernel lets go of when
        /// the process ends); `pid` is the one that claimed it, as shown.
        case open(pid: Int32?)
        /// Nobody holds it: it is to be reopened at launch, for `reason`.
        case restorable(SceneRestoreReason)
    }

    package init(id: SceneID, created: Date, lastActive: Date, title: String?, state: State) {
        self.id = id
        self.created = created
        self.lastActive = lastActive
        self.title = title
        self.state = state
    }
}

/// Why a scene is to be restored, in the sense of GTK's `GtkRestoreReason`.
public enum SceneRestoreReason: Sendable, Hashable {
    /// The app quit cleanly with the window open (closing the registry).
    case relaunch
    /// The process that had it open died without quitting (a crash, a
    /// SIGKILL): its last saved state is what there is.
    case recover
}
