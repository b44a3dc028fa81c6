import Foundation
import SceneStore

extension PathBinding {
    /// The path the key holds, each time another process changes it or the
    /// scene is discarded: decoded when the consumer reads it, so a consumer
    /// that falls behind skips to the latest path and never sees an older
    /// one after a newer. A removed key or a discarded scene reads as the
    /// empty path (no element, an empty history). Finishes when the store
    /// closes or the consuming task is cancelled.
    public func externalChanges() -> AsyncStream<RestoredPath<Path>> {
        let signals = store.changeSignals(for: [key], includingLocal: false)
        // `AsyncStream(unfolding:)` calls its closure one call at a time:
        // the iterator is never used concurrently.
        nonisolated(unsafe) var signal = signals.makeAsyncIterator()
        // Cancelling the consumer cancels its wait for a signal, which ends
        // the signals and their subscription.
        return AsyncStream {
            while await signal.next() != nil {
                if let current = current() { return current }
            }
            return nil
        }
    }

    /// The path the key holds now; the codec's empty path when it holds
    /// none, `nil` when the stored data does not decode (logged).
    func current() -> RestoredPath<Path>? {
        guard let data = store.value(forKey: key, as: Data.self) else {
            return RestoredPath(path: codec.empty, dropped: [])
        }
        return decode(data)
    }
}
