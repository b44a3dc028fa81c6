import Foundation
import SceneStore
#if canImport(Glibc)
import Glibc
#endif

/// A scene as `show --json` prints it.
struct SceneDump: Encodable {
    let scene: String
    let generation: UInt64
    let values: [String: SceneValue]
}
