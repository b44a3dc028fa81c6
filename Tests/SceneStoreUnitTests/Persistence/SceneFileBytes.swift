import Foundation
@testable import SceneStore

/// A scene file laid out by hand from the format's definition
/// (SceneFile.swift): what the tests check the reader and the writer
/// against, and how they plant files no writer would produce.
struct SceneFileBytes {
    private(set) var bytes: [UInt8] = Array("SCNSTORE".utf8) + [3, 0, 0, 0]

    var data: Data { Data(bytes) }

    mutating func snapshot(
        generation: UInt64, incarnation: String = "00000000000000aa", pid: Int32 = 1, token: String = "00000000000000bb",
        scene: String = "main", entries: [(String, SceneValue)]
    ) {
        snapshot(generation: generation, incarnation: incarnation, pid: pid, token: token, scene: scene,
                 rawEntries: entries.map { Self.entry($0.0, $0.1) }, count: entries.count)
    }

    /// A snapshot whose entries are the bytes given, `count` of them.
    mutating func snapshot(
        generation: UInt64 = 1, incarnation: String = "00000000000000aa", pid: Int32 = 1, token: String = "00000000000000bb",
        scene: String = "main", rawEntries: [[UInt8]], count: Int? = nil
    ) {
        var payload: [UInt8] = [1] + Self.word(generation) + Self.string(incarnation) + Self.word(pid) + Self.string(token)
        payload += Self.string(scene) + Self.word(UInt32(count ?? rawEntries.count))
        for entry in rawEntries { payload += entry }
        frame(payload)
    }

    mutating func record(
        generation: UInt64, pid: Int32 = 1, token: String = "00000000000000bb", set: [(String, SceneValue)], removed: [String]
    ) {
        var payload: [UInt8] = [2] + Self.word(generation) + Self.word(pid) + Self.string(token) + Self.word(UInt32(set.count))
        for (key, value) in set { payload += Self.entry(key, value) }
        payload += Self.word(UInt32(removed.count))
        for key in removed { payload += Self.string(key) }
        frame(payload)
    }

    /// A frame of `payload`: its length, the payload, the checksum over both.
    mutating func frame(_ payload: [UInt8]) {
        let covered = Self.word(UInt32(payload.count)) + payload
        bytes += covered + Self.word(covered.withUnsafeBytes { Checksum.of($0) })
    }

    mutating func append(_ raw: [UInt8]) {
        bytes += raw
    }

    static func entry(_ key: String, _ value: SceneValue) -> [UInt8] {
        let tagged: [UInt8] = switch value {
        case .bool(let bool): [0, bool ? 1 : 0]
        case .int(let int): [1] + word(Int64(int))
        case .double(let double): [2] + word(double.isNaN ? Double.nan.bitPattern : double.bitPattern)
        case .string(let text): [3] + string(text)
        case .url(let url): [4] + string(url.absoluteString)
        case .data(let data): [5] + word(UInt32(data.count)) + Array(data)
        }
        return string(key) + tagged
    }

    static func string(_ text: String) -> [UInt8] {
        word(UInt32(text.utf8.count)) + Array(text.utf8)
    }

    static func word<Word: FixedWidthInteger>(_ value: Word) -> [UInt8] {
        withUnsafeBytes(of: value.littleEndian) { Array($0) }
    }
}

/// What a scene file's frames say, read by hand: the snapshot's
/// generation, how many records follow it and where the log ends (the
/// frames' lengths only, no checksum checked).
struct SceneFileLayout {
    var snapshotGeneration: UInt64
    var records: Int
    var logEnd: Int

    init(_ data: Data) throws {
        let bytes = [UInt8](data)
        func word(_ offset: Int, _ count: Int) -> UInt64 {
            (0..<count).reduce(UInt64(0)) { $0 | UInt64(bytes[offset + $1]) << (8 * UInt64($1)) }
        }
        guard bytes.count > 25, bytes.starts(with: Array("SCNSTORE".utf8)) else { throw SceneFile.Problem.malformed("not format 3") }
        snapshotGeneration = word(17, 8)
        var offset = 12
        var frames = 0
        while offset + 4 <= bytes.count, word(offset, 4) != 0 {
            offset += 12 + Int(word(offset, 4))
            frames += 1
        }
        records = frames - 1
        logEnd = offset
    }
}
