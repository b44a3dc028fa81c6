import Foundation
import SceneNavigation
import SceneStore

// What README.md's examples refer to without declaring it: the app's own
// types and functions, reduced to what the examples need.

struct Book: Hashable, Codable, Sendable {
    var title: String
}

enum Selection: Hashable, Codable, Sendable, PathReferencing {
    case book(String), settings
    var pathReference: Selection { self }
}

struct Catalog: Sendable {
    func resolve(_ selection: Selection) -> Selection? { selection }
}

let catalog = Catalog()

func render(_ tab: Tab) {}
func log(_ key: String, _ old: SceneValue?, _ new: SceneValue?, _ origin: SceneChangeOrigin) {}
func redraw(_ changes: [SceneChange]) {}
func show(_ value: Int, _ tab: Tab) {}

/// Marks values an example computed as used.
func use<each Value>(_ value: repeat each Value) {}
