extension ScenePath: CustomStringConvertible {
    /// The elements, root first, each written as `String(reflecting:)` does.
    public var description: String {
        "ScenePath([" + storage.map { String(reflecting: $0) }.joined(separator: ", ") + "])"
    }
}
