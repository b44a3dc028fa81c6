#if Postgres
import Dispatch
import Foundation
import Logging
import NIOCore
import NIOPosix
import PostgresNIO
import SceneStore
import NIOConcurrencyHelpers

/// One open connection, used by one caller at a time, with every call
/// made blocking: ``SceneStorage`` is synchronous and called on the store's
/// own queue. The waiting thread blocks on a semaphore that an event-loop
/// callback signals, so nothing waits on Swift's cooperative pool and a
/// caller on it cannot starve the answer. Every wait is bounded: past its
/// timeout the connection is closed and the call throws
/// ``SceneStoreError/storageUnavailable(location:reason:)``.
final class PostgresSession: Sendable {
    let connection: PostgresConnection
    let location: String
    let timeout: Duration
    let logger: Logger
    /// Whether a call failed because the connection was found closed (a
    /// server restart, a dropped link), not for what it asked.
    var lostConnection: Bool { connectionLost.withLockedValue { $0 } }
    private let connectionLost = NIOLockedValueBox(false)

    private init(connection: PostgresConnection, location: String, timeout: Duration, logger: Logger) {
        self.connection = connection
        self.location = location
        self.timeout = timeout
        self.logger = logger
    }

    /// Connects to `location`, waiting at most its `connect_timeout`, else
    /// `timeout`, in all; `timeout` bounds each later call.
    static func connect(
        to location: PostgresLocation, timeout: Duration, logger: Logger
    ) throws(SceneStoreError) -> PostgresSession {
        let future = PostgresConnection.connect(
            on: PostgresConnection.defaultEventLoopGroup.any(),
            configuration: location.configuration(defaultConnectTimeout: timeout),
            id: connectionIDs.withLockedValue { $0 &+= 1; return $0 },
            logger: logger
        )
        // The connect timeout is the library's; this one only backs it up.
        let connection: PostgresConnection
        do {
            connection = try wait(for: future, timeout: location.connectTimeout(default: timeout) + .seconds(1)) {
                future.whenSuccess { $0.closeInBackground() }
            }
        } catch {
            throw .storageUnavailable(location: location.description, reason: error.reason)
        }
        return PostgresSession(connection: connection, location: location.description, timeout: timeout, logger: logger)
    }

    private static let connectionIDs = NIOLockedValueBox(0)

    /// Runs `query` and collects its rows, waiting at most `timeout` (the
    /// session's by default).
    @discardableResult
    func query(_ query: PostgresQuery, timeout: Duration? = nil) throws(SceneStoreError) -> PostgresQueryResult {
        do {
            return try attempt(query, timeout: timeout)
        } catch {
            throw .storageUnavailable(location: location, reason: error.reason)
        }
    }

    /// Like ``query(_:timeout:)``, but the failure keeps the server's
    /// SQLSTATE, for callers that handle one.
    func attempt(_ query: PostgresQuery, timeout: Duration? = nil) throws(Failure) -> PostgresQueryResult {
        let future = connection.query(query, logger: logger)
        do {
            return try Self.wait(for: future, timeout: timeout ?? self.timeout, closed: connection.closeFuture) { self.close() }
        } catch {
            if error.connectionLost { connectionLost.withLockedValue { $0 = true } }
            throw error
        }
    }

    /// Runs `query` and decodes each row as `Row`.
    func rows<each Column: PostgresDecodable>(
        _ query: PostgresQuery, as _: (repeat each Column).Type
    ) throws(SceneStoreError) -> [(repeat each Column)] {
        let result = try self.query(query)
        var rows: [(repeat each Column)] = []
        for row in result.rows {
            do {
                rows.append(try row.decode((repeat each Column).self))
            } catch {
                throw .storageUnavailable(location: location, reason: "unexpected answer to \(query.sql): \(error)")
            }
        }
        return rows
    }

    /// Closes the connection, waiting for the close (at most 2 s) unless
    /// called on an event loop.
    func close() {
        // The connection must outlive its close (postgres-nio asserts
        // that it is closed before it is freed): the completion holds it,
        // and a caller off the event loops waits for it, briefly.
        let done = DispatchSemaphore(value: 0)
        let connection = connection
        connection.close().whenComplete { _ in
            _ = connection  // held by this closure until the close completed
            done.signal()
        }
        if MultiThreadedEventLoopGroup.currentEventLoop == nil {
            _ = done.wait(timeout: .now() + .seconds(2))
        }
    }

