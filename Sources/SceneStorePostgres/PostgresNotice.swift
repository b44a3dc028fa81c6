#if Postgres
import Foundation
import SceneStore

/// A committed document carried by a notification on the app's document
/// channel (``PostgresNames/documentChannel(app:)``), so that watchers
/// apply it without reading the row: `<scene id>\n` then `t` and the
/// document as it is, when every byte is printable ASCII or a line break
/// (the same text in any server encoding), else `b` and its base64.
/// Documents whose notice would pass ``maxBytes`` are announced by scene
/// id only, and watchers read them. A transaction that changes the scene
/// again after a notice (a delete after a write) sends `<scene id>\n-`:
/// the notice is withdrawn, watchers read.
enum PostgresNotice {
    /// PostgreSQL refuses a payload of 8000 bytes or more.
    static let maxBytes = 7900

    /// The payload announcing `document` as scene `id`'s, or `nil` when it
    /// does not fit.
    static func payload(_ id: SceneID, _ document: Data) -> String? {
        let head = id.rawValue.utf8.count + 2
        let plain = document.withUnsafeBytes { bytes in
            bytes.allSatisfy { (0x20...0x7e).contains($0) || $0 == 0x0a || $0 == 0x09 || $0 == 0x0d }
        }
        if plain {
            guard head + document.count <= maxBytes else { return nil }
            return id.rawValue + "\nt" + String(decoding: document, as: UTF8.self)
        }
        guard head + (document.count + 2) / 3 * 4 <= maxBytes else { return nil }
        return id.rawValue + "\nb" + document.base64EncodedString()
    }

    /// What a notice says.
    enum Content: Equatable {
        /// Scene `id` is now `document`.
        case document(SceneID, Data)
        /// A notice sent before in the same transaction no longer holds
        /// (the transaction changed the scene again): read it.
        case withdrawn(SceneID)
    }

    /// The payload withdrawing a notice of the same transaction.
    static func withdrawal(_ id: SceneID) -> String {
        id.rawValue + "\n-"
    }

    /// What a payload says; `nil` for one that is not a notice (logged by
    /// the caller and ignored).
    static func parse(_ payload: String) -> Content? {
        let bytes = payload.utf8
        guard let newline = bytes.firstIndex(of: 0x0a),
              let id = try? SceneID(String(decoding: bytes[..<newline], as: UTF8.self)) else { return nil }
        let rest = bytes[bytes.index(after: newline)...]
        guard let kind = rest.first else { return nil }
        let body = rest.dropFirst()
        switch kind {
        case UInt8(ascii: "t"): return .document(id, Data(body))
        case UInt8(ascii: "b"): return Data(base64Encoded: String(decoding: body, as: UTF8.self)).map { .document(id, $0) }
        case UInt8(ascii: "-") where body.isEmpty: return .withdrawn(id)
        default: return nil
        }
    }
}
#endif
