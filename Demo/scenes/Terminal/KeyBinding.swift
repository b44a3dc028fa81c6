/// What each key does in the interactive UI.
enum KeyBinding {
    enum Action: Equatable {
        case move(Int)
        case open
        case perform(DemoAction)
        case nextTab
        case quit
        /// Close this window for good (asks first).
        case closeWindow
        /// Ctrl-C: quits as SIGINT would (the scene is saved; exit 130).
        case interrupt
    }

    static func action(for key: Key) -> Action? {
        switch key {
        case .up, .character("k"): .move(-1)
        case .down, .character("j"): .move(1)
        case .enter, .right, .character("l"): .open
        case .left, .backspace, .escape, .character("b"), .character("h"): .perform(.back)
        case .character("f"): .perform(.forward)
        case .character("r"): .perform(.popToRoot)
        case .character("s"): .perform(.showSettings)
        case .character("1"): .perform(.selectTab(.mixed))
        case .character("2"): .perform(.selectTab(.books))
        case .character("3"): .perform(.selectTab(.library))
        case .tab: .nextTab
        case .character("x"): .closeWindow
        case .character("q"), .control("d"): .quit
        case .control("c"): .interrupt
        default: nil
        }
    }
}
