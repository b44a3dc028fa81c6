import ArgumentParser
import Foundation
import SceneStore
import ScenesCLIKit

extension Bench {
    /// The fresh process of `bench format-probe`'s memory figures: reads a
    /// small scene, resets its VmHWM, reads one file whole with the same
    /// reader, and prints one JSON
    /// line of its memory before, at the peak and after (the file's bytes
    /// released, the values kept).
    struct FormatProbeChild: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "format-probe-child",
            abstract: "The fresh process of the format-probe memory figures.",
            shouldDisplay: false)

        @Option(help: "The reader.") var reader: FormatProbe.Reader
        @Option(help: "The file it reads.") var file: String

        struct Report: Codable {
            var keys: Int
            var before: MemoryChild.Memory
            /// Its `hwm` is the peak since `before`.
            var after: MemoryChild.Memory
        }

        func run() async throws {
            // The reader's code paged in and its first allocations made on a
            // small scene first, as in a process that has read one before:
            // what follows is the memory the file's size makes.
            withExtendedLifetime(try reader.read(reader.bytes(of: FormatProbe.sample(keys: 60)))) {}
            // Writing 5 to clear_refs resets VmHWM to VmRSS (Linux 4.0 and later).
            guard (try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)) != nil else {
                throw failure("cannot reset VmHWM through /proc/self/clear_refs")
            }
            let before = try MemoryChild.Memory.current()
            let values = try read()
            let after = try MemoryChild.Memory.current()
            emit(try jsonLine(Report(keys: values.count, before: before, after: after)))
            withExtendedLifetime(values) {}
        }

        /// The values, the file's bytes released.
        private func read() throws -> SceneValues {
            try reader.read(try Data(contentsOf: URL(fileURLWithPath: file)))
        }
    }
}
