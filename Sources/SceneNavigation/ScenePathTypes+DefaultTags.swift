import Foundation

extension ScenePathTypes {
    /// Fixed tags for standard types, so that paths of plain values need no
    /// tag choices and do not depend on how the standard library spells names.
    private static let standardTags: [ObjectIdentifier: String] = [
        ObjectIdentifier(Bool.self): "bool",
        ObjectIdentifier(Int.self): "int",
        ObjectIdentifier(Int8.self): "int8",
        ObjectIdentifier(Int16.self): "int16",
        ObjectIdentifier(Int32.self): "int32",
        ObjectIdentifier(Int64.self): "int64",
        ObjectIdentifier(UInt.self): "uint",
        ObjectIdentifier(UInt8.self): "uint8",
        ObjectIdentifier(UInt16.self): "uint16",
        ObjectIdentifier(UInt32.self): "uint32",
        ObjectIdentifier(UInt64.self): "uint64",
        ObjectIdentifier(Float.self): "float",
        ObjectIdentifier(Double.self): "double",
        ObjectIdentifier(String.self): "string",
        ObjectIdentifier(UUID.self): "uuid",
        ObjectIdentifier(URL.self): "url",
        ObjectIdentifier(Date.self): "date",
        ObjectIdentifier(Data.self): "data",
    ]

    /// The tag used when a registration names none: the standard tag, or the
    /// type's unqualified name. `String(reflecting:)` is deliberately not
    /// used: for private and local types it embeds a runtime address that
    /// changes from one launch to the next.
    static func defaultTag<Value>(for type: Value.Type) -> String {
        standardTags[ObjectIdentifier(type)] ?? String(describing: type)
    }
}
