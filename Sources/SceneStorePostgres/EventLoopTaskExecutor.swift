#if Postgres
import NIOCore

/// A SwiftNIO event loop as a task executor: a store's work on PostgreSQL
/// runs on the loop its storage's connections live on
/// (``PostgresSceneStorage/workExecutor``). A save then writes its statement
/// to the connection and takes up the answer on that one thread: no other
/// thread is woken between the two, where the cooperative pool or a queue
/// would be woken twice. The work only suspends, never blocks (a blocked
/// loop would stall its connections); its CPU work, encoding and parsing a
/// scene, is bounded by the registry's limits.
final class EventLoopTaskExecutor: TaskExecutor {
    let eventLoop: any EventLoop

    init(_ eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        eventLoop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
#endif
