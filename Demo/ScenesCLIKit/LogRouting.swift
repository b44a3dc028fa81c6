import Foundation
import Logging
import SceneStore
#if canImport(Glibc)
import Glibc
#endif

/// Where the commands' logs go: stderr, or, while a full-screen session
/// owns the terminal, a log file (a warning printed over the screen would
/// garble it). The latest warning is kept for the session's status line.
package enum LogRouting {
    private struct State {
        /// The open log file, while logs go to one.
        var file: FileHandle?
        var latestWarning: String?
    }

    private static let state = Locked(State())

    /// The handler every logger of the process uses (see `runCommandLine`).
    static func handler(label: String, level: Logger.Level) -> any LogHandler {
        var handler = RoutedHandler(fallback: StreamLogHandler.standardError(label: label))
        handler.logLevel = level
        return handler
    }

    /// Sends logs to `file` (created 0600, its folder 0700, appended to)
    /// until ``toStandardError()``.
    /// - Throws: when the file cannot be opened; logs then stay on stderr.
    package static func toFile(_ file: URL) throws {
        try FileManager.default.createDirectory(
            at: file.deletingLastPathComponent(), withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700])
        let fd = open(file.path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: file.path]) }
        let handle = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
        state.withLock { $0.file = handle }
    }

    /// Sends logs to stderr again.
    package static func toStandardError() {
        state.withLock { $0.file = nil }
    }

    /// The message of the last warning (or worse) logged since logs went
    /// to a file.
    package static var latestWarning: String? { state.withLock { $0.latestWarning } }

    fileprivate static func write(_ line: String, message: String, level: Logger.Level) -> Bool {
        state.withLock { state in
            guard let file = state.file else { return false }
            if level >= .warning { state.latestWarning = message }
            file.write(Data((line + "\n").utf8))
            return true
        }
    }
}

/// Writes to the log file while there is one, else to stderr.
private struct RoutedHandler: LogHandler {
    var fallback: StreamLogHandler
    var metadata: Logger.Metadata {
        get { fallback.metadata }
        set { fallback.metadata = newValue }
    }
    var logLevel: Logger.Level {
        get { fallback.logLevel }
        set { fallback.logLevel = newValue }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { fallback[metadataKey: key] }
        set { fallback[metadataKey: key] = newValue }
    }

    /// Writes `event` terminal-safe: control characters of its message,
    /// metadata and error escaped (a scene name read from a database may
    /// hold escape sequences), on stderr as on the session's status line.
    func log(event: LogEvent) {
        func safe(_ text: String) -> String { text.escapingControlCharacters(andBackslash: false) }
        var metadata = (event.metadata ?? [:]).merging(self.metadata) { explicit, _ in explicit }
        if let error = event.error { metadata["error"] = "\(error)" }
        let escaped = Dictionary(metadata.map { (safe($0.key), Logger.MetadataValue.string(safe("\($0.value)"))) }) { first, _ in first }
        let message = safe(event.message.description)
        let details = escaped.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        let line = "\(Date().ISO8601Format()) \(event.level) \(message)" + (details.isEmpty ? "" : " \(details)")
        guard !LogRouting.write(line, message: message, level: event.level) else { return }
        var event = event
        (event.message, event.metadata, event.error) = ("\(message)", escaped, nil)
        fallback.log(event: event)
    }
}
