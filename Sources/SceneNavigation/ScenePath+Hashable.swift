extension ScenePath: Hashable {
    /// Whether two paths hold equal elements of the same dynamic types, in
    /// the same order.
    public static func == (lhs: ScenePath, rhs: ScenePath) -> Bool {
        guard lhs.storage.count == rhs.storage.count else { return false }
        return zip(lhs.storage, rhs.storage).allSatisfy { pair in
            sameElement(pair.0, pair.1)
        }
    }

    /// Hashes the elements with their dynamic types, in order, so that
    /// equal paths hash equally and `Int8(1)` and `1` need not.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(storage.count)
        for element in storage {
            hasher.combine(ObjectIdentifier(type(of: element)))
            element.hash(into: &hasher)
        }
    }
}

/// Compares two erased elements: equal only if both have the same dynamic
/// type and that type's `==` says so.
private func sameElement(_ lhs: any ScenePathElement, _ rhs: any ScenePathElement) -> Bool {
    func compare<Value: ScenePathElement>(_ lhs: Value) -> Bool {
        guard ObjectIdentifier(type(of: rhs)) == ObjectIdentifier(Value.self),
              let rhs = rhs as? Value
        else { return false }
        return lhs == rhs
    }
    return compare(lhs)
}
