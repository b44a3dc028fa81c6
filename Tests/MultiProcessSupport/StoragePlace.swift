import Foundation
import SceneStore
#if Postgres
import SceneStorePostgres
#endif
import SceneStoreTesting

/// The storages a multi-process test runs on.
package enum StorageBackend: String, Sendable, CaseIterable {
    case files, postgres

    /// The database only where the package was built with the Postgres
    /// trait (`swift test --traits Postgres`, as the README says).
    package static var allCases: [StorageBackend] {
        #if Postgres
        [.files, .postgres]
        #else
        [.files]
        #endif
    }
}

/// Where one test's scenes live, for processes (`arguments`) and for a
/// registry in the test process: a fresh root, or a fresh database on the
/// test process's own server (on loopback).
package struct StoragePlace: Sendable {
    package let fixture: SceneStoreFixture
    package let databaseURL: String?

    package init(fixture: SceneStoreFixture, databaseURL: String?) {
        self.fixture = fixture
        self.databaseURL = databaseURL
    }

    /// `--backend URL` for a database; files go by `$SCENES_ROOT`.
    package var arguments: [String] { databaseURL.map { ["--backend", $0] } ?? [] }

    /// A registry on the place; by default as in production, but waiting
    /// for a scene's lock as long as a test's (`.testing`): on a busy
    /// disk four writers taking turns can wait more than ten seconds.
    package func registry(
        _ configuration: SceneRegistry.Configuration = .init(lockTimeout: SceneRegistry.Configuration.testing.lockTimeout)
    ) async throws -> SceneRegistry {
        #if Postgres
        if let databaseURL { return try await SceneRegistry(postgres: databaseURL, appID: "scenes", configuration: configuration) }
        #endif
        return try await SceneRegistry(root: fixture.root, configuration: configuration)
    }

    /// The test process's server, started on first use and left to the end
    /// of the test process; each place gets a database of its own on it.
    private static let server = Locked<TemporaryPostgresServer?>(nil)

    package static func make(_ backend: StorageBackend) async throws -> StoragePlace {
        let fixture = try await SceneStoreFixture()
        switch backend {
        case .files:
            return StoragePlace(fixture: fixture, databaseURL: nil)
        case .postgres:
            guard TemporaryPostgresServer.isAvailable else { throw PostgresMissing() }
            let server = try await blockingWork {
                try Self.server.withLock { server in
                    if let server { return server }
                    let started = try TemporaryPostgresServer.start()
                    server = started
                    return started
                }
            }
            // A connect timeout for a hang, not for speed: on a saturated
            // machine (CI's load step, 4 CPU hogs on 2 cores) a loopback
            // connect took more than the default 5 s.
            let database = try await blockingWork { try server.createDatabase() }
            return StoragePlace(fixture: fixture, databaseURL: database + "?connect_timeout=60")
        }
    }
}

package struct PostgresMissing: Error, CustomStringConvertible {
    package var description: String { "PostgreSQL is not installed (.ci/deps --test installs it)" }
}
