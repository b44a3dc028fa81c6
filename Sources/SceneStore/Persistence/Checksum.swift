/// FNV-1a, 64 bit: a checksum for the payload of a scene file, to tell a
/// damaged file from a good one (not a defence against tampering).
enum Checksum {
    static let prefix = "fnv1a64:"

    static func fnv1a64<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return prefix + String(repeating: "0", count: 16 - hex.count) + hex
    }
}
