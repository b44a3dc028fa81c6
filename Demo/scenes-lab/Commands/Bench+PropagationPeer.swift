import ArgumentParser
import Foundation
import SceneStore
import ScenesCLIKit
#if canImport(Glibc)
import Glibc
#endif

extension Bench {
    /// The receiving side of `bench propagation`, run as a second process:
    /// prints `ready`, then `got <nanoseconds>` for each change received,
    /// the time since the writer stamped it. Runs until killed.
    struct PropagationPeer: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "propagation-peer",
            abstract: "The receiving process of `bench propagation`.",
            shouldDisplay: false)

        enum Mode: String, ExpressibleByArgument {
            /// A SceneStore change stream.
            case store
            /// A raw inotify descriptor and a file read.
            case raw
        }

        @Option(help: "store or raw.") var mode: Mode
        @Option(help: "The scenes root (store) or watched directory (raw).") var directory: String

        func run() async throws {
            switch mode {
            case .store: try await receiveChanges()
            case .raw: try receiveRawEvents()
            }
        }

        private func receiveChanges() async throws {
            let registry = try await SceneRegistry(root: URL(fileURLWithPath: directory, isDirectory: true))
            let store = try await registry.store(for: Bench.sceneName)
            let changes = store.changes()
            emit("ready \(getpid())")
            for await change in changes {
                guard case .external = change.origin, case .int(let stamp)? = change.newValue else { continue }
                emit("got \(monotonicNanoseconds() - stamp)")
            }
        }

        private func receiveRawEvents() throws {
            let fd = inotify_init1(Int32(IN_CLOEXEC))
            guard fd >= 0 else { throw failure("inotify_init1 failed: errno \(errno)") }
            guard inotify_add_watch(fd, directory, UInt32(IN_MOVED_TO)) >= 0 else {
                throw failure("inotify_add_watch \(directory) failed: errno \(errno)")
            }
            let path = URL(fileURLWithPath: directory).appendingPathComponent(Bench.rawFileName).path
            emit("ready \(getpid())")
            let headerSize = MemoryLayout<inotify_event>.size
            var events = [UInt8](repeating: 0, count: 64 * 1024)
            var contents = [UInt8](repeating: 0, count: 1 << 20)
            while true {
                let count = read(fd, &events, events.count)
                if count == -1 && errno == EINTR { continue }
                guard count > 0 else { throw failure("reading inotify failed: errno \(errno)") }
                var offset = 0
                var moved = false
                while offset + headerSize <= count {
                    let (mask, length) = events.withUnsafeBytes { raw in
                        let event = raw.loadUnaligned(fromByteOffset: offset, as: inotify_event.self)
                        return (event.mask, Int(event.len))
                    }
                    let name = String(decoding: events[(offset + headerSize)..<(offset + headerSize + length)]
                        .prefix { $0 != 0 }, as: UTF8.self)
                    if mask & UInt32(IN_MOVED_TO) != 0 && name == Bench.rawFileName { moved = true }
                    offset += headerSize + length
                }
                guard moved else { continue }
                let file = open(path, O_RDONLY | O_CLOEXEC)
                guard file >= 0 else { continue }
                let size = read(file, &contents, contents.count)
                close(file)
                guard size > 0, let newline = contents[..<size].firstIndex(of: UInt8(ascii: "\n")),
                      let stamp = Int(String(decoding: contents[..<newline], as: UTF8.self)) else { continue }
                emit("got \(monotonicNanoseconds() - stamp)")
            }
        }
    }
}
