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
            world.poweredOff = false
            world.powerFailsAt = nil
        }
    }

    /// Makes the power fail right after the `number`th fallible call from
    /// now (with `writesOnly`, the `number`th write): that call is made,
    /// every later one fails with `EIO` and changes nothing, until
    /// ``powerLoss(_:)`` brings the disk back.
    func failPower(afterCall number: Int, writesOnly: Bool = false) {
        world.withLock { world in world.powerFailsAt = (world.powerCalls + number, writesOnly) }
    }

    /// Whether the power failed (``failPower(afterCall:)``).
    var poweredOff: Bool { world.withLock { $0.poweredOff } }

    /// Puts the power failure off: the calls made until
    /// ``resumePowerFailure(_:)`` (a launch's) do not count.
    func holdPowerFailure() -> (call: Int, writesOnly: Bool)? {
        world.withLock { world in
            defer { world.powerFailsAt = nil }
            return world.powerFailsAt.map { ($0.call - world.powerCalls, $0.writesOnly) }
        }
    }

    func resumePowerFailure(_ remaining: (call: Int, writesOnly: Bool)?) {
        world.withLock { world in world.powerFailsAt = remaining.map { (world.powerCalls + $0.call, $0.writesOnly) } }
    }

    /// `durable` with each 512-byte sector where `current` differs taken
    /// from `current` or not (or, `scribbling`, its changed bytes random),
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
                // Only the bytes the sector's unsynced writes changed: the
                // ones it shares with synced data stay (SQLite's powersafe
                // overwrite, which a drive with atomic sector writes gives).
                for index in range where index >= durable.count || index >= current.count || current[index] != durable[index] {
                    result[index] = UInt8(truncatingIfNeeded: splitMix(&random))
                }
            }
        }
        return result
    }
}
