// Keys and mouse events as the run loop sees them, decoded from ncurses' get_wch.
import CNcursesw

/// One key press, mouse event or terminal resize.
public enum Key: Hashable, Sendable {
    /// A printable character (or a control character with no case of its own).
    case character(Character)
    case up, down, left, right
    case pageUp, pageDown, home, end
    case enter, tab, backTab, backspace, delete, escape
    /// F1 is `.function(1)`.
    case function(Int)
    /// The terminal changed size (ncurses' `KEY_RESIZE`); re-render.
    case resize
    case mouse(MouseEvent)
    /// An ncurses key code with no case here.
    case unknown(Int)
}

/// A mouse button press or wheel step at a cell (line and column count from 0).
public struct MouseEvent: Hashable, Sendable {
    public enum Action: Hashable, Sendable { case press, wheelUp, wheelDown }
    public var action: Action
    public var line: Int
    public var column: Int
    public init(_ action: Action, line: Int, column: Int) {
        self.action = action
        self.line = line
        self.column = column
    }
}

extension Key {
    /// The key for a `get_wch` result: `isFunctionKey` when it returned `KEY_CODE_YES`.
    /// Mouse events are read with `getmouse`; nil when there is nothing to report.
    static func decode(_ value: UInt32, isFunctionKey: Bool) -> Key? {
        if !isFunctionKey {
            switch value {
            case 0x0D, 0x0A: return .enter
            case 0x09: return .tab
            case 0x7F, 0x08: return .backspace
            case 0x1B: return .escape
            default:
                guard let scalar = Unicode.Scalar(value) else { return nil }
                return .character(Character(scalar))
            }
        }
        let code = Int32(bitPattern: value)
        switch code {
        case KEY_UP: return .up
        case KEY_DOWN: return .down
        case KEY_LEFT: return .left
        case KEY_RIGHT: return .right
        case KEY_PPAGE: return .pageUp
        case KEY_NPAGE: return .pageDown
        case KEY_HOME, KEY_A1: return .home
        case KEY_END, KEY_C1: return .end
        case KEY_ENTER: return .enter
        case KEY_BACKSPACE: return .backspace
        case KEY_DC: return .delete
        case KEY_BTAB: return .backTab
        case cn_key_resize(): return .resize
        case cn_key_mouse(): return readMouse()
        case KEY_F0 + 1...KEY_F0 + 63: return .function(Int(code - KEY_F0))
        default: return .unknown(Int(code))
        }
    }

    private static func readMouse() -> Key? {
        var event = MEVENT()
        guard getmouse(&event) == cn_ok() else { return nil }
        let state = event.bstate
        let action: MouseEvent.Action
        if state & cn_button4_pressed() != 0 {
            action = .wheelUp
        } else if state & cn_button5_pressed() != 0 {
            action = .wheelDown
        } else if state & (cn_button1_pressed() | cn_button1_clicked_only()) != 0 {
            action = .press
        } else {
            return nil
        }
        return .mouse(MouseEvent(action, line: Int(event.y), column: Int(event.x)))
    }
}
