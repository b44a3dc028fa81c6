#if Postgres
import Synchronization

/// Errors collected from threads a test started.
final class Failures: Sendable {
    private let errors = Mutex<[any Error]>([])

    func record(_ error: any Error) {
        errors.withLock { $0.append(error) }
    }

    var all: [any Error] { errors.withLock { $0 } }
}
#endif
