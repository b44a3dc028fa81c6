import Foundation
import FuzzChecks

// Fuzzes the navigation path decoders (`ScenePath.restore`, typed stacks, references) with
// `ScenePathCheck`; see .ci/fuzz.

#if FUZZING
/// libFuzzer's entry point: one input per call.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    FuzzEntry.runOne(ScenePathCheck.check, bytes, count)
}
#else
/// Without libFuzzer: replays the files and directories given as arguments.
@main
enum CorpusReplay {
    static func main() {
        exit(FuzzEntry.replay(ScenePathCheck.check, arguments: Array(CommandLine.arguments.dropFirst())))
    }
}
#endif
