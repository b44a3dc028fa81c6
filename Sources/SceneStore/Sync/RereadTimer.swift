/// Where no watcher serves (a network file system, whose writes made on
/// other machines inotify never sees; inotify's limits; a platform without
/// it): every `interval`, on the registry's clock, `tick` asks for every
/// open scene to be read again (``SceneStorageEvent/rescan``). A reading of
/// a scene nobody changed reads its first bytes and the few where its log
/// ends; a save of any size, appended or written whole, changes one of
/// them, however coarse the file system's timestamps.
final class RereadTimer: Sendable {
    let interval: Duration
    /// Taken around each tick: once ``cancel()`` returns, none runs.
    private let cancelled: Locked<Bool>
    private let task: Task<Void, Never>

    /// - Parameter interval: raised to a millisecond at least.
    init(interval: Duration, clock: SceneClock, tick: @escaping @Sendable () -> Void) {
        let interval = max(interval, .milliseconds(1))
        self.interval = interval
        let cancelled = Locked(false)
        self.cancelled = cancelled
        task = Task {
            var next = clock.now + interval
            while (try? await clock.sleep(until: next)) != nil {
                let stopped = cancelled.withLock { stopped in
                    if !stopped { tick() }
                    return stopped
                }
                if stopped { return }
                next = max(next + interval, clock.now)
            }
        }
    }

    func cancel() {
        cancelled.withLock { $0 = true }
        task.cancel()
    }

    deinit { cancel() }
}
