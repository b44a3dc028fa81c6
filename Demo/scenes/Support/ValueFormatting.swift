import Foundation
import SceneStore

/// Compact JSON with sorted keys, on one line.
func jsonLine<T: Encodable>(_ value: T) throws -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return String(decoding: try encoder.encode(value), as: UTF8.self)
}

/// Writes one line to stdout at once (scripts and tests read lines).
func emit(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// A scene as `show --json` prints it.
struct SceneDump: Encodable {
    let scene: String
    let generation: UInt64
    let values: [String: SceneValue]
}
