#if os(Linux)
internal import CSceneSupport
import Dispatch
import Glibc

extension InotifyWatcher {
    /// The owner thread's loop: reads events from `session` until no interest
    /// is left (the last one cancelled, or all handed back after a failed
    /// read), then closes it. Signals `named` once the thread is named.
    func runOwnerThread(_ session: LibrarySession, named: DispatchSemaphore) {
        // Named by the kernel call itself: Foundation's `Thread.name`
        // setter names the thread it believes is current, which is not
        // always this one.
        _ = scenestore_name_this_thread(WatcherKind.inotifyThreadName)
        named.signal()
        state.withLock { $0.owner = pthread_self() }
        // Interests given up after a failure, dropped once told.
        var handedBack: [InotifyDelivery] = []
        while true {
            let stopped = state.withLock { state in
                for delivery in handedBack { state.running?.table.remove(token: delivery.token) }
                guard state.running?.table.isEmpty == true else { return false }
                // Closed under the lock: a `watch` opens the next session
                // only after this one is gone.
                session.close()
                state.running = nil
                state.owner = nil
                return true
            }
            if stopped { return }
            handedBack = []
            var next = session.nextEvent()
            var deliveries: [InotifyDelivery] = []
            state.withLock { state in
                // What else is queued is taken before anything is
                // delivered: a save's rename reports its scene twice
                // (moved from, moved to), and each report is a read.
                var taken = 0
                while case .event(let record) = next {
                    deliveries += state.running?.table.handle(record) ?? []
                    taken += 1
                    guard taken < Self.batchLimit, let queued = session.nextEventIfQueued() else { break }
                    next = queued
                }
            }
            // An interest whose directory cannot be watched any more (the
            // watch limit reached) is handed back, as after a failure.
            handedBack = deliveries.filter { delivery in
                if case .unavailable = delivery.event { true } else { false }
            }
            deliveries.removeAll { delivery in
                if case .unavailable = delivery.event { true } else { false }
            }
            if case .failed(let code) = next {
                let reason = "inotifytools_next_event failed: \(String(cString: strerror(code))) (errno \(code))"
                logger.error("inotify failed; its interests are handed back", metadata: ["reason": "\(reason)"])
                handedBack = state.withLock { $0.running?.table.deliveriesToAll(.unavailable(reason: reason)) ?? [] }
            }
            deliver(Self.firstOfEach(deliveries) + handedBack)
        }
    }

    /// Calls the handlers whose interest is still registered, one at a time,
    /// holding `delivering` so that `cancel` can wait for the batch to end.
    private func deliver(_ deliveries: [InotifyDelivery]) {
        delivering.withLock {
            for delivery in deliveries where state.withLock({ $0.running?.table.contains(delivery.token) == true }) {
                delivery.handler(delivery.event)
            }
        }
    }

    /// The most events taken in one batch before delivering.
    static let batchLimit = 256

    /// `deliveries` without the repeats of a `.changed` delivery to the
    /// same interest: the first one makes the receiver re-read the entry
    /// after every event of the batch happened, so later ones would
    /// only read it again. Other events and their order are kept.
    static func firstOfEach(_ deliveries: [InotifyDelivery]) -> [InotifyDelivery] {
        guard deliveries.count > 1 else { return deliveries }
        var seen = Set<ChangeKey>()
        return deliveries.filter { delivery in
            guard case .changed(let name) = delivery.event else { return true }
            return seen.insert(ChangeKey(token: delivery.token, name: name)).inserted
        }
    }

    private struct ChangeKey: Hashable {
        let token: UInt64
        let name: String
    }
}
#endif
