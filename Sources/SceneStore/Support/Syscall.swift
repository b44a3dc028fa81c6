import SystemPackage
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs a system call that returns -1 and sets `errno` on failure, retrying
/// on `EINTR`, and turns failure into ``SceneStoreError/io(syscall:path:errno:)``.
///
/// - Parameters:
///   - name: the C function, for the error (`"open"`, `"fsync"`, ...).
///   - path: the file the call is about, for the error.
///   - call: the call itself.
/// - Returns: the call's non-negative result.
@discardableResult
package func syscall<R: BinaryInteger>(
    _ name: String, path: String, _ call: () -> R
) throws(SceneStoreError) -> R {
    try syscall(name, path: path) { () -> R? in
        let result = call()
        return result == -1 ? nil : result
    }
}

/// ``syscall(_:path:_:)`` for a call whose failure with one of `expected`
/// is an answer, not an error (`ENOENT` for an `unlink` of what may be
/// gone): `nil` then.
@discardableResult
package func syscall<R: BinaryInteger>(
    _ name: String, path: String, unless expected: Errno..., call: () -> R
) throws(SceneStoreError) -> R? {
    do {
        return try syscall(name, path: path, call)
    } catch .io(_, _, let code) where expected.contains(code) {
        return nil
    } catch {
        throw error
    }
}

/// ``syscall(_:path:_:)`` for a call that returns a pointer, `nil` on
/// failure (`opendir`, `mkdtemp`).
package func syscall<Pointer>(_ name: String, path: String, _ call: () -> Pointer?) throws(SceneStoreError) -> Pointer {
    while true {
        if let result = call() { return result }
        let code = Errno(rawValue: errno)
        if code == .interrupted { continue }
        throw .io(syscall: name, path: path, errno: code)
    }
}
