import Foundation
import SceneStore
import SceneStoreTesting
import MultiProcessSupport
import Testing

extension MultiProcess {
    /// An app that makes inotify instances of its own while registries
    /// open does not push them to polling, and no descriptor is left.
    @Suite struct InotifyNeighbourTests {
        struct Report: Decodable {
            let registries: Int
            let kinds: [String: Int]
            let neighbourInstances: Int
            let inotifyFDsAfter: Int
        }

        /// 10 `probe inotify-neighbours` processes at once, each opening
        /// and closing 150 registries while a thread of its own creates and
        /// closes inotify instances in a loop.
        // Hang guard: it took about 10 s here (2 cores); 3 minutes.
        @Test(.timeLimit(.minutes(3)))
        func registriesBesideOtherInotifyInstancesUseInotify() async throws {
            let reports = try await withThrowingTaskGroup(of: Report.self) { group in
                for _ in 0..<10 {
                    group.addTask { try await probe(Report.self, ["inotify-neighbours", "--registries", "150"]) }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            let polled = reports.filter { $0.kinds["inotify", default: 0] != $0.registries }
            let leaked = reports.filter { $0.inotifyFDsAfter != 0 }
            print("inotify neighbours: \(polled.count) of \(reports.count) processes had registries without inotify, \(leaked.count) left an inotify descriptor; kinds \(reports.map(\.kinds)); neighbour instances \(reports.map(\.neighbourInstances))")
            #expect(polled.isEmpty, "\(polled.map(\.kinds))")
            #expect(leaked.isEmpty, "\(leaked.map(\.inotifyFDsAfter))")
            #expect(reports.allSatisfy { $0.neighbourInstances > 0 })
        }
    }
}
