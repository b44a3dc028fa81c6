import Foundation
import MultiProcessSupport
import Testing

extension MultiProcess {
    /// A process with 10 open scenes (and a subscriber on each) and no
    /// changes uses no CPU: measured over 10 s from /proc/self/stat of a
    /// fresh `scenes-lab probe idle` process.
    @Suite struct IdleTests {
        struct Report: Decodable {
            let scenes: Int
            let seconds: Double
            let watcher: String
            let cpuSeconds: Double
            let ownerThreadCPUSeconds: Double?
            let changesSeen: Int
        }

        // Hang guard: it took 10 s here (2 cores); 1 minute, at least 4 times that.
        @Test(.timeLimit(.minutes(1)))
        func tenOpenScenesIdleForTenSecondsUseNoCPU() async throws {
            let report = try await probe(Report.self, ["idle", "--scenes", "10", "--seconds", "10"])
            #expect(report.watcher == "inotify")
            #expect(report.changesSeen == 0)
            // Clock ticks are 10 ms: allow a few for the sleep's own wake-up.
            #expect(report.cpuSeconds <= 0.03, "\(report.cpuSeconds) s of CPU while idle")
            let ownerThread = try #require(report.ownerThreadCPUSeconds, "no inotify owner thread found")
            #expect(ownerThread <= 0.01)
            print("idle: \(report.scenes) scenes for \(report.seconds) s: process CPU \(report.cpuSeconds) s, watcher thread \(ownerThread) s")
        }
    }
}
