extension ScenePath: RandomAccessCollection {
    /// The position of the root element: always `0`.
    public var startIndex: Int { 0 }

    /// The position one past the top element: the path's `count`, the
    /// number of elements above the root.
    public var endIndex: Int { storage.count }

    /// The element at `position`, with its dynamic type erased; traps when
    /// `position` is out of bounds, as an array does;
    /// `path[position] as? Book` reads it as its type.
    public subscript(position: Int) -> any ScenePathElement {
        storage[position]
    }
}
