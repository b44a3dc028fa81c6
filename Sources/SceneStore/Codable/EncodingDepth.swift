/// How deep a value's `Encodable` conformance nests, checked before
/// `JSONEncoder` sees it.
///
/// `JSONEncoder` refuses a value nested more than 512 containers deep, but
/// only after it has recursed through all of it: a model 10,000 levels
/// deep overflows an 8 MiB stack (about 1.5 KiB a level) and kills the
/// process before the refusal. This walk runs the value's `encode(to:)`
/// into an encoder that writes nothing and stops at the first container
/// past ``limit``, so the stack it uses is bounded whatever the value's
/// depth; `JSONEncoder` then only gets values it can finish.
package enum EncodingDepth {
    /// The deepest nesting accepted: `JSONEncoder`'s own.
    package static let limit = 512

    /// A value nested deeper than ``limit``.
    package struct TooDeep: Error, CustomStringConvertible {
        package var description: String { "nested more than \(EncodingDepth.limit) levels deep" }
    }

    /// Throws ``TooDeep`` when `value` nests deeper than ``limit``;
    /// rethrows what its `encode(to:)` throws.
    package static func check(_ value: some Encodable) throws {
        try value.encode(to: Probe(depth: 0))
    }

    private struct Probe: Encoder {
        let depth: Int
        var codingPath: [any CodingKey] { [] }
        var userInfo: [CodingUserInfoKey: Any] { [:] }

        /// Encodes `value` one level below this one.
        func descend(_ value: some Encodable) throws {
            guard depth < EncodingDepth.limit else { throw TooDeep() }
            try value.encode(to: Probe(depth: depth + 1))
        }

        func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
            KeyedEncodingContainer(Keyed(probe: self))
        }
        func unkeyedContainer() -> any UnkeyedEncodingContainer { Unkeyed(probe: self) }
        func singleValueContainer() -> any SingleValueEncodingContainer { Single(probe: self) }
    }

    private struct Keyed<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let probe: Probe
        var codingPath: [any CodingKey] { [] }
        mutating func encodeNil(forKey key: Key) {}
        mutating func encode(_ value: some Encodable, forKey key: Key) throws { try probe.descend(value) }
        mutating func nestedContainer<Nested: CodingKey>(
            keyedBy keyType: Nested.Type, forKey key: Key
        ) -> KeyedEncodingContainer<Nested> {
            KeyedEncodingContainer(Keyed<Nested>(probe: Probe(depth: probe.depth + 1)))
        }
        mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
            Unkeyed(probe: Probe(depth: probe.depth + 1))
        }
        mutating func superEncoder() -> any Encoder { Probe(depth: probe.depth + 1) }
        mutating func superEncoder(forKey key: Key) -> any Encoder { Probe(depth: probe.depth + 1) }
    }

    private struct Unkeyed: UnkeyedEncodingContainer {
        let probe: Probe
        var codingPath: [any CodingKey] { [] }
        var count = 0
        mutating func encodeNil() { count += 1 }
        mutating func encode(_ value: some Encodable) throws {
            count += 1
            try probe.descend(value)
        }
        mutating func nestedContainer<Nested: CodingKey>(keyedBy keyType: Nested.Type) -> KeyedEncodingContainer<Nested> {
            count += 1
            return KeyedEncodingContainer(Keyed<Nested>(probe: Probe(depth: probe.depth + 1)))
        }
        mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
            count += 1
            return Unkeyed(probe: Probe(depth: probe.depth + 1))
        }
        mutating func superEncoder() -> any Encoder { Probe(depth: probe.depth + 1) }
    }

    private struct Single: SingleValueEncodingContainer {
        let probe: Probe
        var codingPath: [any CodingKey] { [] }
        mutating func encodeNil() {}
        // A value that encodes itself through a single value container (a
        // wrapper) counts as a level: a chain of them recurses too.
        mutating func encode(_ value: some Encodable) throws { try probe.descend(value) }
        // The leaves, which would otherwise come back here through their
        // own `encode(to:)`.
        mutating func encode(_ value: Bool) {}
        mutating func encode(_ value: String) {}
        mutating func encode(_ value: Double) {}
        mutating func encode(_ value: Float) {}
        mutating func encode(_ value: Int) {}
        mutating func encode(_ value: Int8) {}
        mutating func encode(_ value: Int16) {}
        mutating func encode(_ value: Int32) {}
        mutating func encode(_ value: Int64) {}
        mutating func encode(_ value: UInt) {}
        mutating func encode(_ value: UInt8) {}
        mutating func encode(_ value: UInt16) {}
        mutating func encode(_ value: UInt32) {}
        mutating func encode(_ value: UInt64) {}
    }
}
