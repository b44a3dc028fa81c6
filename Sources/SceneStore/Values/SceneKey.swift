/// A typed key: a name and the value read when the scene holds none.
///
/// Declare keys once, as static members, so call sites read
/// `store[.selectedTab]`:
///
/// ```swift
/// extension SceneKey where Value == Int {
///     static var selectedTab: Self { .init("selectedTab", default: 0) }
/// }
/// ```
public struct SceneKey<Value: SceneStorable>: Sendable {
    public let name: String
    public let defaultValue: Value

    public init(_ name: String, default defaultValue: Value) {
        self.name = name
        self.defaultValue = defaultValue
    }
}

extension SceneKey where Value: ExpressibleByNilLiteral {
    /// A key for an optional value, read as `nil` when absent.
    public init(_ name: String) {
        self.init(name, default: nil)
    }
}
