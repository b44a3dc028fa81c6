#if Postgres
import Foundation
import SceneStore
@testable import SceneStorePostgres
import Testing

/// Scene documents as a store writes them.
enum TestDocuments {
    static let writer = WriterIdentity(pid: 1, token: "0123456789abcdef")

    static func document(
        _ scene: String, generation: UInt64 = 1, incarnation: String = "inc-1", values: [String: SceneValue] = [:]
    ) -> Data {
        SceneFile(scene: scene, generation: generation, incarnation: incarnation, writer: writer, values: values)
            .encoded()
    }

    /// The `count` value of a document holding one.
    static func count(in stored: StoredDocument) throws -> Int {
        guard case .bytes(let data) = stored else { return 0 }
        let file = try SceneFile.decode(data).get()
        guard case .int(let count) = file.values["count"] else { return 0 }
        return count
    }
}

extension PostgresSceneStorage {
    /// A storage for `app` in the database at `url`. A request waits at most
    /// 30 s by default: a guard, not a speed check (3 s timed out once under
    /// the whole suite's load); tests of timeouts pass their own.
    convenience init(
        testing url: String, app: String = "tests", lockTimeout: Duration = .seconds(10),
        requestTimeout: Duration = .seconds(30)
    ) throws {
        try self.init(url: url, app: app, lockTimeout: lockTimeout, requestTimeout: requestTimeout)
    }

    /// Writes `document` as scene `id` in a transaction of its own.
    func put(_ document: Data, as id: SceneID) async throws {
        try await transaction(id) { (transaction) throws(SceneStoreError) in try await transaction.write(document) }
    }
}
#endif
