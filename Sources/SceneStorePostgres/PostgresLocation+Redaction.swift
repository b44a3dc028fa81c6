#if Postgres
import Foundation

extension PostgresLocation {
    /// `url`, refused, as a message may show it: ``display(_:)`` of its
    /// parts when they have an authority (`//`, its user info read as
    /// such), else ``redacted(_:)``: a misspelt URL
    /// (`postgres:/user:secret@host`, no scheme) has its user info in
    /// another part.
    static func shown(_ url: String, _ parts: URLComponents) -> String {
        guard parts.host != nil, let shown = display(parts) else { return redacted(url) }
        return withoutPassword(shown)
    }

    /// `parts` as a message may show them: without the password, each
    /// query value, the name of a parameter libpq does not know, and a
    /// fragment shown as `***`; `nil` if they do not form a URL again.
    static func display(_ parts: URLComponents) -> String? {
        var shown = parts
        shown.password = nil
        shown.percentEncodedQueryItems = parts.percentEncodedQueryItems?.map { item in
            URLQueryItem(name: libpqParameters.contains(item.name) ? item.name : "***", value: item.value.map { _ in "***" })
        }
        if parts.fragment != nil { shown.fragment = "***" }
        return shown.string
    }

    /// `url`, which is not a URL with a host, as a message may show it:
    /// without its password (see ``withoutPassword(_:)``), all after the
    /// first `?` or `#` that follows shown as `***`, and so each value of
    /// a libpq keyword/value string (`host=db password=secret`).
    static func redacted(_ url: String) -> String {
        var text = withoutPassword(url)
        if let cut = text.firstIndex(where: { $0 == "?" || $0 == "#" }) {
            text = String(text[...cut]) + "***"
        }
        return text.replacingOccurrences(of: #"=\s*('([^'\\]|\\.)*'?|\S+)"#, with: "=***", options: .regularExpression)
    }

    /// `text` without whatever looks like the password of user info
    /// (`user:secret@`), parsed or not: from the first `:` after the
    /// scheme (`postgres:` or `postgresql:` and any slashes, or another
    /// scheme and `//`; none if the text starts otherwise) to the last
    /// `@` is removed, so `user@` is all that stays of it.
    static func withoutPassword(_ text: String) -> String {
        guard let at = text.lastIndex(of: "@") else { return text }
        let scheme = text.range(of: "^(postgres(ql)?:/*|[a-z][a-z0-9+.-]*://)", options: [.regularExpression, .caseInsensitive])
        let start = scheme?.upperBound ?? text.startIndex
        guard let colon = text[start..<at].firstIndex(of: ":") else { return text }
        return String(text[..<colon] + text[at...])
    }
}
#endif
