import Foundation
import SceneStore

/// The properties of the log layout (format version 2), for every file
/// that decodes:
///
/// * Written as a log, it reads back equal, and the fast path reads its
///   header as the full read does.
/// * The next save appended as a record (one key set, one removed) reads
///   back as that save.
/// * Every cut of that append (its bytes written up to any offset, the
///   rest of the old end left as it was) reads as the version before it or
///   as the one it wrote: never damage, never a mix; whenever the fast
///   path reads a header from it, it names the version the full read gives.
/// * Read after the log it was appended to (``SceneFileReader``, which
///   then parses the new records only), the append and each of its cuts
///   read as a full reading reads them.
extension SceneFileCheck {
    static func checkLog(_ file: SceneFile) throws(FuzzFailure) {
        var encoder = SceneFileEncoder(layout: .log)
        let document = encoder.encode(file, over: nil, edited: [])
        try expect(document, reads: file, "a file written as a log")
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
        let record = encoder.record(next, over: file, edited: edited).line
        let appended = document.dropLast(3) + Data(record) + Data("\n]}\n".utf8)
        try expect(appended, reads: next, "a record appended")
        var reader = SceneFileReader()
        _ = reader.decode(document, expectedKeys: 0, keep: true)
        guard case .success(let continued) = reader.decode(appended, expectedKeys: 0, keep: true), continued == next else {
            throw FuzzFailure("the record appended, read after the log it was appended to, is not the save")
        }

        let step = max(1, (appended.count - document.count) / 24)
        let cuts = Array(stride(from: document.count - 3, to: appended.count, by: step)) + Array((appended.count - 6)..<appended.count)
        for cut in cuts {
            var torn = Data(appended.prefix(cut))
            if cut < document.count { torn += document[cut...] }
            let decoded: SceneFile
            switch SceneFile.decode(torn) {
            case .success(let read): decoded = read
            case .failure(let problem):
                throw FuzzFailure("an append cut at \(cut) is \(problem), not a version\n\(String(decoding: torn, as: UTF8.self))")
            }
            var primed = SceneFileReader()
            _ = primed.decode(document, expectedKeys: 0, keep: true)
            guard case .success(let again) = primed.decode(torn, expectedKeys: 0, keep: true), again == decoded else {
                throw FuzzFailure("an append cut at \(cut), read after the log it was appended to, is not what a full reading gives")
            }
            guard decoded == file || decoded == next else {
                throw FuzzFailure("an append cut at \(cut) reads as neither version:\n\(decoded)")
            }
            if let quick = SceneFile.peekHeader(torn), quick.generation != decoded.generation || quick.writerToken != decoded.writer.token {
                throw FuzzFailure("an append cut at \(cut): the fast path read \(quick), the full read generation \(decoded.generation)")
            }
        }
    }

    private static func expect(_ data: Data, reads file: SceneFile, _ what: String) throws(FuzzFailure) {
        guard case .success(let read) = SceneFile.decode(data) else {
            throw FuzzFailure("\(what) does not decode:\n\(String(decoding: data, as: UTF8.self))")
        }
        guard read == file else { throw FuzzFailure("\(what) reads back changed:\n\(file)\nbecame\n\(read)") }
        if let quick = SceneFile.peekHeader(data), quick.generation != file.generation || quick.writerToken != file.writer.token {
            throw FuzzFailure("\(what): the fast path read \(quick), the file has generation \(file.generation)")
        }
    }
}
