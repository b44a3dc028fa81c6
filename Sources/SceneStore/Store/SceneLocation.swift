import Foundation

/// Where a registry's scenes live.
package enum SceneLocation: Sendable, Hashable, CustomStringConvertible {
    /// A directory holding one file per scene.
    case directory(URL)
    /// A database, named by its URL without a password.
    case database(String)

    /// A path, or a database URL without its password.
    package var description: String {
        switch self {
        case .directory(let url): url.path
        case .database(let url): url
        }
    }
}
