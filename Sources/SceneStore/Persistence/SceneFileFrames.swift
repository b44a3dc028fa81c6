import Foundation

/// The bytes of a format 3 scene file (see ``SceneFile``): frames, each
/// its payload's length, the payload and a checksum; the primitives inside
/// a payload, little-endian; and the walk over frames that tells a whole
/// log from a torn one.
enum SceneFileFrames {
    /// `SCNSTORE`, then the format version as a `u32`.
    static let magic: [UInt8] = Array("SCNSTORE".utf8)
    static let headerCount = magic.count + 4
    /// A frame's length before its payload, its checksum after it.
    static let overhead = 4 + 8

    /// What a payload starts with.
    enum Kind: UInt8 {
        case snapshot = 1
        case record = 2
    }

    /// What a value's first byte says it is.
    enum ValueTag: UInt8 {
        case bool, int, double, string, url, data
    }

    /// The bytes an entry takes in a payload: the key, the tag, the value.
    static func entryByteCount(_ key: String, _ value: SceneValue) -> Int {
        let payload = switch value {
        case .bool: 1
        case .int, .double: 8
        case .string, .url, .data: 4 + value.byteCount
        }
        return 4 + key.utf8.count + 1 + payload
    }
}

/// Writes frames and what they hold.
struct FrameWriter {
    var bytes: [UInt8] = []
    private var frameStart = 0

    init(capacity: Int) {
        bytes.reserveCapacity(capacity)
    }

    /// Starts a frame: room for its length.
    mutating func beginFrame(_ kind: SceneFileFrames.Kind) {
        frameStart = bytes.count
        word(UInt32(0))
        byte(kind.rawValue)
    }

    /// Ends the frame begun last: its length, then its checksum over the
    /// length and the payload.
    mutating func endFrame() {
        let length = UInt32(truncatingIfNeeded: bytes.count - frameStart - 4)
        withUnsafeBytes(of: length.littleEndian) { length in
            for index in 0..<4 { bytes[frameStart + index] = length[index] }
        }
        let checksum = bytes.withUnsafeBytes { Checksum.of(UnsafeRawBufferPointer(rebasing: $0[frameStart...])) }
        word(checksum)
    }

    mutating func byte(_ value: UInt8) {
        bytes.append(value)
    }

    mutating func word<Word: FixedWidthInteger>(_ value: Word) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    /// A count, as a `u32` (no scene the limits allow comes near 2^32).
    mutating func count(_ value: Int) {
        word(UInt32(truncatingIfNeeded: value))
    }

    mutating func string(_ value: String) {
        var value = value
        value.withUTF8 { utf8 in
            count(utf8.count)
            bytes.append(contentsOf: utf8)
        }
    }

    mutating func writer(_ writer: WriterIdentity) {
        word(writer.pid)
        string(writer.token)
    }

    mutating func entry(_ key: String, _ value: SceneValue) {
        string(key)
        switch value {
        case .bool(let bool):
            byte(SceneFileFrames.ValueTag.bool.rawValue)
            byte(bool ? 1 : 0)
        case .int(let int):
            byte(SceneFileFrames.ValueTag.int.rawValue)
            word(Int64(int))
        case .double(let double):
            byte(SceneFileFrames.ValueTag.double.rawValue)
            word(double.isNaN ? Double.nan.bitPattern : double.bitPattern)
        case .string(let text):
            byte(SceneFileFrames.ValueTag.string.rawValue)
            string(text)
        case .url(let url):
            byte(SceneFileFrames.ValueTag.url.rawValue)
            string(url.absoluteString)
        case .data(let data):
            byte(SceneFileFrames.ValueTag.data.rawValue)
            count(data.count)
            bytes.append(contentsOf: data)
        }
    }
}

/// Reads what a payload holds, front to back; `nil` for anything that is
/// not there or not valid (a string that is not UTF-8, an unknown tag).
struct PayloadReader {
    let bytes: UnsafeRawBufferPointer
    private(set) var index = 0

    init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    var atEnd: Bool { index == bytes.count }

    mutating func byte() -> UInt8? {
        guard index < bytes.count else { return nil }
        defer { index += 1 }
        return bytes[index]
    }

