import Foundation
import FuzzChecks
import Testing

/// Every file of the fuzzers' seed corpus, run through the check its fuzzer
/// runs: an input that once crashed or broke a property stays a test once
/// it is added to `Tests/Fuzz/Corpus/<fuzzer>/`.
@Suite struct CorpusReplayTests {
    static let corpus = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Corpus")

    static func inputs(of fuzzer: String) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: corpus.appendingPathComponent(fuzzer).path)) ?? []
        return names.sorted()
    }

    private func replay(_ fuzzer: String, _ name: String, _ check: FuzzEntry.Check) throws {
        let data = try Data(contentsOf: Self.corpus.appendingPathComponent(fuzzer).appendingPathComponent(name))
        do {
            try check(data)
        } catch {
            Issue.record("\(fuzzer)/\(name): \(error)")
        }
    }

    @Test(arguments: inputs(of: "SceneFileFuzzer"))
    func sceneFileInputKeepsEveryProperty(name: String) throws {
        try replay("SceneFileFuzzer", name, SceneFileCheck.check)
    }

    @Test(arguments: inputs(of: "ScenePathFuzzer"))
    func scenePathInputKeepsEveryProperty(name: String) throws {
        try replay("ScenePathFuzzer", name, ScenePathCheck.check)
    }

    /// Guards against replaying nothing (a moved corpus, a wrong path).
    @Test(arguments: ["SceneFileFuzzer", "ScenePathFuzzer"])
    func corpusIsThere(fuzzer: String) {
        #expect(Self.inputs(of: fuzzer).count >= 30, "\(Self.corpus.path)/\(fuzzer)")
    }
}
