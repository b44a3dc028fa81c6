/// Fan-out of scene updates to any number of subscribers, in order.
///
/// The store calls ``enqueue(_:)`` and ``register(_:initial:)`` while holding
/// its own lock, so the order of updates is the order of state changes. The
/// actual yields happen in ``Locked/deliver(_:)``, called after the store
/// released its lock; one thread at a time drains the outbox, so every
/// subscriber sees updates in order even when several threads change the
/// scene at once.
struct Broadcast: Sendable {
    /// A registered consumer: yields updates to its continuation, finishes it.
    struct Subscriber: Sendable {
        /// Receives the updates of one state transition, in order.
        let receive: @Sendable ([SceneUpdate]) -> Void
        let finish: @Sendable () -> Void
    }

    fileprivate enum Delivery {
        case updates([SceneUpdate], to: [Subscriber])
        case finish([Subscriber])
    }

    private var subscribers: [UInt64: Subscriber] = [:]
    private var nextID: UInt64 = 0
    private var outbox: [Delivery] = []
    private var draining = false

    var count: Int { subscribers.count }

    /// Adds a subscriber; `initial` updates go to it alone, before anything
    /// enqueued later.
    mutating func register(_ subscriber: Subscriber, initial: [SceneUpdate] = []) -> UInt64 {
        nextID += 1
        subscribers[nextID] = subscriber
        if !initial.isEmpty {
            outbox.append(.updates(initial, to: [subscriber]))
        }
        return nextID
    }

    mutating func unregister(_ id: UInt64) {
        subscribers[id] = nil
    }

    /// Whether nobody is subscribed (enqueued updates would go nowhere).
    var isEmpty: Bool { subscribers.isEmpty }

    /// Whether updates or ends wait to be delivered (``Locked/deliver(_:)``).
    var hasDeliveries: Bool { !outbox.isEmpty }

    /// Enqueues the updates of one state transition, delivered together;
    /// a `.changed` with no change is left out. `updates` is evaluated only
    /// when someone is subscribed: whatever changes state is computed
    /// before the call.
    mutating func enqueue(_ updates: @autoclosure () -> [SceneUpdate]) {
        // Built only for someone to tell: a set with no stream open makes no update.
        guard !subscribers.isEmpty else { return }
        let updates = updates().filter { $0 != .changed([]) }
        guard !updates.isEmpty else { return }
        outbox.append(.updates(updates, to: Array(subscribers.values)))
    }

    /// Finishes every current subscriber (after what is already enqueued)
    /// and forgets them.
    mutating func finishAll() {
        guard !subscribers.isEmpty else { return }
        outbox.append(.finish(Array(subscribers.values)))
        subscribers = [:]
    }

    /// Takes the next batch to deliver, or `nil` if another thread is
    /// draining or there is nothing to do. Call under the owner's lock.
    fileprivate mutating func takeBatch(continuing: Bool) -> [Delivery]? {
        if !continuing && draining { return nil }
        guard !outbox.isEmpty else {
            draining = false
            return nil
        }
        draining = true
        defer { outbox = [] }
        return outbox
    }
}

extension Locked {
    /// Delivers what `broadcast` has queued, outside the lock.
    func deliver(_ broadcast: WritableKeyPath<State, Broadcast>) {
        var continuing = false
        while let batch = withLock({ $0[keyPath: broadcast].takeBatch(continuing: continuing) }) {
            continuing = true
            for delivery in batch {
                switch delivery {
                case .updates(let updates, let targets):
                    for target in targets { target.receive(updates) }
                case .finish(let targets):
                    for target in targets { target.finish() }
                }
            }
        }
    }
}
