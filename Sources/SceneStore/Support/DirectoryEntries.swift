#if canImport(Glibc)
import Glibc
#endif

/// The names in the directory at `path`, `.` and `..` left out, as
/// `readdir` lists them (nothing is `stat`ed).
func directoryEntries(_ path: String) throws(SceneStoreError) -> [String] {
    guard let directory = opendir(path) else { throw .io(syscall: "opendir", path: path, errno: errno) }
    defer { closedir(directory) }
    var names: [String] = []
    while let entry = readdir(directory) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
        if name != "." && name != ".." { names.append(name) }
    }
    return names
}
