import ArgumentParser
import Foundation
import SceneStore
import ScenesCLIKit
#if canImport(Glibc)
import Glibc
#endif

extension Probe {
    /// Runs out of file descriptors (EMFILE) with a set pending, tries to
    /// flush, gives the descriptors back and flushes again: the first flush
    /// must fail with a typed error and the second must save everything.
    /// With `--fresh-scene`, the value set during
    /// the shortage goes to a scene without a file, whose save writes it
    /// whole (a new lock file, a temporary file, the directory's sync).
    struct FileLimit: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "file-limit",
            abstract: "Flush with no descriptor left, then again; print what happened as JSON.")

        @OptionGroup var rootOptions: RootOptions

        @Flag(help: "Set the value during the shortage in a scene with no file yet (written whole) instead of main.")
        var freshScene = false

        struct Report: Encodable {
            var probe = "file-limit"
            /// The flush's error while no descriptor was left, if it threw.
            var error: String?
            /// The errno inside that error (24 is EMFILE).
            var errno: Int32?
            /// Whether the value set during the shortage was still readable.
            var keptInMemory: Bool
            /// Whether the flush after the shortage succeeded.
            var savedAfter: Bool
        }

        func run() async throws {
            let registry = try await SceneRegistry(root: rootOptions.rootURL(), configuration: .init(
                savePolicy: .onFlush, watcher: .polling(interval: .seconds(3600))))
            let store = try await registry.store(for: "main")
            try store.set("before", forKey: "before")
            try await store.flush()

            let target = freshScene ? try await registry.store(for: "fresh") : store

            var fillers: [Int32] = []
            while true {
                let fd = open("/dev/null", O_RDONLY | O_CLOEXEC)
                guard fd >= 0 else { break }
                fillers.append(fd)
            }
            try target.set("during", forKey: "during")
            var report = Report(keptInMemory: false, savedAfter: false)
            do {
                try await target.flush()
            } catch {
                report.error = "\(error)"
                if case .io(_, _, let code) = error as? SceneStoreError { report.errno = code.rawValue }
            }
            fillers.forEach { _ = close($0) }
            report.keptInMemory = target.value(forKey: "during", as: String.self) == "during"
            do {
                try await target.flush()
                report.savedAfter = true
            } catch {}
            emit(try jsonLine(report))
            try await registry.close()
        }
    }
}
