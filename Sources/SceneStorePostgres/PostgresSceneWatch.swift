#if Postgres
import Foundation
import Logging
import NIOCore
import PostgresNIO
import SceneStore
import NIOConcurrencyHelpers

/// A `LISTEN` on an app's channel, on a connection of its own: each
/// notification (a scene id, sent by a commit) becomes
/// ``SceneStorageEvent/changed(_:)``, and the store reads the scene's row.
/// A notification is only a hint: PostgreSQL lets any role that can
/// connect `LISTEN` and `NOTIFY` on any channel, so a notification never
/// carries a value, and one that was forged or replayed costs a read of
/// the row, never a wrong value. When the connection drops (a server
/// restart, a broken link) it reconnects with backoff, 50 ms doubling up to
/// 2 s, and once listening again sends ``SceneStorageEvent/rescan``: what
/// was committed meanwhile was not announced to it, as an inotify queue
/// overflow loses events.
///
/// The handler runs on a SwiftNIO event loop thread, never concurrently
/// with itself, and not after ``cancel()`` returns.
final class PostgresSceneWatch: SceneStorageWatch {
    var kind: WatcherKind { .databaseNotifications }

    private let database: PostgresLocation
    /// Where the listening connection lives: the storage's loop, where its
    /// stores run.
    private let eventLoop: any EventLoop
    private let channel: String
    private let timeout: Duration
    private let logger: Logger
    private let handler: @Sendable (SceneStorageEvent) -> Void

    private struct State {
        var cancelled = false
        /// The listening connection, while there is one.
        var connection: PostgresConnection?
        /// The reconnection waiting for its delay.
        var retry: Scheduled<Void>?
        /// Failed attempts since the last success.
        var failures = 0
        /// Whether listening stopped (a failed attempt or a dropped
        /// connection) and has not resumed: warned about once, at its start,
        /// and once at its end, never once per retry.
        var inOutage = false
    }

    /// Marks the start of an outage. - Returns: whether it just began.
    private func outageBegins() -> Bool {
        state.withLockedValue { state in
            defer { state.inOutage = true }
            return !state.inOutage
        }
    }

    private let state = NIOLockedValueBox(State())
    /// Held while the handler runs, so that ``cancel()`` returns only once
    /// no call is in progress; recursive, so that the handler may cancel.
    private let delivering = NSRecursiveLock()

    init(
        database: PostgresLocation, eventLoop: any EventLoop, channel: String, timeout: Duration, logger: Logger,
        handler: @escaping @Sendable (SceneStorageEvent) -> Void
    ) {
        self.database = database
        self.eventLoop = eventLoop
        self.channel = channel
        self.timeout = timeout
        self.logger = logger
        self.handler = handler
    }

    /// Connects and listens; reports whether the first attempt succeeded
    /// within the timeout. When it did not, attempts go on in the
    /// background and the first that succeeds sends `.rescan`.
    /// Waits holding no thread: the first attempt's answer, or the
    /// timeout, resumes it.
    func start() async -> Bool {
        enum First { case waiting, listening, gaveUp }
        let first = NIOLockedValueBox(First.waiting)
        let wait = max(database.connectTimeout(default: timeout), timeout) + .seconds(1)
        await withCheckedContinuation { (answered: CheckedContinuation<Void, Never>) in
            let pending = NIOLockedValueBox(Optional(answered))
            let answer: @Sendable () -> Void = { pending.withLockedValue { $0.take() }?.resume() }
            connect(rescan: {
                // Late, when the caller was already told it does not listen.
                first.withLockedValue { first in
                    if first == .waiting { first = .listening }
                    return first == .gaveUp
                }
            }, done: { _ in answer() })
            let timeout = eventLoop.scheduleTask(in: .nanoseconds(Int64(wait.nanoseconds))) { answer() }
            _ = timeout
        }
        return first.withLockedValue { first in
            if first == .waiting { first = .gaveUp }
            return first == .listening
        }
    }

