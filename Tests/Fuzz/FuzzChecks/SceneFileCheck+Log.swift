import Foundation
import SceneStore

/// The properties of the log, for every file that decodes:
///
/// * Written whole, it reads back equal, and the fast path reads its
///   version as the full read does.
/// * The next save appended as a record (one key set, one removed), as
///   the store appends it (``LogAppend``: padded to a block), reads back
///   as that save.
/// * So does a second save after it, written in place over the padding
///   when it fits there.
/// * Every cut of each append (its bytes written up to any offset, the
///   rest of the padding left as it was) reads as the version before it or
///   as the one it wrote: never damage, never a mix; whenever the fast
///   path reads a version from it, it is the one the full read gives.
/// * Read after the log it was appended to (``SceneFileReader``, which
///   then parses the new records only), the append and each of its cuts
///   read as a full reading reads them.
extension SceneFileCheck {
    static func checkLog(_ file: SceneFile) throws(FuzzFailure) {
        var encoder = SceneFileEncoder()
        let document = encoder.encode(file)
        try expect(document, reads: file, "a file written whole")
        guard file.generation < SceneFile.maxGeneration else { return }
        encoder.written(file.version)

        var next = file
        next.generation += 1
        next.writer = WriterIdentity(pid: 7, token: "f0f0f0f0f0f0f0f0")
        var edited = ["fuzz.next"]
        next.values["fuzz.next"] = .int(Int(truncatingIfNeeded: file.generation))
        if let removed = file.values.keys.sorted().first, removed != "fuzz.next" {
            next.values.removeValue(forKey: removed)
            edited.append(removed)
        }
        let record = encoder.record(next, over: file, edited: edited).frame
        let appended = try append(record, to: document)
        try check(appended, after: document, reads: next, before: file)
        guard next.generation < SceneFile.maxGeneration else { return }
        encoder.written(next.version)

        // A second save, in place over the padding when it fits there.
        var third = next
        third.generation += 1
        third.values["fuzz.third"] = .bool(true)
        let again = try append(encoder.record(third, over: next, edited: ["fuzz.third"]).frame, to: appended.bytes)
        try check(again, after: appended.bytes, reads: third, before: next)
    }

    /// `document` with `record` appended as the store appends it
    /// (``LogAppend``: over the padding when it fits, else growing the
    /// file, padded to a block).
    private static func append(_ record: [UInt8], to document: Data) throws(FuzzFailure) -> (bytes: Data, append: LogAppend) {
        guard let end = document.withUnsafeBytes({ SceneFile.peek($0) })?.end else {
            throw FuzzFailure("a file written whole has no log's end an append can find")
        }
        let append = LogAppend(record: record, end: end, size: document.count)
        var bytes = document
        bytes.replaceSubrange(append.offset..<min(document.count, append.offset + append.bytes.count), with: append.bytes)
        return (bytes, append)
    }

    /// The append reads as `file`, also read after `document`; each of its
    /// cuts reads as `file` or `before`, alike both ways, and the fast path
    /// agrees.
    private static func check(
        _ appended: (bytes: Data, append: LogAppend), after document: Data, reads file: SceneFile, before: SceneFile
    ) throws(FuzzFailure) {
        let (bytes, append) = appended
        try expect(bytes, reads: file, "a record appended")
        guard case .some(.some(let continued)) = readAppended(bytes, after: document), continued == file else {
            throw FuzzFailure("the record appended, read after the log it was appended to, is not the save")
        }
        let written = append.offset + append.recordCount
        let step = max(1, (written - append.offset) / 24)
        let cuts = Array(stride(from: append.offset, to: written, by: step)) + Array((written - 6)...min(bytes.count, written + 2))
            + [bytes.count]
        for cut in cuts {
            var torn = Data(bytes.prefix(cut))
            if cut < document.count { torn += document[cut...] }
            let decoded: SceneFile
            switch SceneFile.decode(torn) {
            case .success(let read): decoded = read
            case .failure(let problem):
                throw FuzzFailure("an append cut at \(cut) is \(problem), not a version\n\(text(torn))")
            }
            if case .some(.some(let again)) = readAppended(torn, after: document), again != decoded {
                throw FuzzFailure("an append cut at \(cut), read after the log it was appended to, is not what a full reading gives")
            }
            guard decoded == before || decoded == file else {
                throw FuzzFailure("an append cut at \(cut) reads as neither version:\n\(decoded)")
            }
            if let quick = SceneFile.peekVersion(torn), quick != decoded.version {
                throw FuzzFailure("an append cut at \(cut): the fast path read \(quick), the full read \(decoded.version)")
            }
        }
    }

    /// `bytes` read as a store that read `document` reads them: only the
    /// records after where its log ended (``SceneFileReader/records(in:)``).
    /// `nil`: `document` has no log end; `.some(nil)`: the records are not
    /// whole, and a full reading judges.
    private static func readAppended(_ bytes: Data, after document: Data) -> SceneFile?? {
        guard case .success(let read) = SceneFile.decoded(document), let position = read.position(in: document),
              bytes.count >= position.offset else { return nil }
        var file = read.file
        guard let (records, _) = SceneFileReader.records(in: Data(bytes[position.offset...]), after: position),
              file.apply(records) == nil else { return .some(nil) }
        return file
    }

    private static func expect(_ data: Data, reads file: SceneFile, _ what: String) throws(FuzzFailure) {
        guard case .success(let read) = SceneFile.decode(data) else {
            throw FuzzFailure("\(what) does not decode:\n\(text(data))")
        }
        guard read == file else { throw FuzzFailure("\(what) reads back changed:\n\(file)\nbecame\n\(read)") }
        if let quick = SceneFile.peekVersion(data), quick != file.version {
            throw FuzzFailure("\(what): the fast path read \(quick), the file has \(file.version)")
        }
    }
}
