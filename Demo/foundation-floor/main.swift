// `scenes-lab bench compare`'s floor for `scenes get` as a whole process:
// a Swift program that only imports Foundation, reads its arguments and
// exits (the least any Foundation command-line tool does).
import Foundation

exit(ProcessInfo.processInfo.arguments.isEmpty ? 1 : 0)