    func cancel() {
        delivering.lock()
        let (connection, retry) = state.withLockedValue { state in
            state.cancelled = true
            defer { state.connection = nil; state.retry = nil }
            return (state.connection, state.retry)
        }
        delivering.unlock()
        retry?.cancel()
        connection?.closeInBackground()
    }

    /// One attempt: connect, register the listener, `LISTEN`; then
    /// `done(true)`, or `done(false)` and a retry after a delay.
    private func connect(
        rescan: @escaping @Sendable () -> Bool, done: @escaping @Sendable (Bool) -> Void = { _ in }
    ) {
        // Connected as every other connection is: under `verify-full`
        // the host is checked before the user name or a password is sent.
        database.connect(on: eventLoop, timeout: timeout, lockTimeout: nil, id: 0, logger: logger).flatMap { connection in
            connection.addListener(channel: self.channel) { _, notification in
                self.received(notification.payload)
            }
            // postgres-nio sends its own LISTEN for the listener; this one,
            // queued behind it, tells when the server listens.
            return connection.query(PostgresQuery(unsafeSQL: "LISTEN \(self.channel)"), logger: self.logger)
                .map { _ in connection }
                .flatMapErrorThrowing { error in
                    connection.closeInBackground()
                    throw error
                }
        }.whenComplete { result in
            switch result {
            case .success(let connection):
                self.listening(on: connection, rescan: rescan)
                done(true)
            case .failure(let error):
                self.failed(PostgresSession.describe(error))
                done(false)
            }
        }
    }

    private func listening(on connection: PostgresConnection, rescan: () -> Bool) {
        let (active, outageEnded) = state.withLockedValue { state in
            guard !state.cancelled else { return (false, false) }
            state.connection = connection
            state.failures = 0
            defer { state.inOutage = false }
            return (true, state.inOutage)
        }
        guard active else {
            connection.closeInBackground()
            return
        }
        connection.closeFuture.whenComplete { _ in self.dropped(connection) }
        if outageEnded {
            logger.warning("listening for changes again", metadata: ["channel": "\(channel)"])
        }
        if rescan() {
            logger.info("listening again for changes; rescanning", metadata: ["channel": "\(channel)"])
            deliver(.rescan)
        }
    }

    private func dropped(_ connection: PostgresConnection) {
        let current = state.withLockedValue { state in
            guard !state.cancelled, state.connection === connection else { return false }
            state.connection = nil
            return true
        }
        guard current else { return }
        if outageBegins() {
            logger.warning("the connection listening for changes dropped; reconnecting", metadata: ["channel": "\(channel)"])
        }
        retry()
    }

    private func failed(_ reason: String) {
        // Once per outage; each retry's failure at debug level.
        logger.log(
            level: outageBegins() ? .warning : .debug,
            "cannot listen for changes; retrying", metadata: ["channel": "\(channel)", "reason": "\(reason)"]
        )
        retry()
    }

    /// Schedules the next attempt, `.rescan` to follow its success.
    private func retry() {
        let loop = eventLoop
        state.withLockedValue { state in
            guard !state.cancelled else { return }
            let delay = Int64(50) << min(state.failures, 5)
            state.failures += 1
            state.retry = loop.scheduleTask(in: .milliseconds(min(delay, 2000))) {
                self.connect(rescan: { true })
            }
        }
    }

    private func received(_ payload: String) {
        guard let id = try? SceneID(payload) else {
            // Never the payload itself: anyone may send one.
            logger.debug("ignoring a notification that names no scene", metadata: ["bytes": "\(payload.utf8.count)"])
            return
        }
        deliver(.changed(id))
    }

    private func deliver(_ event: SceneStorageEvent) {
        delivering.lock()
        defer { delivering.unlock() }
        guard !state.withLockedValue({ $0.cancelled }) else { return }
        handler(event)
    }
}
#endif
