#if Postgres
import Foundation

extension PostgresLocation {
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

    /// `url`, which does not parse as a URL, as a message may show it:
    /// what lies between the first `:` after `//` and the last `@` (the
    /// password, and more if an `@` follows it) removed, and all after the
    /// first `?` or `#` shown as `***`.
    static func redacted(_ url: String) -> String {
        var text = url
        if let slashes = text.range(of: "//"), let at = text.lastIndex(of: "@"), slashes.upperBound < at,
           let colon = text[slashes.upperBound..<at].firstIndex(of: ":") {
            text = String(text[..<colon] + text[at...])
        }
        if let cut = text.firstIndex(where: { $0 == "?" || $0 == "#" }) {
            text = String(text[...cut]) + "***"
        }
        return text
    }
}
#endif
