// The Swift blocks of README.md, verbatim, so that `swift build --build-tests`
// compiles every example the README shows. `ReadmeDriftTests` fails when a
// block of the README is missing here: edit both together.
//
// Declaration blocks stand at file scope; statement blocks are the bodies
// of functions that are compiled, never called. Lines after a block only
// use what it declared (no unused-value warnings). The README defines every
// name its examples use but `store` and `scenes`, which the first example
// shows how to get.
//
// The DocC articles' Swift blocks are compiled the same way, in
// ArticleExamples+SceneStore.swift, ArticleExamples+SceneNavigation.swift
// and ArticleExamples+Testing.swift (checked by `ArticleDriftTests`), with
// stand-ins in ReadmeStandIns.swift and ArticleStandIns.swift.

// "A first example", whole.
import SceneStore

enum Theme: String, SceneStorable { case light, dark }   // raw-value enums store as their raw value

extension SceneKey where Value == Int {
    static var launches: Self { .init("launches", default: 0) }   // name, type and default, once
}
extension SceneKey where Value == Theme {
    static var theme: Self { .init("theme", default: .light) }
}

func startEditor() async throws {
    let scenes = try await SceneRegistry(appID: "com.example.editor")   // ~/.local/state/com.example.editor/scenes
    let store = try await scenes.store(for: "main")               // one scene: a window, a tab group, a session
    let launches = store[.launches]                               // synchronous, from memory
    print("launch \(launches + 1), theme \(store[.theme])")       // "launch 1, theme light" the first time
    try store.set(launches + 1, for: .launches)                   // memory now, disk a moment later
    try store.set(.dark, for: .theme)
    try await scenes.close()                                      // every store saved: durable now
}

// "Concepts", bindings.
func bindingsExample(store: SceneStore) async throws {
@SceneStored(.launches, store: store) var count: Int   // the key's default while the scene holds none
count += 1                                              // memory now, disk soon
print(try await $count.update { $0 += 1 })              // under the scene lock; prints the new value
}

// "Concepts", windows.
func windowsExample(scenes: SceneRegistry) async throws {
var windows: [SceneStore] = []
for session in try await scenes.scenesToRestore() {        // most recent first; .relaunch or .recover
    if let window = try await scenes.reopen(session.id) {   // nil: another launch took it
        windows.append(window)
    }
}
if windows.isEmpty { windows.append(try await scenes.newScene(title: "Untitled")) }
try await scenes.closeForGood(windows[0].id)               // the user closed it: its state goes everywhere
try await scenes.close()                                   // quit: every open window comes back
}
