#if Postgres
import SceneStore

/// The names and numbers by which processes sharing a database agree on
/// an app's channel and a scene's lock. They are part of the schema: a
/// change here makes old and new processes miss each other's locks.
enum PostgresNames {
    /// The `LISTEN`/`pg_notify` channel of `app`: `scenestore_` and 16 hex
    /// digits of the app id's hash, always a valid identifier shorter than
    /// PostgreSQL's 63-byte limit, whatever the app id. Another app whose
    /// id hashes alike only causes extra re-reads.
    static func channel(app: String) -> String {
        let hash = fnv1a(["scenestore channel", app])
        let hex = String(hash, radix: 16)
        return "scenestore_" + String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// The 64-bit advisory lock key of scene `scene` of `app`.
    static func lockKey(app: String, scene: SceneID) -> Int64 {
        Int64(bitPattern: fnv1a(["scenestore scene", app, scene.rawValue]))
    }

    /// The session-level advisory lock key a process holds while it has
    /// window scene `scene` of `app` open (its claim).
    static func claimKey(app: String, scene: SceneID) -> Int64 {
        Int64(bitPattern: fnv1a(["scenestore claim", app, scene.rawValue]))
    }

    /// The advisory lock key held while the schema is created.
    static let schemaLockKey = Int64(bitPattern: fnv1a(["scenestore schema"]))

    /// FNV-1a (64 bits) of the UTF-8 of `parts`, each followed by a NUL
    /// (which no part can hold), so that parts never run into each other.
    static func fnv1a(_ parts: [String]) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for part in parts {
            for byte in part.utf8 {
                hash = (hash ^ UInt64(byte)) &* prime
            }
            hash = hash &* prime

        }
        return hash
    }

    private static let prime: UInt64 = 0x0000_0100_0000_01b3
}
#endif
