#if Postgres
import Foundation
import SceneStore

extension SceneRegistry {
    /// Opens a registry whose scenes live in PostgreSQL rather than in
    /// files: the same stores, streams, `update` and navigation, with
    /// commits as transactions that lock the scene, and other writers'
    /// changes (on this machine or any other) arriving through `LISTEN`.
    ///
    /// ```swift
    /// let scenes = try await SceneRegistry(postgres: "postgres://app:secret@db.example:5432/app", appID: "com.example.editor")
    /// ```
    ///
    /// The schema is created on first use (see `PostgresSchema`).
    /// `configuration.watcher` `.none` starts no `LISTEN` connection
    /// (one-shot tools); any other value listens.
    ///
    /// - Parameters:
    ///   - url: `postgres://user:password@host:port/database`, as libpq
    ///     takes it: a percent-encoded absolute host is a Unix-socket
    ///     directory (`postgres://app@%2Fvar%2Frun%2Fpostgresql/app`, or
    ///     `?host=/var/run/postgresql`); the query may carry `password`,
    ///     `sslmode` (`disable`, `prefer` by default, `require`,
    ///     `verify-ca`, `verify-full`) with `sslrootcert` (a PEM file, or
    ///     `system`), `application_name` and `connect_timeout` (1 to 3600
    ///     seconds).
    ///   - appID: apps sharing a database see only their own scenes.
    ///   - configuration: as for a directory: limits, lock timeout, save
    ///     policy, logger and watcher.
    /// - Throws: `SceneStoreError.invalidStorageLocation` for
    ///   a URL that cannot be used (any other parameter; a `verify-*`
    ///   mode without a readable `sslrootcert`),
    ///   naming it without its password or query values; no error or log
    ///   line of this registry shows them. An unreachable server is not an error
    ///   here: the first read or save throws
    ///   `SceneStoreError.storageUnavailable`.
    public convenience init(
        postgres url: String, appID: String, configuration: Configuration = Configuration()
    ) async throws {
        // On a thread of the library's: the URL's `sslrootcert` is read from disk.
        let storage = try await withTaskExecutorPreference(BlockingCallExecutor.shared) {
            try PostgresSceneStorage(url: url, app: appID, lockTimeout: configuration.lockTimeout, logger: configuration.logger)
        }
        await self.init(storage: storage, configuration: configuration)
    }
}
#endif
