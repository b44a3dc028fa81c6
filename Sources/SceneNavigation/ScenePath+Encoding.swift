import Foundation

extension ScenePath {
    /// Encodes the path as versioned JSON, each element stored as its
    /// registered tag plus its own JSON encoding:
    ///
    /// ```json
    /// {"elements":[{"tag":"int","value":5},{"tag":"book","value":{"title":"Dune"}}],"version":1}
    /// ```
    ///
    /// Keys are sorted, so the output is deterministic: equal paths give the
    /// same bytes however they were built, as long as each element type
    /// encodes deterministically (a `Set`'s order is not; `0.0` and `-0.0`
    /// are equal `Double`s that encode differently).
    ///
    /// - Parameter types: The registry naming every element type in the path.
    /// - Returns: The encoded path, ready for a scene store's `Data` value.
    /// - Throws: ``ScenePathError/unregisteredType(_:position:)`` for the
    ///   first element whose type `types` does not list (nothing is encoded);
    ///   ``ScenePathError/unencodableElement(tag:position:underlying:)`` when
    ///   an element's own encoding fails.
    package func encoded(types: ScenePathTypes) throws(ScenePathError) -> Data {
        var records: [[UInt8]] = []
        records.reserveCapacity(storage.count)
        for (position, element) in storage.enumerated() {
            guard let registration = types.registration(forTypeOf: element) else {
                throw .unregisteredType(String(reflecting: type(of: element)), position: position)
            }
            records.append(try types.memo.record(of: element, registration, at: position))
        }
        return PathDocument.document(ofRecords: records)
    }
}
