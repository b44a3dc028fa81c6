// The Swift blocks of the SceneStore.docc articles, so that
// `swift build --build-tests` compiles every example they show.
// `ArticleDriftTests` fails when a block of an article is missing here:
// edit both together. The rules are ReadmeExamples.swift's, with two more:
//
// * A block may be split at its blank lines, each part standing where Swift
//   allows it: imports at the top of this file, extensions at file scope,
//   statements in a function. The parts stay in the block's order, and
//   lines are compared with their leading whitespace trimmed, so examples
//   nested in an article's namespace may be indented.
// * Types whose names the README's examples already use (`Settings`) are
//   nested in a caseless enum per article; the statements
//   that use them are a static function of that enum.
//
// Only the imports the articles show stand here, so an example that needs
// another module fails to build. Stand-ins (`render`, `log`) are in
// ArticleStandIns.swift.

// RestoringWindows.md, "Closing one window, quitting the app" (its
// statements are in RestoringWindowsArticle.quitOnSignals).
import Foundation

// GettingStarted.md, "Open a scene" (its statements are in gettingStarted()).
import SceneStore

// GettingStarted.md, "Keep a model" (its statements are in gettingStarted()).
import Observation

// SceneStore.md, the overview's key.
extension SceneKey where Value == Int {
    static var zoom: Self { .init("zoom", default: 100) }
}

// GettingStarted.md, "Keep values": declarations at file scope.
enum Tab: String, SceneStorable { case mixed, books, library }

extension SceneKey where Value == Tab {
    static var selectedTab: Self { .init("selectedTab", default: .mixed) }
}
extension SceneKey where Value == String? {
    static var query: Self { .init("query", default: nil) }   // nil while absent
}

// GettingStarted.md, "Keep a model": the Codable model and its key.
struct Sidebar: Codable, Sendable { var width = 240; var pinned: [String] = [] }
extension SceneKey where Value == Sidebar {
    static var sidebar: Self { .init("sidebar", tag: "sidebar", default: Sidebar()) }
}

// GettingStarted.md, "Keep a model": the model's second version and its key.
struct Pane: Codable, Sendable { var width = 240; var collapsed = false }
struct SidebarV2: Codable, Sendable { var pane = Pane(); var pinned: [String] = [] }
extension SceneKey where Value == SidebarV2 {
    static var sidebarV2: Self {
        .init("sidebar", tag: "sidebar", version: 2, default: SidebarV2(), migrations: [
            .from(1) { (old: Sidebar) in SidebarV2(pane: Pane(width: old.width), pinned: old.pinned) },
        ])
    }
}

// GettingStarted.md, "Count safely across processes": the counter's key.
extension SceneKey where Value == Int {
    static var opened: Self { .init("opened", default: 0) }
}

/// SceneStore.md
enum SceneStoreArticle {
    static func overview() async throws {
        let scenes = try await SceneRegistry(appID: "com.example.editor")
        let store = try await scenes.store(for: "main")

        @SceneStored(.zoom, store: store) var zoom: Int
        zoom = 125                                       // saved off the caller's thread
        let next = try await $zoom.update { $0 += 25 }   // atomic across processes
        use(next)
    }
}

/// GettingStarted.md: its blocks build on each other, so its statements
/// form one function, in the article's order.
enum GettingStartedArticle {
    @Observable @MainActor final class Settings {
        var selectedTab = Tab.mixed
        var query: String? = nil
    }

    @MainActor static func gettingStarted() async throws {
        // Open a scene
        let scenes = try await SceneRegistry(appID: "com.example.editor")
        let store = try await scenes.store(for: "main")       // the same instance for the same id

        // Keep values
        try store.set(.books, for: .selectedTab)            // memory now, disk a moment later
        let tab = store[.selectedTab]                       // .mixed while the scene holds nothing
        store.removeValue(for: .query)

        @SceneStored(.selectedTab, store: store) var selectedTab: Tab
        @SceneStored(.query, store: store) var query: String?

        selectedTab = .library      // the same as store.set(.library, for: .selectedTab)
        query = nil                 // removes the key

        // Keep a model
        let settings = Settings()
        let binding = store.bind([
            SceneProperty(\.selectedTab, key: .selectedTab),
            SceneProperty(\.query, key: .query),
        ], on: settings)

        try store.set(Sidebar(width: 300), for: .sidebar)
        let sidebar = store[.sidebar]                  // Sidebar() while the key is empty
        let checked = try store.value(for: .sidebar)   // the same, throwing when the data is another tag's

        let upgraded = store[.sidebarV2]              // a version 1 sidebar, migrated; written back in the background
        try await store.migrate(.sidebarV2)           // the same, durable when it returns (false: nothing to migrate)

        // Follow changes
        for await tab in $selectedTab.values { print(tab) }     // now, then each change
        for await update in store.updates() { print(update) }   // every change, one save at a time

        // Count safely across processes
        let count = try await store.update(.opened) { $0 += 1 }

        // Quit
        try await scenes.close()       // flushes every store, finishes every stream
        use(tab, binding, sidebar, checked, upgraded, count)
    }
}

/// RestoringWindows.md
enum RestoringWindowsArticle {
    static func launch() async throws {
        let scenes = try await SceneRegistry(appID: "com.example.editor")
        var windows: [SceneStore] = []
        for session in try await scenes.scenesToRestore() {
            if let window = try await scenes.reopen(session.id) { windows.append(window) }
        }
        if windows.isEmpty { windows.append(try await scenes.newScene(title: "Untitled")) }

        try await scenes.closeForGood(windows[0].id)   // the user closed this window
        try await scenes.markActive(windows[1].id)      // this window came to the front
        try await scenes.close()                        // quit: every window still open comes back
    }

    @MainActor static func quitOnSignals(scenes: SceneRegistry) {
        signal(SIGTERM, SIG_IGN)
        let terminate = DispatchSource.makeSignalSource(signal: SIGTERM, queue: .main)
        terminate.setEventHandler { Task { try? await scenes.close(); exit(0) } }
        terminate.resume()
    }
}
