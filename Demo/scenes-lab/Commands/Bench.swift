import ArgumentParser

/// Benchmarks of the library as a program uses it, each next to a floor
/// measured in the same run with plain system calls;
/// meaningful with a release build:
/// `swift run -c release scenes-lab bench propagation`.
struct Bench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Benchmarks (run a release build).",
        subcommands: [
            Propagation.self, PropagationPeer.self, Commit.self, Mirror.self, Compare.self, Scale.self, Codec.self, Backends.self,
            Load.self, LoadPeer.self,
            Memory.self, RestoreChild.self, MemoryChild.self,
        ]
    )
}
