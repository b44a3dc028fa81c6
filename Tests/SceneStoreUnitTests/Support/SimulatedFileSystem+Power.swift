import Foundation
@testable import SceneStore
import SystemPackage

// A power loss over the simulated file system (SimulatedFileSystem.swift
// holds the calls).

extension SimulatedFileSystem {
    /// Every process dies and the disk comes back as `mode` leaves it.
    func powerLoss(_ mode: KillMode) {
        world.withLock { world in
            for number in world.inodes.keys.sorted() {
                guard var inode = world.inodes[number] else { continue }
                switch mode {
                case .dropAll:
                    inode.bytes = inode.durableBytes
                    inode.names = inode.durableNames
                case .tornSectors, .scribbled:
                    inode.bytes = Self.torn(inode.writable, over: inode.durableBytes, scribbling: mode == .scribbled, random: &world.random)
                    for name in Set(inode.names.keys).union(inode.durableNames.keys).sorted()
                    where inode.names[name] != inode.durableNames[name] && world.next() % 2 == 0 {
                        inode.names[name] = inode.durableNames[name]
                    }
                }
                inode.durableBytes = inode.bytes
                inode.durableNames = inode.names
                inode.lostSectors = []
                world.inodes[number] = inode
            }
            world.open = [:]
            world.openedAs = [:]
            world.locks = [:]
            world.watches = [:]
        }
    }

    /// `durable` with each 512-byte sector where `current` differs taken
    /// from `current` or not (or, `scribbling`, filled with random bytes),
    /// and the length of one of the two.
    private static func torn(_ current: [UInt8], over durable: [UInt8], scribbling: Bool, random: inout UInt64) -> [UInt8] {
        guard current != durable else { return current }
        var result = durable
        let length = splitMix(&random) % 2 == 0 ? current.count : durable.count
        if result.count < length { result += [UInt8](repeating: 0, count: length - result.count) }
        result.removeSubrange(min(length, result.count)...)
        for sector in stride(from: 0, to: length, by: 512) {
            let range = sector..<min(sector + 512, length)
            let changed = range.contains { index in (index < current.count ? current[index] : 0) != (index < durable.count ? durable[index] : 0) }
            guard changed else { continue }
            if splitMix(&random) % 2 == 0 {
                for index in range { result[index] = index < current.count ? current[index] : 0 }
            } else if scribbling {
                for index in range { result[index] = UInt8(truncatingIfNeeded: splitMix(&random)) }
            }
        }
        return result
    }
}
