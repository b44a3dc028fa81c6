import SystemPackage
@testable import SceneStore

// The simulated file system's OFD locks: per inode, per byte, the
// descriptions that hold it and whether exclusively (SimulatedFileSystem.swift
// holds the other calls).

extension SimulatedFileSystem {
    func lock(_ file: FileDescriptor, byte: Int64, exclusive: Bool) throws(Errno) -> Bool {
        try world.withLock { world throws(Errno) in
            let number = try world.number(of: file)
            let others = (world.locks[number]?[byte] ?? [:]).filter { $0.key != file.rawValue }
            guard !others.values.contains(true), !(exclusive && !others.isEmpty) else { return false }
            world.locks[number, default: [:]][byte, default: [:]][file.rawValue] = exclusive
            return true
        }
    }

    func unlock(_ file: FileDescriptor, byte: Int64) {
        world.withLock { world in
            guard let number = world.open[file.rawValue] else { return }
            world.locks[number]?[byte]?[file.rawValue] = nil
        }
    }

    func isLocked(_ file: FileDescriptor, byte: Int64) throws(Errno) -> Bool {
        try world.withLock { world throws(Errno) in
            let number = try world.number(of: file)
            return (world.locks[number]?[byte] ?? [:]).contains { $0.key != file.rawValue }
        }
    }
}
