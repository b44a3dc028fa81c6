#if Postgres
import NIOCore
import PostgresNIO
import SceneStore

/// The kept connection ("the line"): statements outside a transaction
/// keep the connection they were lent between calls.
extension PostgresPool {
    /// How long ``withSession(_:)`` keeps a connection of the client's
    /// lent between its calls: a lease costs 0.1 ms here (the client's
    /// state machine, its timers, a task of ours), as much as a statement,
    /// and a save is one statement. Back to back calls (a burst of saves)
    /// take the kept connection with a lock; one that finds it in use
    /// takes a lease of its own. Whoever waits for a lease (a transaction)
    /// comes first: the line goes back to the client as soon as it is
    /// free, and is not kept while anyone waits.
    static let lineIdle: Duration = .seconds(1)

    /// Runs `body`, autocommitted statements (no transaction), on a lent
    /// connection: the kept one (``lineIdle``) when it is free. A
    /// connection kept from before may have died meanwhile (a server
    /// restart): when `body` fails on one because it was closed, it runs
    /// again on the next connection, so `body` must be safe to repeat (a
    /// read, a conditional write).
    func withSession<Result>(
        _ body: (PostgresSession) async throws(SceneStoreError) -> Result
    ) async throws(SceneStoreError) -> Result {
        if let line = takeLine() {
            do throws(SceneStoreError) {
                let result = try await body(line.session)
                let giveBack = state.withLockedValue { state -> Bool in
                    guard state.line === line else { return true }  // closed meanwhile
                    state.lineBusy = false
                    state.lineUsed = .now
                    guard state.waiting > 0 else { return false }
                    state.line = nil
                    return true
                }
                if giveBack { line.release(healthy: true) }
                return result
            } catch {
                dropLine(line)
                guard line.session.lostConnection else { throw error }
            }
        }
        return try await retrying { lease async throws(SceneStoreError) in
            do throws(SceneStoreError) {
                let result = try await body(lease.session)
                keepOrRelease(lease)
                return result
            } catch {
                lease.release(healthy: false)
                throw error
            }
        }
    }

    /// The kept connection, marked in use, if it is there and free.
    private func takeLine() -> PostgresLease? {
        state.withLockedValue { state in
            guard let line = state.line, !state.lineBusy, !line.session.isClosed else { return nil }
            state.lineBusy = true
            return line
        }
    }

    /// A call failed on the kept connection: it is closed, not kept.
    private func dropLine(_ line: PostgresLease) {
        state.withLockedValue { state in
            if state.line === line {
                state.line = nil
                state.lineBusy = false
            }
        }
        line.release(healthy: false)
    }

    /// Keeps `lease` as the line if there is none, else gives it back.
    private func keepOrRelease(_ lease: PostgresLease) {
        let kept = state.withLockedValue { state -> Bool in
            guard state.line == nil, state.waiting == 0, !state.closed, lease.fromClient, !lease.session.isClosed
            else { return false }
            state.line = lease
            state.lineBusy = false
            state.lineUsed = .now
            if state.lineTimer == nil { state.lineTimer = scheduleLineCheck() }
            return true
        }
        if !kept { lease.release(healthy: true) }
    }

    /// Looks every ``lineIdle`` whether the line was unused that long,
    /// and then gives it back to the client.
    private func scheduleLineCheck() -> Scheduled<Void> {
        eventLoop.scheduleTask(in: .nanoseconds(Self.lineIdle.nanoseconds)) {
            let idle = self.state.withLockedValue { state -> PostgresLease? in
                state.lineTimer = nil
                guard let line = state.line else { return nil }
                if !state.lineBusy, ContinuousClock.now - state.lineUsed >= Self.lineIdle {
                    state.line = nil
                    return line
                }
                state.lineTimer = self.scheduleLineCheck()
                return nil
            }
            idle?.release(healthy: true)
        }
    }
}
#endif
