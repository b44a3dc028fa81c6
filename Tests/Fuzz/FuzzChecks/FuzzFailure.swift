/// A property a fuzz check found broken: what was expected and what the
/// input gave instead. The fuzzers turn it into a crash (so libFuzzer keeps
/// the input); the corpus test turns it into a test failure.
package struct FuzzFailure: Error, CustomStringConvertible {
    package let description: String

    package init(_ description: String) {
        self.description = description
    }
}
