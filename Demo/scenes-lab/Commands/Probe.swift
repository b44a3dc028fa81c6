import ArgumentParser

/// Measurements of one `scenes` process, for tests that must not be
/// disturbed by other work in the test process: each prints one JSON line.
///
struct Probe: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Measure descriptors, threads, watches and CPU of this process (for tests).",
        subcommands: [Lifecycle.self, Idle.self, HighFD.self, Follow.self, FileLimit.self, InotifyNeighbours.self]
    )
}
