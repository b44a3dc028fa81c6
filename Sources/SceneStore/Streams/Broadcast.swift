/// Fan-out of scene events to any number of subscribers, in order.
///
/// The store calls ``enqueue(_:)`` and ``register(_:initial:)`` while holding
/// its own lock, so the order of events is the order of state changes. The
/// actual yields happen in ``deliver()``, called after the store released its
/// lock; one thread at a time drains the outbox, so every subscriber sees
/// events in order even when several threads change the scene at once.
struct Broadcast: Sendable {
    /// A registered consumer: yields events to its continuation, finishes it.
    struct Subscriber: Sendable {
        /// Receives the events of one state transition, in order.
        let receive: @Sendable ([SceneEvent]) -> Void
        let finish: @Sendable () -> Void
    }

    fileprivate enum Delivery {
        case events([SceneEvent], to: [Subscriber])
        case finish([Subscriber])
    }

    private var subscribers: [UInt64: Subscriber] = [:]
    private var nextID: UInt64 = 0
    private var outbox: [Delivery] = []
    private var draining = false

    var count: Int { subscribers.count }

    /// Adds a subscriber; `initial` events go to it alone, before anything
    /// enqueued later.
    mutating func register(_ subscriber: Subscriber, initial: [SceneEvent] = []) -> UInt64 {
        nextID += 1
        subscribers[nextID] = subscriber
        if !initial.isEmpty {
            outbox.append(.events(initial, to: [subscriber]))
        }
        return nextID
    }

    mutating func unregister(_ id: UInt64) {
        subscribers[id] = nil
    }

    /// Enqueues the events of one state transition, delivered together.
    /// Whether nobody is subscribed (enqueued events would go nowhere).
    var isEmpty: Bool { subscribers.isEmpty }

    /// Whether events or ends wait to be delivered (``Locked/deliver(_:)``).
    var hasDeliveries: Bool { !outbox.isEmpty }

    mutating func enqueue(_ events: @autoclosure () -> [SceneEvent]) {
        // Built only for someone to tell: a set with no stream open makes no event.
        guard !subscribers.isEmpty else { return }
        let events = events()
        guard !events.isEmpty else { return }
        outbox.append(.events(events, to: Array(subscribers.values)))
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
                case .events(let events, let targets):
                    for target in targets { target.receive(events) }
                case .finish(let targets):
                    for target in targets { target.finish() }
                }
            }
        }
    }
}
