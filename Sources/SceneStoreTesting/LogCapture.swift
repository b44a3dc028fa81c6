import Logging
import SceneStore

/// Keeps every message a logger built on it receives, so a test can check
/// what SceneStore logged (pass ``logger(label:)`` in the registry's
/// configuration).
public final class LogCapture: Sendable {
    private let lines = Locked<[(level: Logger.Level, message: String)]>([])

    /// An empty capture.
    public init() {}

    /// Each message with its level, oldest first; metadata follows the message.
    public var entries: [(level: Logger.Level, message: String)] { lines.withLock { $0 } }

    /// Every message, oldest first.
    public var messages: [String] { entries.map(\.message) }

    /// The messages logged at `.warning`.
    public func warnings() -> [String] { entries.filter { $0.level == .warning }.map(\.message) }

    /// A logger, at `.trace`, whose messages land here.
    public func logger(label: String = "test") -> Logger {
        Logger(label: label) { _ in Handler(capture: self) }
    }

    private struct Handler: LogHandler {
        let capture: LogCapture
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            capture.lines.withLock { $0.append((event.level, "\(event.message) \(event.metadata ?? [:])")) }
        }
    }
}
