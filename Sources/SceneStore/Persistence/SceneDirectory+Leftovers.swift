import Foundation

/// What crashed writers leave in the root: a scene's temp files and
/// previous-version links (the windows' scene's included). Listed once
/// (``SceneDirectory/leftovers``), each removed under the lock that a
/// live writer holds while it has one.
extension SceneDirectory {
    /// What one listing of the root found.
    struct Leftovers {
        /// The scenes with temp files or previous-version links.
        var scenes: Set<SceneID>
    }

    /// Deletes the temp files and previous-version links that crashed
    /// writers left for scene `id`, once, if the root had any when it was
    /// listed. Under the scene lock (taken here unless `holdingLock`): a
    /// live writer only has a temp file while it holds it.
    func removeLeftoversOnce(of id: SceneID, holdingLock: Bool) throws(SceneStoreError) {
        guard withLeftovers({ $0.scenes.remove(id) != nil }) == true else { return }
        let lock = holdingLock ? nil : try lock(.scene(id))
        defer { lock?.unlock() }
        guard let names = try? system.entries(ofDirectory: rootPath) else { return }
        for name in names where Self.leftoverOwner(name) == id {
            try? system.unlink(rootPath + "/" + name)
        }
    }

    /// `body` over what the one listing of the root found, listing it
    /// first if nobody has; `nil` for a registry that cleans nothing.
    private func withLeftovers<Result>(_ body: (inout Leftovers) -> Result) -> Result? {
        guard cleansLeftovers else { return nil }
        return leftovers.withLock { listed in
            var found = listed ?? {
                let names = (try? system.entries(ofDirectory: rootPath)) ?? []
                return Leftovers(scenes: Set(names.compactMap(Self.leftoverOwner)))
            }()
            defer { listed = found }
            return body(&found)
        }
    }

    /// `main` for `.main~tmp-<16 hex>` or `.main~prev-<16 hex>`, exactly;
    /// `nil` for everything else (locks and tombstones included).
    static func leftoverOwner(_ name: String) -> SceneID? {
        guard name.hasPrefix("."), let cut = name.firstIndex(of: Character(separator)) else { return nil }
        let side = name[name.index(after: cut)...]
        let token: Substring
        if side.hasPrefix("tmp-") {
            token = side.dropFirst(4)
        } else if side.hasPrefix("prev-") {
            token = side.dropFirst(5)
        } else {
            return nil
        }
        guard token.utf8.count == 16, token.utf8.allSatisfy({ isLowerHex($0) }) else { return nil }
        return SceneID(stored: String(name[name.index(after: name.startIndex)..<cut]))
    }

    private static func isLowerHex(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
    }
}
