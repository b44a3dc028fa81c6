/// Why a model kept with a ``SceneCodableKey`` could not be read or written.
/// Each case names the key; none of them changes what is stored.
public enum SceneCodableError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The key holds a value of another kind than `Data`.
    case wrongKind(key: String, stored: SceneValue.Kind)
    /// The key holds `Data` that is not a stored model (not the JSON
    /// document ``SceneCodableKey`` writes).
    case notAModel(key: String)
    /// The key holds a model stored under another tag.
    case tagMismatch(key: String, stored: String, expected: String)
    /// The key holds a model of a newer schema version than the key reads.
    case newerSchema(key: String, tag: String, stored: Int, supported: Int)
    /// The model's JSON no longer decodes as the key's type.
    case undecodable(key: String, tag: String, version: Int, reason: String)
    /// A migration step threw: the model stored at `version` could not be
    /// carried to the next version. Nothing is written.
    case migrationFailed(key: String, tag: String, version: Int, reason: String)
    /// The model could not be encoded (for example a `Double` that is not a number).
    case unencodable(key: String, tag: String, reason: String)
    /// The store refused the write (a limit, a closed store).
    case store(SceneStoreError)

    public var description: String {
        switch self {
        case .wrongKind(let key, let stored):
            "key \(key.debugDescription) holds a \(stored.rawValue), not a stored model"
        case .notAModel(let key):
            "key \(key.debugDescription) holds data that is not a stored model"
        case .tagMismatch(let key, let stored, let expected):
            "key \(key.debugDescription) holds a model tagged \(stored.debugDescription), not \(expected.debugDescription)"
        case .newerSchema(let key, let tag, let stored, let supported):
            "key \(key.debugDescription) holds \(tag.debugDescription) version \(stored); this code reads up to version \(supported)"
        case .undecodable(let key, let tag, let version, let reason):
            "key \(key.debugDescription) holds \(tag.debugDescription) version \(version) that no longer decodes: \(reason)"
        case .migrationFailed(let key, let tag, let version, let reason):
            "key \(key.debugDescription) holds \(tag.debugDescription) version \(version) that could not be migrated: \(reason)"
        case .unencodable(let key, let tag, let reason):
            "\(tag.debugDescription) for key \(key.debugDescription) could not be encoded: \(reason)"
        case .store(let error):
            error.description
        }
    }
}
