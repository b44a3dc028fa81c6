import ArgumentParser
import Foundation
import SceneStore
import ScenesCLIKit

/// One release of an example app that keeps its window's layout with a
/// a model's `SceneKey`: release 1 stores `{"width"}`; release 2 renamed it
/// `sidebarWidth` and added `columns`; release 3 grouped the sidebar's
/// settings. Each release declares the steps from the ones before it, as
/// an app would. Different releases on one scene are the upgrade tests.
struct Release: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "release",
        abstract: "Read or write the window layout as release 1, 2 or 3 of an example app (for the upgrade tests).",
        discussion: """
            read: migrates an older layout, printing "migrated true|false" once that is durable, then \
            prints "model JSON" (the layout as this release sees it); a layout of a newer release prints \
            "refused ..." and exits 3.
            write: stores a layout of this release with --width, flushes, prints "wrote".
            hammer: prints "ready", waits for a line on stdin, then stores --count layouts (width \
            --width, --width + 1, ...) with a flush each, and prints "done written W kept-newer K refused R".
            """
    )

    enum Action: String, ExpressibleByArgument, CaseIterable {
        case read, write, hammer
    }

    @OptionGroup var rootOptions: RootOptions
    @OptionGroup var sceneOption: SceneOption
    @Argument(help: "The release: 1, 2 or 3.") var release: Int
    @Argument(help: "read, write or hammer.") var action: Action
    @Option(help: "The sidebar's width to store (write, hammer).") var width = 240
    @Option(help: "How many layouts hammer stores.") var count = 20
    @Flag(help: "No file watcher: this release's view goes stale (hammer).") var noWatch = false

    func validate() throws {
        guard (1...3).contains(release) else { throw ValidationError("the release is 1, 2 or 3, not \(release)") }
    }

    func run() async throws {
        let registry = try await rootOptions.openRegistry(
            readOnly: false, watcher: noWatch ? .none : .automatic, savePolicy: .onFlush)
        let store = try await registry.store(for: try sceneOption.sceneID())
        let layouts = ReleaseLayouts(release: release)
        switch action {
        case .read:
            do {
                emit("migrated \(try await layouts.migrate(store))")
                emit("model \(try layouts.read(store))")
            } catch let error as SceneStoreError where error.refusesModel {
                emit("refused \(error)")
                try await registry.close()
                throw ExitCode(3)
            }
        case .write:
            try layouts.write(width: width, to: store)
            try await store.flush()
            emit("wrote")
        case .hammer:
            emit("ready")
            _ = await Task.detached { readLine() }.value
            var (written, keptNewer, refused) = (0, 0, 0)
            for index in 0..<count {
                do {
                    let data = try layouts.write(width: width + index, to: store)
                    try await store.flush()
                    if store.value(forKey: ReleaseLayouts.key, as: Data.self) == data { written += 1 } else { keptNewer += 1 }
                } catch let error as SceneStoreError where error.refusesModel {
                    refused += 1
                }
            }
            emit("done written \(written) kept-newer \(keptNewer) refused \(refused)")
        }
        try await registry.close()
    }
}

/// The window layout of each release and its key.
struct ReleaseLayouts {
    static let key = "window.layout"
    let release: Int

    struct V1: Codable, Sendable { var width: Int }
    struct V2: Codable, Sendable { var sidebarWidth: Int; var columns: Int }
    struct V3: Codable, Sendable {
        struct Sidebar: Codable, Sendable { var width: Int; var collapsed: Bool }
        var sidebar: Sidebar
        var columns: Int
    }

    static let oneToTwo = SceneModelMigration.from(1) { (old: V1) in V2(sidebarWidth: old.width, columns: 2) }
    static let twoToThree = SceneModelMigration.from(2) { (old: V2) in
        V3(sidebar: .init(width: old.sidebarWidth, collapsed: old.sidebarWidth == 0), columns: old.columns)
    }

    static let v1 = SceneKey(key, tag: "window-layout", version: 1, default: V1(width: 240))
    static let v2 = SceneKey(key, tag: "window-layout", version: 2, default: V2(sidebarWidth: 240, columns: 2),
                                    migrations: [oneToTwo])
    static let v3 = SceneKey(key, tag: "window-layout", version: 3,
                                    default: V3(sidebar: .init(width: 240, collapsed: false), columns: 2),
                                    migrations: [oneToTwo, twoToThree])

    /// The layout as this release decodes it, as sorted JSON.
    func read(_ store: SceneStore) throws -> String {
        switch release {
        case 1: try Self.json(store.value(for: Self.v1))
        case 2: try Self.json(store.value(for: Self.v2))
        default: try Self.json(store.value(for: Self.v3))
        }
    }

    func migrate(_ store: SceneStore) async throws -> Bool {
        switch release {
        case 1: try await store.migrate(Self.v1)
        case 2: try await store.migrate(Self.v2)
        default: try await store.migrate(Self.v3)
        }
    }

    /// Stores this release's layout of `width`.
    /// - Returns: the data stored.
    @discardableResult
    func write(width: Int, to store: SceneStore) throws -> Data? {
        switch release {
        case 1: try store.set(V1(width: width), for: Self.v1)
        case 2: try store.set(V2(sidebarWidth: width, columns: 3), for: Self.v2)
        default: try store.set(V3(sidebar: .init(width: width, collapsed: false), columns: 3), for: Self.v3)
        }
        return store.value(forKey: Self.key, as: Data.self)
    }

    private static func json(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}

extension SceneStoreError {
    /// A model key's refusal: the stored value is not a model this release
    /// reads or writes over.
    fileprivate var refusesModel: Bool {
        switch self {
        case .unreadableModel, .newerModel, .wrongType, .unencodableModel: true
        default: false
        }
    }
}
