import ArgumentParser
import Foundation
import ScenesCLIKit

/// Benchmarks, probes and the stress and torture writers, for the tests and
/// for measuring: apart from the user-facing `scenes` CLI. Run a release
/// build for figures: `swift run -c release scenes-lab bench compare`.
@main
struct ScenesLab: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scenes-lab",
        abstract: "Benchmarks, probes and load writers for SceneStore (tests and measurements).",
        subcommands: [Bench.self, BoundPush.self, History.self, Probe.self, Release.self, Stress.self, Torture.self, WindowLaunch.self]
    )

    static func main() async {
        refuseTooFewOpenFiles()
        await runCommandLine(Self.self)
    }
}

/// This executable, for benchmarks that run it again as a child.
let labExecutable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()

/// The user-facing `scenes` executable, built next to this one.
let scenesExecutable = labExecutable.deletingLastPathComponent().appendingPathComponent("scenes")

/// `scenes get`'s floor: a program that only imports Foundation, built
/// next to this one.
let foundationFloorExecutable = labExecutable.deletingLastPathComponent().appendingPathComponent("foundation-floor")
