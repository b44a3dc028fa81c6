import Foundation

/// Which version of the scene file the store's memory reflects.
package struct DiskVersion: Equatable, Sendable {
    /// `nil` while no file has been seen or written.
    package var incarnation: String?
    package var generation: UInt64

    package init(incarnation: String?, generation: UInt64) {
        self.incarnation = incarnation
        self.generation = generation
    }

    static let none = DiskVersion(incarnation: nil, generation: 0)

    /// Whether `other` is a version this store has not yet applied.
    func isOlder(than other: DiskVersion) -> Bool {
        incarnation != other.incarnation || other.generation > generation
    }
}
