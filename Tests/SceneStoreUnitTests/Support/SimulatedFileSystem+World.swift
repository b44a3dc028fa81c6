import SystemPackage
@testable import SceneStore

// The simulated file system's state: path resolution, descriptors, faults,
// and the seed's random numbers (SimulatedFileSystem.swift holds the calls).

extension SimulatedFileSystem.World {
    mutating func next() -> UInt64 { splitMix(&random) }

    /// The fault of the fallible call `call` about to run, if it is the one
    /// set up to fail: one of `choices`, as the seed picks.
    mutating func fault(_ call: String, _ choices: [SimulatedFileSystem.Fault]) -> SimulatedFileSystem.Fault? {
        calls += 1
        guard calls == failingCall, !choices.isEmpty else { return nil }
        let fault = choices[Int(next() % UInt64(choices.count))]
        fired.append("\(call) #\(calls): \(fault)")
        return fault
    }

    /// Throws the fault of `call`, if it is the failing one.
    mutating func failIfDue(_ call: String, _ errors: [Errno]) throws(Errno) {
        if case .error(let errno)? = fault(call, errors.map { .error($0) }) { throw errno }
    }

    mutating func create(isDirectory: Bool) -> Int {
        let number = nextInode
        nextInode += 1
        inodes[number] = .init(isDirectory: isDirectory)
        return number
    }

    func number(of file: FileDescriptor) throws(Errno) -> Int {
        guard let number = open[file.rawValue] else { throw .badFileDescriptor }
        return number
    }

    func inode(of file: FileDescriptor) throws(Errno) -> SimulatedFileSystem.Inode {
        guard let inode = inodes[try number(of: file)] else { throw .badFileDescriptor }
        return inode
    }

    /// The directory holding `path`'s last name, and that name (empty for
    /// `/` itself); a relative path starts at `directory`.
    func parent(of path: String, in directory: FileDescriptor?) throws(Errno) -> (Int, String) {
        var components = path.split(separator: "/").map(String.init)
        var current = 1
        if !path.hasPrefix("/"), let directory { current = try number(of: directory) }
        guard let last = components.popLast() else { return (1, "") }
        for component in components {
            guard let next = inodes[current]?.names[component] else { throw .noSuchFileOrDirectory }
            guard inodes[next]?.isDirectory == true else { throw .notDirectory }
            current = next
        }
        return (current, last)
    }

    func status(_ number: Int) -> FileStatus {
        let inode = inodes[number]
        return FileStatus(
            kind: inode?.isDirectory == true ? .directory : .regular, permissions: 0o700,
            size: inode?.bytes.count ?? 0, identity: FileIdentity(device: SimulatedFileSystem.device, inode: UInt64(number)))
    }
}

/// SplitMix64: the next value of `state`.
func splitMix(_ state: inout UInt64) -> UInt64 {
    state &+= 0x9e37_79b9_7f4a_7c15
    var z = state
    z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
    z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
    return z ^ (z >> 31)
}
