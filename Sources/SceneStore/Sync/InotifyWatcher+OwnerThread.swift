#if os(Linux)
import Foundation
import Logging

extension InotifyWatcher {
    /// The owner thread's loop and its wd table. Lives on the owner thread only.
    final class OwnerThread {
        /// The instance running on the current thread, if it is the owner thread.
        static var current: OwnerThread? {
            get { Thread.current.threadDictionary[key] as? OwnerThread }
            set { Thread.current.threadDictionary[key] = newValue }
        }
        private static let key = "SceneStore.InotifyWatcher.owner"

        private let watcher: InotifyWatcher
        private var session: LibrarySession
        private var table: InotifyWatchTable

        init(watcher: InotifyWatcher, session: LibrarySession) {
            self.watcher = watcher
            self.session = session
            self.table = InotifyWatchTable(
                addWatch: Self.addWatch(in: session, logger: watcher.logger),
                removeWatch: { wd in session.removeWatch(wd) }
            )
        }

        /// Waits for events and requests until no interest is left and no
        /// request is queued.
        /// - Returns: the replies to send once the library is closed.
        func run() -> [InotifyReply] {
            while true {
                let requests = watcher.coordinator.withLock { $0.takeRequests() }
                let replies = process(requests, replying: false)
                if table.isEmpty {
                    let stopping = watcher.coordinator.withLock { state -> Bool in
                        guard state.requests.isEmpty else { return false }
                        state.phase = .stopping
                        return true
                    }
                    if stopping { return replies }
                    for reply in replies { reply.complete(.success(())) }
                    continue
                }
                for reply in replies { reply.complete(.success(())) }

                var next = session.nextEvent()
                if case .event(let record) = next {
                    // What else is queued is taken before anything is
                    // delivered: a save's rename reports its scene twice
                    // (moved from, moved to), and each report is a read.
                    var deliveries = table.handle(record)
                    next = .wake
                    var taken = 1
                    while taken < Self.batchLimit, let queued = session.nextEventIfQueued() {
                        guard case .event(let record) = queued else {
                            next = queued
                            break
                        }
                        deliveries += table.handle(record)
                        taken += 1
                    }
                    deliver(Self.firstOfEach(deliveries))
                }
                switch next {
                case .wake, .event:
                    continue
                case .failed(let code):
                    watcher.logger.error("inotifytools_next_event failed; reopening inotify", metadata: [
                        "errno": "\(code)",
                    ])
                    reopen()
                }
            }
        }

        /// Processes requests on the owner thread.
        /// - Parameter replying: complete every reply now; otherwise only the
        ///   failed ones, and return the others.
        @discardableResult
        func process(_ requests: [InotifyRequest], replying: Bool = true) -> [InotifyReply] {
            var succeeded: [InotifyReply] = []
            for request in requests {
                switch request {
                case .add(let token, let directory, let handler, let reply):
                    do {
                        try table.add(token: token, directory: directory, handler: handler)
                        succeeded.append(reply)
                    } catch {
                        reply.complete(.failure(error))
                    }
                case .remove(let token, let reply):
                    table.remove(token: token)
                    succeeded.append(reply)
                }
            }
            if replying {
                for reply in succeeded { reply.complete(.success(())) }
                return []
            }
            return succeeded
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

        private func deliver(_ deliveries: [InotifyDelivery]) {
            for delivery in deliveries where table.contains(delivery.token) {
                delivery.handler(delivery.event)
            }
        }

        /// Replaces a library session that failed: re-watches every
        /// directory in a new one and tells every handler to rescan.
        private func reopen() {
            // Callers must not touch the old wake file once it is closed.
            watcher.coordinator.withLock { $0.phase = .starting }
            session.close()
            do {
                session = try LibrarySession.open(logger: watcher.logger)
            } catch {
                watcher.logger.error("cannot reopen inotify; its interests are handed back", metadata: [
                    "reason": "\(error)",
                ])
                deliver(table.deliveriesToAll(.unavailable(reason: "inotify could not be reopened: \(error)")))
                table.removeAll()
                return
            }
            let newSession = session
            watcher.coordinator.withLock { $0.phase = .running(wakeFD: newSession.wakeFD) }
            table = table.rebuilt(
                addWatch: Self.addWatch(in: newSession, logger: watcher.logger),
                removeWatch: { wd in newSession.removeWatch(wd) }
            )
            deliver(table.deliveriesToAll(.rescan))
        }

        /// Adds watches through `session`, logging ancestors that cannot be watched.
        private static func addWatch(
            in session: LibrarySession, logger: Logger
        ) -> (String, InotifyWatchRole) -> Result<Int32, SceneStoreError> {
            { path, role in
                let result = session.addWatch(path: path, role: role)
                if case .failure(let error) = result, role == .ancestor {
                    logger.debug("cannot watch ancestor", metadata: ["error": "\(error)"])
                }
                return result
            }
        }
    }
}
#endif
