import Foundation

/// What a fuzzer executable does with its inputs, shared by both fuzzers.
///
/// Built with `-DFUZZING`, a fuzzer exports `LLVMFuzzerTestOneInput`, which
/// calls ``runOne(_:_:_:)``. Built without it, its `main` calls
/// ``replay(_:arguments:)``, so a plain `swift build` makes a program that
/// runs the same check over files (`swift run SceneFileFuzzer crash-123`).
package enum FuzzEntry {
    /// A fuzz check: returns for an input that keeps every property, throws
    /// for one that breaks one. A crash in the code under test is a finding
    /// too.
    package typealias Check = (Data) throws(FuzzFailure) -> Void

    /// Runs `check` on one input from libFuzzer; a broken property aborts,
    /// which libFuzzer reports as a crash and saves the input.
    package static func runOne(_ check: Check, _ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
        // The fuzzer's own buffer, not a copy: AddressSanitizer then catches a
        // read one byte past the input.
        let data = bytes.map { Data(bytesNoCopy: UnsafeMutableRawPointer(mutating: $0), count: count, deallocator: .none) } ?? Data()
        do {
            try check(data)
        } catch {
            FileHandle.standardError.write(Data("fuzz check failed: \(error)\n".utf8))
            abort()
        }
        return 0
    }

    /// Runs `check` on every file named in `arguments` (directories: every
    /// file in them) and prints one line per failure.
    ///
    /// - Returns: The exit status: 0 when every input passed, 1 otherwise.
    package static func replay(_ check: Check, arguments: [String]) -> Int32 {
        guard !arguments.isEmpty else {
            FileHandle.standardError.write(Data("usage: \(CommandLine.arguments.first ?? "fuzzer") FILE-OR-DIRECTORY...\n".utf8))
            return 2
        }
        var passed = 0
        var failed = 0
        for path in arguments.flatMap(files) {
            do {
                try check(try Data(contentsOf: URL(fileURLWithPath: path)))
                passed += 1
            } catch {
                print("FAIL \(path): \(error)")
                failed += 1
            }
        }
        print("\(passed) passed, \(failed) failed")
        return failed == 0 ? 0 : 1
    }

    /// `path` itself, or the files in it if it is a directory, sorted.
    private static func files(_ path: String) -> [String] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else {
            return [path]
        }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        return names.sorted().map { path + "/" + $0 }
    }
}
