// The Swift blocks of README.md, verbatim, so that `swift build --build-tests`
// compiles every example the README shows. `ReadmeDriftTests` fails when a
// block of the README is missing here: edit both together.
//
// Declaration blocks stand at file scope; statement blocks are the bodies
// of functions that are compiled, never called. Lines after a block only
// use what it declared (no unused-value warnings). The stand-ins the
// examples refer to (`Book`, `Selection`, `catalog`, `render`, ...) are in
// ReadmeStandIns.swift.
//
// The DocC articles' Swift blocks are compiled the same way, in
// ArticleExamples+SceneStore.swift, ArticleExamples+SceneNavigation.swift
// and ArticleExamples+Testing.swift (checked by `ArticleDriftTests`).

import Foundation
import SceneStore

enum Tab: String, SceneStorable { case mixed, books, library }  // raw-value enums store as their raw value
extension SceneKey where Value == Tab { static var tab: Self { .init("tab", default: .mixed) } }

import SceneNavigation

@Observable @MainActor final class Navigation { var path = ScenePath() }
@Observable @MainActor final class Reader { var books = NavigationHistory<[Book]>() }

import Observation

@Observable @MainActor final class Settings {
    var selectedTab = 0
    var showHidden = false
    var zoom: Double? = nil
}

struct Layout: Codable, Sendable { var sidebarWidth = 240; var columns = 2 }
extension SceneCodableKey where Model == Layout {
    static var layout: Self { .init("layout", tag: "layout", version: 1, default: Layout()) }
}

struct Pane: Codable, Sendable { var width = 240; var collapsed = false }
struct LayoutV2: Codable, Sendable { var sidebar = Pane(); var columns = 2 }
extension SceneCodableKey where Model == LayoutV2 {
    static var layoutV2: Self {
        .init("layout", tag: "layout", version: 2, default: LayoutV2(), migrations: [
            .from(1) { (old: Layout) in LayoutV2(sidebar: Pane(width: old.sidebarWidth), columns: old.columns) },
        ])
    }
}

func registryExample() async throws {
let scenes = try SceneRegistry(appID: "com.example.editor")   // ~/.local/state/com.example.editor/scenes
let store = try await scenes.store(for: "main")                // same instance for the same id
try store.set(2, forKey: "selectedTab")                        // memory now, disk soon (coalesced, off-thread)
let selected = store.value(forKey: "selectedTab", default: 0)  // synchronous, never touches the disk
store.removeValue(forKey: "selectedTab")
try store.set(.books, for: .tab); let current = store[.tab]

for await tab in store.values(for: .tab) { render(tab) }        // current value first, then each change (latest only)
for await change in store.changes() { log(change.key, change.oldValue, change.newValue, change.origin) }
for await update in store.updates() { redraw(update.changes) }  // one element per save of another process, never half of it
try await store.flush()                                         // everything set before is durable
try await scenes.discard("old")                                 // here and in every process that has it open
try await scenes.close()                                        // flushes, finishes streams
    use(selected, current)
}

func propertyWrapperExample(store: SceneStore) async throws {
@SceneStored("selectedTab", store: store) var selectedTab = 0   // Bool, Int, Double, String, URL, Data,
@SceneStored(.tab, store: store) var tab                        // their Optionals (nil removes), raw-value enums
selectedTab += 1                                                // memory now, disk soon
try $selectedTab.set(3)                                         // the same, throwing when refused
let next = try await $selectedTab.update { $0 + 1 }             // read-modify-write under the scene lock
for await value in $selectedTab.values { show(value, tab) }     // now, then each change, from any process
    use(next)
}

func updateExample(store: SceneStore) async throws {
let launches = try await store.update(forKey: "launches", default: 0) { $0 + 1 }
let tabs = try await store.update(.tab) { $0 == .mixed ? .books : .mixed }   // typed keys too
    use(launches, tabs)
}

