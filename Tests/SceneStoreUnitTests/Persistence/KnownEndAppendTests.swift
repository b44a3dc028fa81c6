import Foundation
import SceneStoreTesting
import Testing
@testable import SceneStore

/// An append told where the store's last reading left the log
/// (`from: position`) checks that the log still ends there instead of
/// finding its last record; a position that is stale in any way must
/// never let a record land over a version other than the one it names.
@Suite struct KnownEndAppendTests {
    private struct Scene {
        let id: SceneID
        let directory: SceneDirectory
        let path: URL
        var encoder = SceneFileEncoder()
        var file: SceneFile

        init(_ fixture: SceneStoreFixture) throws {
            id = SceneID("main")
            directory = SceneDirectory(root: fixture.root)
            try SceneDirectory(root: fixture.root).prepare()
            path = URL(fileURLWithPath: directory.scenePath(id))
            file = SceneFile(
                scene: "main", generation: 1, incarnation: "00000000000000aa",
                writer: WriterIdentity(pid: 42, token: "00000000000000bb"), values: ["a": .int(1)])
        }

        /// Writes the scene whole; the position its log ends at.
        mutating func writeWhole() throws -> LogPosition {
            let document = encoder.encode(file)
            encoder.written(file.version)
            try document.write(to: path)
            return LogPosition(written: document, version: file.version)
        }

        /// The record of `a` = `value` over the current version, and that version.
        mutating func next(_ value: Int) -> (record: [UInt8], base: SceneFile) {
            let base = file
            file.generation += 1
            file.values["a"] = .int(value)
            return (encoder.record(file, over: base, edited: ["a"]).frame, base)
        }

        func stored() throws -> SceneFile {
            try SceneFile.decode(Data(contentsOf: path)).get()
        }

        /// A stale store's append over `base` from `position`, where the
        /// file has moved on: refused, the file's bytes as they were.
        func expectStaleAppendRefused(over base: SceneFile, from position: LogPosition) throws {
            let before = try Data(contentsOf: path)
            var stale = self
            stale.file = base
            let (mine, _) = stale.next(99)
            #expect(try directory.append(mine, to: id, over: base.version, from: position, sizeLimit: 1 << 20) == false)
            #expect(try Data(contentsOf: path) == before)
        }
    }

    /// The store's own position after each of its appends (as its reader
    /// keeps it) is the log's end: each append lands, the file decodes to
    /// every value in turn. In this scene of one key the file's first 512
    /// bytes reach into the log: the head a position checks stops where
    /// the log ends, so the store's own appends leave it matching, and its
    /// position still tells that the log ends there after each of them
    /// (with the head taking in the log, every check after the first
    /// append failed and fell back to reading and parsing the last record).
    @Test func appendsFromTheKnownEndLandAndTheLogEndsThere() async throws {
        let fixture = try await SceneStoreFixture()
        var scene = try Scene(fixture)
        var reader = SceneFileReader()
        let written = try scene.writeWhole()
        #expect(written.offset < LogPosition.headBytes, "not a scene whose head reaches into the log")
        reader.saved(wholeFileAt: written)
        for value in 2...40 {
            let (record, base) = scene.next(value)
            let position = try #require(reader.position)
            #expect(position.version == base.version)
            reader.appending(ending: position.appending(record.count, generation: scene.file.generation))
            #expect(scene.directory.logEnds(scene.id, at: position), "the log no longer ends at \(value - 1)'s position")
            #expect(try scene.directory.append(record, to: scene.id, over: base.version, from: position, sizeLimit: 1 << 20))
            reader.appendEnded(written: true)
            #expect(try scene.stored() == scene.file)
        }
    }

    /// Another writer appended after the position: the log's closing is
    /// gone from its offset, and the version there is no longer the one
    /// named. Nothing is written.
    @Test func aPositionAnotherAppendWentPastIsRefused() async throws {
        let fixture = try await SceneStoreFixture()
        var scene = try Scene(fixture)
        let position = try scene.writeWhole()
        let (theirs, base) = scene.next(2)
        #expect(try scene.directory.append(theirs, to: scene.id, over: base.version, sizeLimit: 1 << 20))
        // The stale store: the same version, the same position, a record of its own.
        try scene.expectStaleAppendRefused(over: base, from: position)
        #expect(try scene.stored().values["a"] == .int(2))
    }

    /// The file written whole again (a compaction): a new head, whatever
    /// its log's end. The position's head no longer matches, the last
    /// record names another version: nothing is written.
    @Test func aPositionInAFileWrittenWholeSinceIsRefused() async throws {
        let fixture = try await SceneStoreFixture()
        var scene = try Scene(fixture)
        let position = try scene.writeWhole()
        let base = scene.file
        _ = scene.next(2)
        _ = try scene.writeWhole()
        try scene.expectStaleAppendRefused(over: base, from: position)
    }

    /// A position of the right version whose offset is off (or past the
    /// file's end) is no reason to write elsewhere: the log's end is found
    /// from its last record, and the append lands there.
    @Test(arguments: [-1, 1, 7, 1 << 20])
    func aWrongOffsetFallsBackToTheLastRecord(shift: Int) async throws {
        let fixture = try await SceneStoreFixture()
        var scene = try Scene(fixture)
        var position = try scene.writeWhole()
        position.offset += shift
        let (record, base) = scene.next(2)
        #expect(try scene.directory.append(record, to: scene.id, over: base.version, from: position, sizeLimit: 1 << 20))
        #expect(try scene.stored() == scene.file)
    }
}
