import Foundation
import SceneStoreTesting
import Testing
@testable import SceneStore

/// The scene file as a log: records appended after the snapshot, read
/// back as the saves they were; a torn append read as the version before
/// it, never half; the file written whole again before it outgrows its
/// bound.
@Suite struct SceneFileLogTests {
    private let writer = WriterIdentity(pid: 42, token: "00000000000000bb")
    private let other = WriterIdentity(pid: 43, token: "00000000000000cc")

    private func file(_ generation: UInt64, _ values: [String: SceneValue], by writer: WriterIdentity? = nil) -> SceneFile {
        SceneFile(scene: "main", generation: generation, incarnation: "00000000000000aa", writer: writer ?? self.writer, values: values)
    }

    /// `document` with `record` appended as the store appends it
    /// (``LogAppend``: in place over the padding when it fits).
    private func appending(_ record: [UInt8], to document: Data) throws -> (bytes: Data, append: LogAppend) {
        let end = try SceneFileLayout(document).logEnd
        let append = LogAppend(record: record, end: end, size: document.count)
        var bytes = document
        bytes.replaceSubrange(append.offset..<min(document.count, append.offset + append.bytes.count), with: append.bytes)
        return (bytes, append)
    }

    /// A document at generation 1 and two saves after it, as the encoder
    /// writes them: the first grows the file to a padded block, the
    /// second is written in place over the padding.
    private func threeVersions() throws -> (versions: [SceneFile], bytes: [Data], appends: [LogAppend]) {
        let v1 = file(1, ["a": .int(1), "b": .string("two")])
        let v2 = file(2, ["a": .int(5), "b": .string("two"), "c": .data(Data([0, 1, 2]))], by: other)
        let v3 = file(3, ["a": .int(5), "c": .data(Data([0, 1, 2])), "é\n\"": .double(.nan)])
        var encoder = SceneFileEncoder()
        let d1 = encoder.encode(v1)
        encoder.written(v1.version)
        let r2 = encoder.record(v2, over: v1, edited: ["a", "c"]).frame
        encoder.written(v2.version)
        let r3 = encoder.record(v3, over: v2, edited: ["b", "é\n\""]).frame
        let (d2, a2) = try appending(r2, to: d1)
        let (d3, a3) = try appending(r3, to: d2)
        #expect(!a2.inPlace && a3.inPlace && d2.count == LogAppend.block && d3.count == d2.count)
        return ([v1, v2, v3], [d1, d2, d3], [a2, a3])
    }

    @Test func appendedRecordsReadBackAsTheSaves() throws {
        let (versions, bytes, _) = try threeVersions()
        for (version, data) in zip(versions, bytes) {
            let decoded = try SceneFile.decode(data).get()
            #expect(decoded == version)
            #expect(SceneFile.peekVersion(data) == version.version)
        }
        // Written whole, the last version is a log without records.
        let whole = versions[2].encoded()
        #expect(try SceneFile.decode(whole).get() == versions[2])
    }

    /// Every way an append can be cut short (its bytes written up to any
    /// offset, over the old end and padding, over zeros, or the file
    /// ending there) reads as the version before it or as the one it
    /// wrote: never damage, never a mix. Both an append that grows the
    /// file and one written in place over its padding.
    @Test func everyCutOfAnAppendReadsAsTheVersionBeforeOrAfter() throws {
        let (versions, bytes, appends) = try threeVersions()
        for step in 0..<2 {
            let old = bytes[step]
            let new = bytes[step + 1]
            let append = appends[step]
            for cut in append.offset...(append.offset + append.bytes.count) {
                for filler in [nil, 0 as UInt8] {
                    var torn = Data(new.prefix(cut))
                    if let filler {
                        torn += Data(repeating: filler, count: new.count - cut)
                    } else if cut < old.count {
                        torn += old[cut...]
                    }
                    let decoded = try SceneFile.decode(torn).get()
                    #expect(decoded == versions[step] || decoded == versions[step + 1], "append \(step), cut at \(cut)")
                    if let quick = SceneFile.peekVersion(torn) {
                        #expect(quick == decoded.version, "append \(step), cut at \(cut)")
                    }
                }
            }
        }
    }

    /// A reading tells where the log it read ends, at the version it
    /// holds there (the next reading takes what follows); after a torn
    /// tail, nowhere (the next reading is whole).
    @Test func aReadingTellsWhereItsLogEnds() throws {
        let (versions, bytes, _) = try threeVersions()
        for index in 0...2 {
            let read = try SceneFile.decoded(bytes[index]).get()
            #expect(read.file == versions[index])
            #expect(read.position(in: bytes[index])?.version == versions[index].version)
        }
        let whole = versions[2].encoded()
        #expect(try SceneFile.decoded(whole).get().position(in: whole)?.offset == whole.count)
        // A torn append after it: the version before, and no position.
        let (appended, append) = try appending(SceneFileRecord(
            generation: 4, writer: writer, set: [("z", .bool(true))], removed: []).frame(), to: whole)
        let torn = Data(appended.prefix(append.offset + append.recordCount / 2))
        let read = try SceneFile.decoded(torn).get()
        #expect(read.file == versions[2])
        #expect(read.position(in: torn) == nil)
    }