@MainActor func observableExample(store: SceneStore) async throws {
let settings = Settings()
let binding = store.bind([
    SceneProperty(\.selectedTab, forKey: "selectedTab"),
    SceneProperty(\.showHidden, forKey: "showHidden"),
    SceneProperty(\.zoom, forKey: "zoom"),
], on: settings)
settings.showHidden = true      // saved; every process bound to this scene shows it
try await binding.flush()       // durable now (close() and stop() hand the edit over too)
binding.stop()                  // else it runs until the store closes
}

func codableExample(store: SceneStore) async throws {
try store.encode(Layout(sidebarWidth: 300), for: .layout)      // {"format":"scenestore.model","tag":"layout",...}
let layout = try store.decode(.layout)                          // Layout() while the key is empty
try await store.update(.layout) { $0.columns += 1 }             // atomic, like update(forKey:)
    use(layout)
}

func windowsExample(scenes: SceneRegistry) async throws {
for session in try await scenes.scenesToRestore() {   // most recent first; .relaunch or .recover
    if let window = try await scenes.reopen(session.id) { use(window) }   // nil: another launch took it
}
let window = try await scenes.newScene(title: "Untitled")   // a new window's scene, claimed
try await scenes.closeForGood(window.id)                    // the user closed it: its state goes everywhere
try await scenes.close()                                    // quit: every open window comes back
}

@MainActor func terminationExample(scenes: SceneRegistry) {
signal(SIGTERM, SIG_IGN)
let terminate = DispatchSource.makeSignalSource(signal: SIGTERM, queue: .main)
terminate.setEventHandler { Task { try? await scenes.close(); exit(0) } }
terminate.resume()
}

func upgradeExample(store: SceneStore) async throws {
let upgraded = try store.decode(.layoutV2)   // a version 1 layout, migrated; written back in the background
try await store.migrate(.layoutV2)           // the same, durable when it returns (false: nothing to migrate)
    use(upgraded)
}

@MainActor func navigationExample(store: SceneStore) async throws {
let types = ScenePathTypes([.init(Int.self), .init(String.self), .init(Book.self, tag: "book")])
let binding = PathBinding(store: store, key: "mixed.path", codec: .scenePath(types: types))

let navigation = Navigation()
let bound = binding.bind(\.path, on: navigation)   // restores now, saves every change, follows other processes
navigation.path.append(42)                         // saved; another process bound to the same scene sees it

let library = PathBinding(store: store, key: "library.path",   // persisted by ID, resolved at restore:
    codec: .references(to: Selection.self) { catalog.resolve($0) })  // deleted items are left out

// Without Observation: save each edit from the path it was made on.
var path = library.restore()?.path ?? []
let before = path
path.append(.settings)
path = try library.save(path, from: before)         // the path the scene holds now: show it
path = try await library.commit(path + [.settings], from: path)  // under the scene lock: two windows pushing both stay
for await latest in library.externalChanges() { path = latest.path }  // latest only; removal/discard -> []
    use(bound)
}

@MainActor func historyExample(store: SceneStore) {
let history = PathBinding(store: store, key: "books.path", codec: .history(.stack(of: Book.self)))
let reader = Reader()
let boundHistory = history.bind(\.books, on: reader)   // restored with its forward entries
reader.books.push(dune)
reader.books.back()                                   // reader.books.forwardCount == 1
reader.books.forward()                                // dune again
    use(boundHistory)
}

import Testing

import SceneStoreTesting

@Test func tabSurvivesCrashOnFlush() async throws {
    let fixture = try SceneStoreFixture(configuration: .testing(savePolicy: .onFlush))   // fresh temp root, saved on flush only
    let store = try await fixture.registry.store(for: "main")
    try store.set(2, forKey: "tab"); try await store.flush()
    try store.set(3, forKey: "tab")                       // never flushed
    let after = try fixture.crash()                       // as kill -9: only durable state survives
    await #expect(try after.store(for: "main").value(forKey: "tab", default: 0) == 2)
    let other = try await fixture.otherRegistry().store(for: "main")   // another writer on the same root, as another process sees it
    try other.set(4, forKey: "tab"); try await other.flush()
    let relaunched = try await fixture.relaunch()         // graceful quit and launch
    await #expect(try relaunched.store(for: "main").value(forKey: "tab", default: 0) == 4)
    await fixture.tearDown()
}
