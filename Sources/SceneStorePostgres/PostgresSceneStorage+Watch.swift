#if Postgres
import Logging
import SceneStore

extension PostgresSceneStorage {
    /// Listens on the app's channel (``PostgresSceneWatch``); `nil` only
    /// for ``WatcherPreference/none``. Any other preference listens:
    /// a database has nothing to poll or to inotify. When the server cannot
    /// be reached now, the watch keeps trying (logged) and sends
    /// ``SceneStorageEvent/rescan`` once it listens.
    package func watch(
        _ preference: WatcherPreference, logger: Logger,
        handler: @escaping @Sendable (SceneStorageEvent) -> Void
    ) async -> (any SceneStorageWatch)? {
        if preference == .none { return nil }
        var logger = logger
        logger[metadataKey: "storage"] = "\(location)"
        let watch = PostgresSceneWatch(
            database: database, eventLoop: eventLoop, channel: channel, timeout: requestTimeout, logger: logger,
            handler: handler
        )
        if await !watch.start() {
            logger.warning("not listening for changes yet; will keep trying")
        }
        return watch
    }
}
#endif