    @Test func aDamagedRecordWithRecordsAfterItIsDamage() throws {
        let (_, bytes, _) = try threeVersions()
        var damaged = bytes[2]
        // The first record starts where the snapshot ends; damage a byte of its payload.
        let firstRecord = try SceneFileLayout(bytes[0]).logEnd
        damaged[firstRecord + 6] ^= 0x40
        guard case .failure(.malformed(let reason)) = SceneFile.decode(damaged) else {
            Issue.record("a damaged record before the last one was read as a torn tail")
            return
        }
        #expect(reason.contains("records follow"))
    }

    // MARK: The store

    private func sceneFile(_ fixture: SceneStoreFixture) -> URL {
        fixture.root.appendingPathComponent("main.scene")
    }

    private func layout(_ url: URL) throws -> SceneFileLayout {
        try SceneFileLayout(Data(contentsOf: url))
    }

    /// Saves on flush only, so that each round is one record.
    @Test func aSaveOverTheStoredVersionAppendsItsRecordOnFlush() async throws {
        let fixture = try await SceneStoreFixture(configuration: .testing(savePolicy: .onFlush))
        let store = try await fixture.registry.store(for: "main")
        try store.set("x", forKey: "kept")
        try await store.flush()
        var sizes: [Int] = []
        var ends: [Int] = []
        for round in 1...5 {
            try store.set(round, forKey: "n")
            if round == 3 { store.removeValue(forKey: "kept") }
            try await store.flush()
            let data = try Data(contentsOf: sceneFile(fixture))
            sizes.append(data.count)
            ends.append(try SceneFileLayout(data).logEnd)
        }
        let stored = try layout(sceneFile(fixture))
        #expect(stored.snapshotGeneration == 1)
        #expect(stored.records == 5)
        // The first record grew the file to a padded block; the others
        // were written in place over the padding, each adding its record only.
        #expect(sizes.allSatisfy { $0 == LogAppend.block }, "\(sizes)")
        #expect(zip(ends, ends.dropFirst()).allSatisfy { $1 > $0 && $1 - $0 < 200 }, "\(ends)")
        let relaunched = try await fixture.relaunch().store(for: "main")
        #expect(relaunched.snapshot == ["n": .int(5)])
        #expect(relaunched.generation == 6)
        await fixture.tearDown()
    }

    /// A small scene saved many times: the file never passes its bound
    /// (twice its whole size, plus the slack), and is written whole again
    /// when it would.
    @Test func theFileIsWrittenWholeBeforeItOutgrowsItsBound() async throws {
        let fixture = try await SceneStoreFixture()
        let store = try await fixture.registry.store(for: "main")
        let text = String(repeating: "v", count: 100)
        var largest = 0
        var compactions = 0
        var lastHeader: UInt64 = 0
        for round in 0..<400 {
            try store.set("\(round)" + text, forKey: "k")
            try await store.flush()
            let data = try Data(contentsOf: sceneFile(fixture))
            largest = max(largest, data.count)
            let header = try layout(sceneFile(fixture)).snapshotGeneration
            if header != lastHeader { compactions += 1 }
            lastHeader = header
        }
        let whole = store.generation > 0 ? SceneFile(
            scene: "main", generation: store.generation, incarnation: "0000000000000000", writer: writer,
            values: store.snapshot
        ).encoded().count : 0
        #expect(largest <= SceneFile.compactionFactor * (whole + 600) + SceneFile.compactionSlack)
        #expect(compactions >= 3)
        #expect(compactions <= 20)
        await fixture.tearDown()
    }

    /// An append cut short (a power loss while it was written) is dropped
    /// as a whole; the next save writes the file whole, without it, and
    /// nothing is quarantined.
    @Test func aTornTailIsDroppedAndTheNextSaveWritesTheFileWhole() async throws {
        let fixture = try await SceneStoreFixture()
        let store = try await fixture.registry.store(for: "main")
        try store.set(1, forKey: "a")
        try await store.flush()
        try store.set(2, forKey: "b")
        try await store.flush()
        let acknowledged = try Data(contentsOf: sceneFile(fixture))
        try store.set(3, forKey: "c")
        try await store.flush()
        let full = try Data(contentsOf: sceneFile(fixture))
        try await fixture.registry.close()

        // Half of the last record reached the disk, written over the
        // padding after the acknowledged log's end.
        let logEnd = try SceneFileLayout(acknowledged).logEnd
        let recordEnd = try SceneFileLayout(full).logEnd
        #expect(full.count == acknowledged.count && recordEnd > logEnd)
        let cut = logEnd + (recordEnd - logEnd) / 2
        let torn = full.prefix(cut) + acknowledged[cut...]
        try torn.write(to: sceneFile(fixture))
        let relaunched = try await fixture.relaunch().store(for: "main")
        #expect(relaunched.snapshot == ["a": .int(1), "b": .int(2)])
        #expect(relaunched.lastQuarantined == nil)
        try relaunched.set(4, forKey: "d")
        try await relaunched.flush()
        let stored = try layout(sceneFile(fixture))
        #expect(stored.snapshotGeneration == 3)
        #expect(stored.records == 0)
        #expect(!FileManager.default.fileExists(atPath: fixture.root.appendingPathComponent("quarantine").path))
        let again = try await fixture.relaunch().store(for: "main")
        #expect(again.snapshot == ["a": .int(1), "b": .int(2), "d": .int(4)])
        await fixture.tearDown()
    }
}
