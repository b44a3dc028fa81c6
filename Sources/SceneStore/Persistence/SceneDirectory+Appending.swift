import Foundation

/// A save as a record appended to the scene file's log (see
/// SceneFileLog.swift): the one write and `fdatasync` a commit needs,
/// where replacing the file takes a new file, its `fsync`, an exchange and
/// the directory's `fsync`.
extension SceneDirectory {
    /// Appends `record` at the end of scene `id`'s log, then `fdatasync`s.
    /// Call with the scene lock held. Only when the file is a regular
    /// format 3 file whose log ends whole at `version` (no torn tail;
    /// padding may follow), and whose size with the record stays within
    /// `sizeLimit`. A record that fits in the padding leaves the file's
    /// size as it was, so the sync writes its data alone (``LogAppend``).
    ///
    /// The file is written in place, so a reader without the lock may see
    /// the append half-way: the record's checksum makes that a torn tail,
    /// read as the version before. The record is written through a
    /// descriptor of its own, closed before the sync: the close is what
    /// tells watchers (`IN_CLOSE_WRITE`), so other processes read the
    /// record while it is synced, as they read a replaced file once it is
    /// renamed, before its directory's sync.
    ///
    /// `position`, where this process's last reading or record left the
    /// log at `version`, spares finding the log's end: when the file's
    /// head is the one read then and the log still ends at that offset
    /// (a zero length there, or the file's end), the log ends there, at
    /// that version (an append after it writes a length there, a whole
    /// write makes a new head). The bytes the record will cover are read
    /// back first, for the full-disk case below. Otherwise the whole file
    /// is read and its frames tell, as without it.
    ///
    /// - Returns: whether it appended; `false`: nothing was written.
    /// - Throws: when the write fails, or the sync and the whole write
    ///   that then replaces the file. A record cut short (a full disk) is
    ///   taken back, the file's bytes as they were: nobody can have read
    ///   it. A whole record stays, even when its sync failed: another
    ///   process may have read it, so its generation is never written
    ///   again with other values (the next save reads it and writes after
    ///   it, once the scene is written whole).
    func append(
        _ record: [UInt8], to id: SceneID, over version: DiskVersion, from position: LogPosition? = nil, sizeLimit: Int
    ) throws(SceneStoreError) -> Bool {
        guard let scene = try openScene(id) else { return false }
        let (info, path) = (scene.info, scene.file.path)
        let size = info.size
        let end: (offset: Int, after: Data)
        if let position, position.version == version,
           let known = try logEnd(of: scene.file, size: size, at: position, covering: record.count) {
            end = known
        } else if let found = try logEnd(of: scene.file, size: size), found.version == version {
            end = (found.offset, found.after)
        } else {
            return false
        }
        let append = LogAppend(record: record, end: end.offset, size: size)
        guard append.size <= sizeLimit else { return false }
        // The same file (under the lock nobody replaces it), checked by its inode.
        // Closed before the sync: the close tells watchers (above).
        do {
            let writer = try OpenFile(path, .write, system: system)
            guard (try? writer.status())?.identity == info.identity else { return false }
            var written = 0
            let wrote = append.bytes.withUnsafeBytes { bytes in
                Result { () throws(SceneStoreError) in try writer.write(bytes, at: append.offset, written: &written) }
            }
            if case .failure(let error) = wrote {
                if written < append.recordCount {
                    // The record did not reach its end (a full disk), so nobody
                    // can have read it: the file is put back as it was.
                    if append.inPlace || (try? writer.resize(to: size)) != nil {
                        try? writer.write(end.after, at: append.offset)
                    }
                }
                throw error
            }
        }
        do {
            try scene.file.syncData()
        } catch {
            // Linux may have dropped the record's pages: the file is made
            // durable whole, before the lock goes (``unsyncedScenes``).
            try rewrite(id)
        }
        if directoryUnsynced.withLock({ $0 }) { try syncDirectory() }
        return true
    }

    /// The log's end of the file open as `fd` (`size` bytes) when it is
    /// still where `position` left it (the head as it was, a zero length
    /// or the file's end at its offset), with the bytes from there that an
    /// append of a `recordCount`-byte record writes over (within the
    /// file); `nil` otherwise.
    private func logEnd(
        of file: borrowing OpenFile, size: Int, at position: LogPosition, covering recordCount: Int
    ) throws(SceneStoreError) -> (offset: Int, after: Data)? {
        let covered = min(size, position.offset + recordCount) - position.offset
        guard covered >= 0, try startsWithHead(file, of: position) else { return nil }
        let bytes = try file.read(at: position.offset, count: covered)
        guard bytes.count == covered, bytes.prefix(4).allSatisfy({ $0 == 0 }) else { return nil }
        return (position.offset, bytes)
    }

    /// The version and the log's end of the file open as `fd` (`size`
    /// bytes), read whole, and the bytes from that end to the file's;
    /// `nil` unless the log ends whole.
    private func logEnd(
        of file: borrowing OpenFile, size: Int
    ) throws(SceneStoreError) -> (version: DiskVersion, offset: Int, after: Data)? {
        guard StoredDocument.tooLarge(size: size) == nil else { return nil }
        let data = try file.read(at: 0, count: size)
        guard data.count == size, let (version, end) = data.withUnsafeBytes({ SceneFile.peek($0) }) else { return nil }
        return (version, end, data[end...])
    }

    /// Scene `id`'s file opened to read, and its `fstat` without times
    /// (asking for them would make the next write's `fdatasync` write the
    /// inode too); `nil` when there is none, a symbolic link (never
    /// followed) or anything but a regular file. Closed when the result
    /// goes away.
    func openScene(_ id: SceneID) throws(SceneStoreError) -> OpenScene? {
        guard let file = try openToRead(scenePath(id)).descriptor() else { return nil }
        let info = try file.status()
        guard info.kind == .regular else { return nil }
        return OpenScene(file: file, info: info)
    }

    /// A scene file open to read, and what `fstat` said of it.
    struct OpenScene: ~Copyable {
        let file: OpenFile
        let info: FileStatus
    }
}
