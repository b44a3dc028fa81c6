#if canImport(Glibc)
import Glibc
#endif

/// The names in the directory at `path`, `.` and `..` left out, as
/// `readdir` lists them (nothing is `stat`ed).
func directoryEntries(_ path: String) throws(SceneStoreError) -> [String] {
    try directoryEntries(path) { _, name in name }
}

/// The entries of the directory at `path` as `transform` makes them from
/// the open directory's descriptor (for `fstatat`) and each name; `nil`
/// leaves the entry out.
func directoryEntries<Entry>(
    _ path: String, _ transform: (_ directory: Int32, _ name: String) -> Entry?
) throws(SceneStoreError) -> [Entry] {
    let directory = try syscall("opendir", path: path) { opendir(path) }
    defer { closedir(directory) }
    let fd = dirfd(directory)
    var entries: [Entry] = []
    while let entry = readdir(directory) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
        if name != ".", name != "..", let made = transform(fd, name) { entries.append(made) }
    }
    return entries
}
