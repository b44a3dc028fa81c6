@testable import SceneStore
import Testing

/// The store's state alone: no disk, no threads.
struct StoreStateTests {
    /// A local discard drops the edits made before it was called, not one
    /// made while it waited for the lock: that one is kept, shown and saved.
    @Test func aLocalDiscardKeepsTheEditsMadeAfterItWasCalled() throws {
        let main = try SceneID("main")
        var state = StoreState(savePolicy: .onFlush)
        _ = try state.applyLocal(key: "before", value: .int(1), sceneLimit: 1 << 20, scene: main)
        let calledAt = state.lastEdit
        _ = try state.applyLocal(key: "during", value: .int(2), sceneLimit: 1 << 20, scene: main)
        state.discard(origin: .local, editsUpTo: calledAt)
        #expect(state.values == ["during": .int(2)])
        #expect(Set(state.pending.keys) == ["during"])
    }

    /// Another process's discard keeps every pending edit: it cannot tell
    /// which came first.
    @Test func anExternalDiscardKeepsEveryPendingEdit() throws {
        let main = try SceneID("main")
        var state = StoreState(savePolicy: .onFlush)
        _ = try state.applyLocal(key: "a", value: .int(1), sceneLimit: 1 << 20, scene: main)
        _ = try state.applyLocal(key: "b", value: .int(2), sceneLimit: 1 << 20, scene: main)
        state.discard(origin: .external(writerPID: nil))
        #expect(state.values == ["a": .int(1), "b": .int(2)])
        #expect(Set(state.pending.keys) == ["a", "b"])
    }
}
