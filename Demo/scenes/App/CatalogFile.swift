import Foundation

/// The Library catalog on disk: `<root>/catalog/library.json`, in a folder
/// of its own so that it is never mistaken for a scene file.
struct CatalogFile: Sendable {
    let url: URL

    init(root: URL) {
        url = root.appendingPathComponent("catalog", isDirectory: true)
            .appendingPathComponent("library.json", isDirectory: false)
    }

    enum Failure: Error, CustomStringConvertible {
        case unreadable(path: String, reason: String)

        var description: String {
            switch self {
            case .unreadable(let path, let reason): "cannot read the catalog \(path): \(reason)"
            }
        }
    }

    /// The catalog, written with ``LibraryCatalog/defaults`` first if the
    /// file does not exist yet.
    /// - Throws: ``Failure/unreadable(path:reason:)`` for a file that is not
    ///   a catalog (it is left as it is), or the error writing the defaults.
    func load() throws -> LibraryCatalog {
        guard FileManager.default.fileExists(atPath: url.path) else {
            try save(.defaults)
            return .defaults
        }
        do {
            return try JSONDecoder().decode(LibraryCatalog.self, from: Data(contentsOf: url))
        } catch {
            throw Failure.unreadable(path: url.path, reason: "\(error)")
        }
    }

    /// Replaces the file atomically (readers see the old or the new catalog).
    func save(_ catalog: LibraryCatalog) throws {
        try FileManager.default.createDirectory(
            at: url.deletingLastPathComponent(), withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700])
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(catalog).write(to: url, options: .atomic)
    }
}
