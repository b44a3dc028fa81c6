#if Postgres
import Dispatch
import Foundation
import Logging
import NIOCore
import NIOPosix
import PostgresNIO
import SceneStore
import NIOConcurrencyHelpers

/// One open connection, used by one caller at a time. Every call is
/// `async` and suspends (no thread waits) until the server answers, the
/// connection closes or the call's timeout passes: then the connection is
/// closed and the call throws
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
    let closes: CloseWatch

    init(connection: PostgresConnection, location: String, timeout: Duration, logger: Logger) {
        self.connection = connection
        self.location = location
        self.timeout = timeout
        self.logger = logger
        self.closes = CloseWatch(connection)
    }

    /// Connects to `location`, waiting at most its `connect_timeout`, else
    /// `timeout`, in all; `timeout` bounds each later call.
    static func connect(
        to location: PostgresLocation, on eventLoop: any EventLoop = PostgresConnection.defaultEventLoopGroup.any(),
        timeout: Duration, lockTimeout: Duration? = nil, logger: Logger
    ) async throws(SceneStoreError) -> PostgresSession {
        // The future, not the async overload: the wait below bounds it.
        let future = location.connect(
            on: eventLoop, timeout: timeout, lockTimeout: lockTimeout,
            id: connectionIDs.withLockedValue { $0 &+= 1; return $0 }, logger: logger)
        // The connect timeout is the library's; this one only backs it up.
        let connection: PostgresConnection
        do {
            connection = try await wait(for: future, timeout: location.connectTimeout(default: timeout) + .seconds(1)) {
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
    func query(_ query: PostgresQuery, timeout: Duration? = nil) async throws(SceneStoreError) -> PostgresQueryResult {
        do {
            return try await attempt(query, timeout: timeout)
        } catch {
            throw .storageUnavailable(location: location, reason: error.reason)
        }
    }

    /// Like ``query(_:timeout:)``, but the failure keeps the server's
    /// SQLSTATE, for callers that handle one.
    func attempt(_ query: PostgresQuery, timeout: Duration? = nil) async throws(Failure) -> PostgresQueryResult {
        let future: EventLoopFuture<PostgresQueryResult> = connection.query(query, logger: logger)
        do {
            return try await Self.wait(for: future, timeout: timeout ?? self.timeout, closes: closes) { self.close() }
        } catch {
            if error.connectionLost { connectionLost.withLockedValue { $0 = true } }
            throw error
        }
    }

    /// Runs `query` and decodes each row as `Row`.
    func rows<each Column: PostgresDecodable>(
        _ query: PostgresQuery, as _: (repeat each Column).Type
    ) async throws(SceneStoreError) -> [(repeat each Column)] {
        let result = try await self.query(query)
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

    /// Closes the connection without waiting.
    func close() {
        connection.closeInBackground()
    }

    var isClosed: Bool { connection.isClosed }

    /// Why a call failed: the reason for the log and the error, and the
    /// server's SQLSTATE when it sent one.
    struct Failure: Error {
        let reason: String
        let sqlState: String?
        var connectionLost = false
    }

    /// Waits until `future` completes or `timeout` passes (then runs
    /// `onTimeout` and throws). With `closes` (the connection's), a
    /// connection that closes first fails the wait at once: a query sent
    /// as the server ends the connection (`pg_terminate_backend`, a
    /// restart) may otherwise never be answered, and would wait the whole
    /// timeout. The task suspends meanwhile; no thread waits.
    private static func wait<Value: Sendable>(
        for future: EventLoopFuture<Value>, timeout: Duration, closes: CloseWatch? = nil,
        onTimeout: () -> Void
    ) async throws(Failure) -> Value {
        let outcome = await withCheckedContinuation { (continuation: CheckedContinuation<Outcome<Value>, Never>) in
            let pending = NIOLockedValueBox<CheckedContinuation<Outcome<Value>, Never>?>(continuation)
            let finish: @Sendable (Outcome<Value>) -> Void = { outcome in
                pending.withLockedValue { pending in
                    defer { pending = nil }
                    return pending
                }?.resume(returning: outcome)
            }
            let timer = future.eventLoop.scheduleTask(in: TimeAmount(timeout)) {
                finish(.timedOut)
            }
            let watch = closes?.add { finish(.closedFirst) }
            future.whenComplete { result in
                timer.cancel()
                if let watch { closes?.remove(watch) }
                finish(.answered(result))
            }
        }
        switch outcome {
        case .timedOut:
            onTimeout()
            throw Failure(reason: "no answer within \(timeout)", sqlState: nil)
        case .closedFirst:
            throw Failure(reason: "the connection closed before the server answered", sqlState: nil, connectionLost: true)
        case .answered(.success(let value)):
            return value
        case .answered(.failure(let error)):
            let sqlState = (error as? PSQLError)?.serverInfo?[.sqlState]
            throw Failure(reason: describe(error), sqlState: sqlState, connectionLost: isConnectionLoss(error))
        }
    }

    /// How a ``wait(for:timeout:closes:onTimeout:)`` ended.
    private enum Outcome<Value: Sendable>: Sendable {
        case answered(Result<Value, any Error>)
        case closedFirst
        case timedOut
    }

    /// What went wrong: what the server said (its message and SQLSTATE),
    /// also where postgres-nio wraps it in the error of a connection that
    /// was closing (a restart: `clientClosedConnection: terminating
    /// connection due to administrator command (SQLSTATE 57P01)`), or the
    /// connection's error; never the query's binds (they may hold a
    /// scene's values) nor PSQLError's deliberately generic text.
    static func describe(_ error: any Error) -> String {
        guard let error = error as? PSQLError else { return String(describing: error) }
        if let info = error.serverInfo {
            let state = info[.sqlState].map { " (SQLSTATE \($0))" } ?? ""
            return (info[.message] ?? "server error") + state
        }
        if let underlying = error.underlying { return "\(error.code): \(describe(underlying))" }
        return error.code.description
    }

    /// Whether `error` is postgres-nio's for a connection found closed (by
    /// the server, by this side, or uncleanly), not for what was asked.
    static func isConnectionLoss(_ error: any Error) -> Bool {
        let code = (error as? PSQLError)?.code
        return code == .serverClosedConnection || code == .clientClosedConnection || code == .uncleanShutdown
    }
}

extension PostgresSession {
    /// Runs `statement`, prepared on this connection the first time (then
    /// only bound and run: the server parses and plans it once), and
    /// collects its rows, waiting at most the session's timeout: then the
    /// connection is closed and the call throws.
    func execute<Statement: PostgresPreparedStatement>(
        _ statement: Statement
    ) async throws(SceneStoreError) -> [Statement.Row] where Statement.Row: Sendable {
        let timedOut = NIOLockedValueBox(false)
        let timer = connection.eventLoop.scheduleTask(in: TimeAmount(timeout)) {
            timedOut.withLockedValue { $0 = true }
            self.close()
        }
        defer { timer.cancel() }
        do {
            var rows: [Statement.Row] = []
            for try await row in try await connection.execute(statement, logger: logger) { rows.append(row) }
            return rows
        } catch {
            if timedOut.withLockedValue({ $0 }) {
                throw .storageUnavailable(location: location, reason: "no answer within \(timeout)")
            }
            if Self.isConnectionLoss(error) { connectionLost.withLockedValue { $0 = true } }
            throw .storageUnavailable(location: location, reason: Self.describe(error))
        }
    }

    /// Commits the open transaction.
    /// - Throws: ``SceneStoreError/storageUnavailable(location:reason:)``
    ///   when the server fails or rolled the transaction back instead (a
    ///   statement in it had failed): nothing of it is durable then.
    func commit() async throws(SceneStoreError) {
        let result = try await query("COMMIT")
        guard result.metadata.command == "COMMIT" else {
            throw .storageUnavailable(location: location, reason: "the transaction was rolled back, not committed")
        }
    }

    /// Rolls the open transaction back; a connection that cannot is closed
    /// (the server then rolls back itself).
    /// - Returns: whether the connection can be used again.
    @discardableResult
    func rollback() async -> Bool {
        guard !isClosed else { return false }
        do {
            try await query("ROLLBACK")
            return true
        } catch {
            logger.debug("rollback failed; closing the connection", metadata: ["error": "\(error)"])
            close()
            return false
        }
    }
}

/// The calls waiting on one connection, failed once it closes: one
/// callback on the connection's close for the session, where one per call
/// stayed registered until the connection closed (about 1 KiB a call:
/// 194 MB after 200,000 queries on one connection, measured in a debug
/// build).
final class CloseWatch: Sendable {
    private let loop: any EventLoop
    private let waiting = NIOLockedValueBox((closed: false, next: 0, calls: [Int: @Sendable () -> Void]()))

    init(_ connection: PostgresConnection) {
        loop = connection.eventLoop
        connection.closeFuture.whenComplete { [waiting, loop] _ in
            let calls = waiting.withLockedValue { waiting in
                waiting.closed = true
                defer { waiting.calls = [:] }
                return Array(waiting.calls.values)
            }
            // Queued behind the close on the loop: a call's own answer, if
            // the close brought one, comes first and wins.
            loop.execute { for fail in calls { fail() } }
        }
    }

    /// Calls `fail` once the connection closes (at once if it has).
    /// - Returns: what ``remove(_:)`` takes once the call is answered.
    func add(_ fail: @escaping @Sendable () -> Void) -> Int? {
        let id = waiting.withLockedValue { waiting -> Int? in
            guard !waiting.closed else { return nil }
            waiting.next += 1
            waiting.calls[waiting.next] = fail
            return waiting.next
        }
        if id == nil { loop.execute(fail) }
        return id
    }

    func remove(_ id: Int) {
        waiting.withLockedValue { _ = $0.calls.removeValue(forKey: id) }
    }

    /// How many calls wait (for the tests).
    var count: Int { waiting.withLockedValue { $0.calls.count } }
}

extension PostgresConnection {
    /// Closes without waiting. The connection stays referenced until it is
    /// closed: postgres-nio requires that of a connection it releases.
    func closeInBackground() {
        close().whenComplete { _ in withExtendedLifetime(self) {} }
    }
}
#endif
