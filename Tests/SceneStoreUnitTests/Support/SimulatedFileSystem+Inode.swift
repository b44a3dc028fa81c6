// A simulated file's or directory's state, as the running system sees it
// and as the disk holds it (SimulatedFileSystem.swift holds the calls).

extension SimulatedFileSystem {
    struct Inode: Sendable {
        var isDirectory: Bool
        var bytes: [UInt8] = []
        var durableBytes: [UInt8] = []
        var names: [String: Int] = [:]
        var durableNames: [String: Int] = [:]
        /// The 512-byte sectors a failed `fsync` left dirty: as Linux does
        /// with pages whose writeback failed, they count as clean, so no
        /// later sync writes them until they are written again (the disk
        /// keeps what it had there).
        var lostSectors: Set<Int> = []

        /// What a sync can put on the disk: the running bytes, but the
        /// lost sectors as the disk holds them.
        var writable: [UInt8] {
            guard !lostSectors.isEmpty else { return bytes }
            var image = bytes
            for sector in lostSectors {
                for index in sector * 512..<min(sector * 512 + 512, image.count) {
                    image[index] = index < durableBytes.count ? durableBytes[index] : 0
                }
            }
            return image
        }

        /// A sync of this file failed: its dirty sectors are lost.
        mutating func writebackFailed() {
            for sector in stride(from: 0, to: bytes.count, by: 512) {
                let end = min(sector + 512, bytes.count)
                if end > durableBytes.count || bytes[sector..<end] != durableBytes[sector..<end] {
                    lostSectors.insert(sector / 512)
                }
            }
        }
    }
}