    var isClosed: Bool { connection.isClosed }

    /// Why a call failed: the reason for the log and the error, and the
    /// server's SQLSTATE when it sent one.
    struct Failure: Error {
        let reason: String
        let sqlState: String?
        var connectionLost = false
    }

    /// Blocks until `future` completes or `timeout` passes (then runs
    /// `onTimeout` and throws). With `closed` (the connection's close),
    /// a connection that closes first fails the wait at once: a query sent
    /// as the server ends the connection (`pg_terminate_backend`, a
    /// restart) may otherwise never be answered, and would wait the whole
    /// timeout.
    private static func wait<Value: Sendable>(
        for future: EventLoopFuture<Value>, timeout: Duration, closed: EventLoopFuture<Void>? = nil,
        onTimeout: () -> Void
    ) throws(Failure) -> Value {
        guard MultiThreadedEventLoopGroup.currentEventLoop == nil else {
            throw Failure(reason: "called on an event loop, which would deadlock", sqlState: nil)
        }
        let outcome = NIOLockedValueBox<Result<Value, any Error>?>(nil)
        let closedFirst = NIOLockedValueBox(false)
        let done = DispatchSemaphore(value: 0)
        future.whenComplete { result in
            outcome.withLockedValue { $0 = result }
            done.signal()
        }
        closed?.whenComplete { _ in
            // Queued behind the close on the loop: the query's own answer,
            // if the close brought one, is recorded first and wins.
            future.eventLoop.execute {
                if outcome.withLockedValue({ $0 == nil }) { closedFirst.withLockedValue { $0 = true } }
                done.signal()
            }
        }
        let deadline = DispatchTime.now() + .nanoseconds(Int(clamping: timeout.nanoseconds))
        guard done.wait(timeout: deadline) == .success else {
            onTimeout()
            throw Failure(reason: "no answer within \(timeout)", sqlState: nil)
        }
        if outcome.withLockedValue({ $0 == nil }), closedFirst.withLockedValue({ $0 }) {
            throw Failure(reason: "the connection closed before the server answered", sqlState: nil, connectionLost: true)
        }
        switch outcome.withLockedValue({ $0 }) {
        case .success(let value): return value
        case .failure(let error):
            let code = (error as? PSQLError)?.code
            throw Failure(
                reason: describe(error), sqlState: sqlState(of: error),
                connectionLost: code == .serverClosedConnection || code == .clientClosedConnection
                    || code == .uncleanShutdown
            )
        case nil: throw Failure(reason: "no result", sqlState: nil)
        }
    }

    /// What went wrong, without the query's binds (they may hold a
    /// scene's values) and without PSQLError's deliberately generic text.
    static func describe(_ error: any Error) -> String {
        guard let error = error as? PSQLError else { return String(describing: error) }
        if let info = error.serverInfo {
            let state = info[.sqlState].map { " (SQLSTATE \($0))" } ?? ""
            return (info[.message] ?? "server error") + state
        }
        if let underlying = error.underlying { return "\(error.code): \(underlying)" }
        return error.code.description
    }

    /// The SQLSTATE of a failed query, if the server sent one.
    static func sqlState(of error: any Error) -> String? {
        (error as? PSQLError)?.serverInfo?[.sqlState]
    }
}

extension PostgresSession {
    /// Commits the open transaction.
    /// - Throws: ``SceneStoreError/storageUnavailable(location:reason:)``
    ///   when the server fails or rolled the transaction back instead (a
    ///   statement in it had failed): nothing of it is durable then.
    func commit() throws(SceneStoreError) {
        let result = try query("COMMIT")
        guard result.metadata.command == "COMMIT" else {
            throw .storageUnavailable(location: location, reason: "the transaction was rolled back, not committed")
        }
    }

    /// Rolls the open transaction back; a connection that cannot is closed
    /// (the server then rolls back itself).
    /// - Returns: whether the connection can be used again.
    @discardableResult
    func rollback() -> Bool {
        guard !isClosed else { return false }
        do {
            try query("ROLLBACK")
            return true
        } catch {
            logger.debug("rollback failed; closing the connection", metadata: ["error": "\(error)"])
            close()
            return false
        }
    }
}

extension PostgresConnection {
    /// Closes without waiting. The connection stays referenced until it is
    /// closed: postgres-nio requires that of a connection it releases.
    func closeInBackground() {
        close().whenComplete { _ in withExtendedLifetime(self) {} }
    }
}
#endif
