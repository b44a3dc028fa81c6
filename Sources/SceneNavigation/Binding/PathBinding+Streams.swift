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
        let reader = SignalReader(signals)
        let empty = emptyPath
        // Cancelling the consumer cancels its wait for a signal, which ends
        // the signals and their subscription.
        return AsyncStream {
            while await reader.next() {
                if let current = current(empty: empty) { return current }
            }
            return nil
        }
    }

    /// The path the key holds now; `empty` when it holds none, `nil` when
    /// that is unknown or the stored data does not decode (logged).
    func current(empty: Path?) -> RestoredPath<Path>? {
        guard let data = store.value(forKey: key, as: Data.self) else {
            return empty.map { RestoredPath(path: $0, dropped: []) }
        }
        return decode(data)
    }
}

/// Reads a signal stream from `AsyncStream(unfolding:)`, which calls its
/// closure one call at a time: the iterator is never used concurrently.
private final class SignalReader: @unchecked Sendable {
    private var iterator: AsyncStream<Void>.Iterator

    init(_ stream: AsyncStream<Void>) {
        iterator = stream.makeAsyncIterator()
    }

    /// Waits for the next signal; `false` once the signals finished.
    func next() async -> Bool {
        await iterator.next() != nil
    }
}
