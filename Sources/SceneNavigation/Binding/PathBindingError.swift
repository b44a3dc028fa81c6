/// Why a ``PathBinding`` refused to save: saving would have erased a path,
/// or elements of one, that another process stored and this one cannot read.
/// Nothing was written.
public enum PathBindingError: Error, Sendable {
    /// The key holds a path this process cannot read at all (a newer
    /// format version, or an element a `.strict` codec refuses).
    case unreadableStoredPath(scene: String, key: String, underlying: any Error)
}

extension PathBindingError: CustomStringConvertible {
    /// The scene, the key and why the stored path could not be read, as a
    /// log line states them.
    public var description: String {
        switch self {
        case .unreadableStoredPath(let scene, let key, let underlying):
            "not saving over the path in \(scene)/\(key), which this process cannot read: \(underlying)"
        }
    }
}
