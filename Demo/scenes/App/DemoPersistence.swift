import Foundation
import SceneNavigation
import SceneStore

/// Keeps a ``DemoState`` in a scene: the tab as a `String`, each stack with
/// its history as `Data` through a ``PathBinding``, the link selections as
/// JSON `Data`.
///
/// Stacks are committed as edits of what the scene holds on disk, under
/// the scene lock (``PathBinding/commit(_:from:)``), never by replacing
/// it: an element another window pushed at the same moment, or one a newer
/// demo stored that this one cannot show, stays in the scene.
struct DemoPersistence: Sendable {
    let store: SceneStore
    let catalog: LibraryCatalog
    private let mixed: PathBinding<NavigationHistory<ScenePath>>
    private let books: PathBinding<NavigationHistory<[Book]>>
    private let library: PathBinding<NavigationHistory<[Selection]>>
    /// The Library stack as stored, items removed from the catalog included.
    private let libraryAsStored: PathBinding<NavigationHistory<[Selection]>>

    init(store: SceneStore, catalog: LibraryCatalog) {
        self.store = store
        self.catalog = catalog
        mixed = PathBinding(store: store, key: DemoKeys.mixedPath, codec: .history(.scenePath(types: MixedTab.types)))
        books = PathBinding(store: store, key: DemoKeys.booksPath, codec: .history(.stack(of: Book.self)))
        library = PathBinding(store: store, key: DemoKeys.libraryPath, codec: LibraryTab.codec(for: catalog))
        libraryAsStored = PathBinding(
            store: store, key: DemoKeys.libraryPath, codec: .history(.references(to: Selection.self) { $0 }))
    }

    /// The state the scene holds now, and what had to be left out of it
    /// (Library items removed from the catalog, elements that no longer
    /// decode), one description each.
    func load() -> (state: DemoState, dropped: [String]) {
        var state = DemoState()
        var dropped: [String] = []
        state.tab = store.value(forKey: DemoKeys.tab, default: Tab.mixed)
        if let restored = mixed.restore() {
            state.mixed = restored.path
            dropped += restored.dropped.map { "mixed: \($0)" }
        }
        if let restored = books.restore() {
            state.books = restored.path
            dropped += restored.dropped.map { "books: \($0)" }
        }
        if let restored = library.restore() {
            state.library = restored.path
            // Items removed from the catalog are named with their titles;
            // what no longer decodes is reported as the codec says.
            let stored = libraryAsStored.restore()?.path.path ?? []
            let gone = stored.filter { !catalog.contains($0) }.map(catalog.describeGone)
            let undecodable = restored.dropped.filter { element in
                if case .unresolved = element.reason, element.list == .path { false } else { true }
            }.map(\.description)
            dropped += (gone.map { "\($0) was removed from the catalog" } + undecodable).map { "library: \($0)" }
        }
        if let data = store.value(forKey: DemoKeys.cursors, as: Data.self),
           let cursors = try? JSONDecoder().decode(LinkCursors.self, from: data) {
            state.cursors = cursors
        }
        state.trimCursors()
        return (state, dropped)
    }

    /// Saves the parts of `state` that differ from `previous`. Each changed
    /// stack is committed as the edit from `previous` (durable when this
    /// returns), and `state` then holds the stack as the scene has it
    /// (with a push another window made at the same moment under this
    /// one's); the tab and the link cursors are set (the store coalesces
    /// those writes).
    /// - Throws: the store's limit and save errors, the ``ScenePathError``
    ///   of a stored stack this process cannot read, or an encoding error.
    func save(_ state: inout DemoState, previous: DemoState) async throws {
        if state.tab != previous.tab { try store.set(state.tab, forKey: DemoKeys.tab) }
        if state.mixed != previous.mixed { state.mixed = try await mixed.commit(state.mixed, from: previous.mixed) }
        if state.books != previous.books { state.books = try await books.commit(state.books, from: previous.books) }
        if state.library != previous.library {
            state.library = try await library.commit(state.library, from: previous.library)
        }
        state.trimCursors()
        if state.cursors != previous.cursors {
            try store.set(JSONEncoder().encode(state.cursors), forKey: DemoKeys.cursors)
        }
    }

    /// Stores the Library stack as ``load()`` restored it into `state`,
    /// dropping what it left out: items removed from the catalog, which is
    /// shared by every process on the root and so gone for all of them (and
    /// any reference that no longer decodes). Elements of the other stacks
    /// that this demo cannot show stay stored.
    func dropRemovedLibraryItems(from state: DemoState) throws {
        guard let stored = library.restore(), !stored.dropped.isEmpty else { return }
        try library.replace(with: state.library)
    }

    /// One element (the writer's pid, if known) per save another process
    /// made that touched the demo's keys — one per save however many keys
    /// it changed — and per discard of the scene. Finishes when the store
    /// closes. Filtered as the consumer reads (no task of its own between
    /// the store and the consumer: one hop less per mirrored change).
    func externalChanges() -> some AsyncSequence<Int32?, Never> {
        // Subscribed now, before the caller loads the state, so that no
        // change falls between the two.
        store.updates()
            .filter { update in
                guard case .external? = update.origin else { return false }
                if case .discarded = update { return true }
                return update.changes.contains { DemoKeys.all.contains($0.key) }
            }
            .map { update -> Int32? in
                if case .external(let pid)? = update.origin { pid } else { nil }
            }
    }
}
