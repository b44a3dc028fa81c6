/// Why a ``PathBinding`` refused to save: saving would have erased a path,
/// or elements of one, that another process stored and this one cannot read.
/// Nothing was written.
public enum PathBindingError: Error, Sendable {
    /// The key holds a path this process cannot read at all (a newer
    /// format version, or an element a `.strict` codec refuses).
    case unreadableStoredPath(scene: String, key: String, underlying: any Error)

    /// The key holds elements the codec left out, and the codec has no
    /// element-by-element form to write them back in place (a codec of your
    /// own; the factories' codecs always have one).
    case wouldDropElements(scene: String, key: String, dropped: [String])
}

extension PathBindingError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .unreadableStoredPath(let scene, let key, let underlying):
            "not saving over the path in \(scene)/\(key), which this process cannot read: \(underlying)"
        case .wouldDropElements(let scene, let key, let dropped):
            "not saving over the path in \(scene)/\(key): it would drop \(dropped.count) element(s) "
                + "this process cannot restore (" + dropped.joined(separator: "; ") + ")"
        }
    }
}
