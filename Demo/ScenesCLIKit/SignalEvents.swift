import Dispatch
import Foundation

/// Turns SIGINT, SIGTERM and SIGHUP (and optionally SIGWINCH) into calls
/// of a handler on a dispatch queue, so that the session's loop can flush
/// the scene and restore the terminal before the process exits.
package final class SignalEvents {
    /// The signals that end a session.
    package static let terminating: [Int32] = [SIGINT, SIGTERM, SIGHUP]

    private let sources: [any DispatchSourceSignal]

    /// Starts delivering `signals` to `handler`; their default action
    /// (terminating the process at once) is disabled until ``cancel()``.
    package init(_ signals: [Int32], handler: @escaping @Sendable (Int32) -> Void) {
        sources = signals.map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { handler(number) }
            source.resume()
            return source
        }
    }

    /// Stops delivering and restores the default actions.
    package func cancel() {
        for source in sources {
            source.cancel()
            signal(Int32(source.handle), SIG_DFL)
        }
    }
}
