import Logging
import SceneStore

/// Every message a logger built on it received, with its level.
final class LogCapture: Sendable {
    private let lines = Locked<[(level: Logger.Level, message: String)]>([])

    var entries: [(level: Logger.Level, message: String)] { lines.withLock { $0 } }

    func warnings() -> [String] { entries.filter { $0.level == .warning }.map(\.message) }

    /// A logger whose messages land here.
    func logger() -> Logger {
        Logger(label: "test") { _ in Handler(capture: self) }
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
