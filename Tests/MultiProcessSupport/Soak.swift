import Foundation

/// How long the soak tests run (torture kills, kill rounds, open/close
/// cycles): their full counts when `SCENESTORE_SOAK=full` (CI sets it),
/// shorter otherwise, so that a local `swift test` stays quick. Counts a
/// test reads from a variable of its own (`SCENESTORE_TORTURE_KILLS`) win.
package enum Soak {
    package static var isFull: Bool {
        ProcessInfo.processInfo.environment["SCENESTORE_SOAK"] == "full"
    }

    /// `full` when the full soak is asked for, else `quick`; `variable`,
    /// when set to a number, overrides both.
    package static func count(quick: Int, full: Int, variable: String? = nil) -> Int {
        if let variable, let value = ProcessInfo.processInfo.environment[variable].flatMap(Int.init) { return value }
        return isFull ? full : quick
    }
}
