extension SceneChange: CustomStringConvertible {
    /// `key: old -> new (origin, generation)`.
    public var description: String {
        "\(key): \(oldValue?.description ?? "(none)") -> \(newValue?.description ?? "(removed)") (\(originDescription))"
    }

    /// `local`, or `external, pid 42`, and the generation if there is one.
    package var originDescription: String {
        var origin: String
        switch self.origin {
        case .local: origin = "local"
        case .external(let pid): origin = "external" + (pid.map { ", pid \($0)" } ?? "")
        }
        if let generation { origin += ", generation \(generation)" }
        return origin
    }
}
