/// Lays the demo out on the terminal: tab bar, breadcrumb, the screen's
/// title, details and links, then the status and key help lines.
struct Renderer {
    /// What the status line reports besides the state.
    struct Status {
        var scene: String
        var watcher: String
        var pid: Int32
        /// "updated by pid N, 0.4 s ago", or `nil` before any external change.
        var lastExternalChange: String?
        /// A one-off notice, such as items dropped at restore.
        var notice: String?
        /// The latest warning the library logged (logs go to a file while
        /// the screen is ours).
        var warning: String?
    }

    static let help = "j/k move  Enter open  b back  f forward  r root  s settings  1 2 3/Tab tabs  x close  q quit"

    /// The frame for a `columns` x `rows` terminal. Below 12 rows the
    /// blank separators, the screen's details and the key help go first,
    /// so the list keeps at least a few rows down to 5 (and one below).
    func frame(state: DemoState, catalog: LibraryCatalog, status: Status, rows: Int, columns: Int = 80) -> Frame {
        let compact = rows < 12
        let screen = state.screen(in: catalog)
        let crumbs = state.breadcrumb(in: catalog)
        var header: [Frame.Line] = [tabBar(selected: state.tab)]
        // A root screen's title is its tab's: shown once, as the title.
        if crumbs.count > 1 || !compact {
            header.append(.text(crumbs.count > 1 ? Self.fitted(crumbs, columns: columns) : "", .dim))
        }
        if !compact { header.append([]) }
        header.append(.text(screen.title, .bold))
        if !compact {
            header += screen.details.map { .text("  " + $0) }
            header.append([])
        }

        var footer: [Frame.Line] = []
        if let notice = status.notice { footer.append(.text(notice, .bold)) }
        if let warning = status.warning { footer.append(.text("warning: " + warning.terminalSafe, .dim)) }
        footer.append(.text(statusText(status, forward: state.forwardCount), .reverse))
        if !compact { footer.append(.text(Self.help, .dim)) }
        // The list keeps 3 rows (or what there is) before the notices do.
        while rows - header.count - footer.count < min(3, rows - 2), footer.count > 1 {
            footer.removeFirst()
        }

        let selected = state.selectedLink(in: catalog)
        let room = max(1, rows - header.count - footer.count - (compact ? 0 : 1))
        let first = max(0, min(selected - room / 2, screen.links.count - room))
        let visible = screen.links.indices.dropFirst(first).prefix(room)
        var body: [Frame.Line] = visible.map { index in
            index == selected
                ? .text("> " + screen.links[index].label, .reverse)
                : .text("  " + screen.links[index].label)
        }
        let filler = rows - header.count - body.count - footer.count
        if filler > 0 { body += Array(repeating: [], count: filler) }
        return Frame(lines: header + body + footer)
    }

    /// The breadcrumb cut from the left to `columns`, so the screens
    /// nearest the current one stay: `… / Number 2 / Number 3`.
    static func fitted(_ crumbs: [String], columns: Int) -> String {
        let whole = crumbs.joined(separator: " / ")
        guard whole.count > columns else { return whole }
        for start in 1..<crumbs.count {
            let cut = (["…"] + crumbs[start...]).joined(separator: " / ")
            if cut.count <= columns { return cut }
        }
        // Even the current screen alone is too wide: Frame cuts it, with "…".
        return "… / " + (crumbs.last ?? "")
    }

    private func tabBar(selected: Tab) -> Frame.Line {
        Tab.allCases.enumerated().flatMap { offset, tab -> [Frame.Run] in
            let label = "\(offset + 1) \(tab.title)"
            return tab == selected
                ? [Frame.Run(text: "[\(label)]", style: .reverse), Frame.Run(text: " ", style: .plain)]
                : [Frame.Run(text: " \(label)  ", style: .plain)]
        }
    }

    private func statusText(_ status: Status, forward: Int) -> String {
        let parts = [
            "scene \(status.scene)", status.watcher, "pid \(status.pid)", "forward \(forward)",
            status.lastExternalChange ?? "no changes from other processes yet",
        ]
        return " " + parts.joined(separator: " | ")
    }
}