    mutating func word<Word: FixedWidthInteger>(_: Word.Type = Word.self) -> Word? {
        let size = MemoryLayout<Word>.size
        guard bytes.count - index >= size else { return nil }
        defer { index += size }
        return Word(littleEndian: bytes.loadUnaligned(fromByteOffset: index, as: Word.self))
    }

    /// A count of things that take at least `each` bytes apiece: never more
    /// than the bytes left could hold, so no count makes a reader reserve
    /// more than the file's size.
    mutating func count(each: Int = 1) -> Int? {
        guard let value = word(UInt32.self), Int(value) <= (bytes.count - index) / max(each, 1) else { return nil }
        return Int(value)
    }

    mutating func raw() -> UnsafeRawBufferPointer? {
        guard let count = count() else { return nil }
        defer { index += count }
        return UnsafeRawBufferPointer(rebasing: bytes[index..<(index + count)])
    }

    mutating func string() -> String? {
        raw().flatMap { String(validating: $0, as: UTF8.self) }
    }

    mutating func writer() -> WriterIdentity? {
        guard let pid = word(Int32.self), let token = string() else { return nil }
        return WriterIdentity(pid: pid, token: token)
    }

    mutating func value() -> SceneValue? {
        guard let tag = byte().flatMap(SceneFileFrames.ValueTag.init(rawValue:)) else { return nil }
        switch tag {
        case .bool:
            switch byte() {
            case 0: return .bool(false)
            case 1: return .bool(true)
            default: return nil
            }
        case .int: return word(Int64.self).map { .int(Int($0)) }
        case .double: return word(UInt64.self).map { .double(Double(bitPattern: $0)).canonical }
        case .string: return string().map(SceneValue.string)
        case .url: return string().flatMap { URL(string: $0) }.map(SceneValue.url)
        case .data: return raw().map { .data(Data($0)) }
        }
    }
}

/// The frames of a file, one after another from an offset.
struct FrameCursor {
    let bytes: UnsafeRawBufferPointer
    /// Where the next frame starts.
    private(set) var offset: Int

    init(_ bytes: UnsafeRawBufferPointer, at offset: Int) {
        self.bytes = bytes
        self.offset = offset
    }

    enum Step {
        /// A whole frame with a matching checksum: its payload.
        case frame(UnsafeRawBufferPointer)
        /// The log ends here: the bytes end, or padding (zeros) begins.
        case end
        /// A frame cut short or not matching its checksum.
        case torn
    }

    mutating func next() -> Step {
        switch Self.frame(in: bytes, at: offset) {
        case .frame(let payload, let end):
            offset = end
            return .frame(payload)
        case .end: return .end
        case .torn: return .torn
        }
    }

    /// Whether a whole frame begins where the torn frame at ``offset``
    /// says it ends: then the frame was damaged where records follow, not
    /// cut short at the log's end.
    var tornFrameIsFollowed: Bool {
        guard bytes.count - offset >= 4 else { return false }
        let length = Int(UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
        let next = offset + SceneFileFrames.overhead + length
        guard next < bytes.count, case .frame = Self.frame(in: bytes, at: next) else { return false }
        return true
    }

    /// Whether the torn frame at ``offset`` fits in the bytes: then its
    /// checksum, not its end, is what failed.
    var tornFrameIsWithinBytes: Bool {
        guard bytes.count - offset >= SceneFileFrames.overhead else { return false }
        let length = Int(UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
        return length <= bytes.count - offset - SceneFileFrames.overhead
    }

    private enum Found {
        case frame(UnsafeRawBufferPointer, end: Int)
        case end
        case torn
    }

    private static func frame(in bytes: UnsafeRawBufferPointer, at offset: Int) -> Found {
        let left = bytes.count - offset
        let lengthBytes = UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + min(4, left))])
        if lengthBytes.allSatisfy({ $0 == 0 }) { return .end }
        guard left >= SceneFileFrames.overhead else { return .torn }
        let length = Int(UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
        guard length <= left - SceneFileFrames.overhead else { return .torn }
        let covered = UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + 4 + length)])
        let stored = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset + 4 + length, as: UInt64.self))
        guard Checksum.of(covered) == stored else { return .torn }
        return .frame(UnsafeRawBufferPointer(rebasing: covered[4...]), end: offset + SceneFileFrames.overhead + length)
    }
}
