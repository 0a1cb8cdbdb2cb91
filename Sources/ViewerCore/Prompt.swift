// A one-line text prompt at the bottom of the screen (filter, edit, add), and the yes/no question.
import JSONTree
import LiveQuery
import TableUI

/// What a prompt's answer is for.
enum PromptPurpose {
    /// `/`: a filter on the column `spec`, ordering by `ordering`.
    case filter(spec: ColumnSpec, ordering: Query.Ordering)
    /// `/`: a text to find in the rows.
    case search
    /// `e`: a new value for the cell at `path`, written only while the value there is still
    /// `basis` (the one the prompt opened on, or the change it showed since).
    case edit(path: Path, basis: JSON?)
    /// `X`: which of these hidden columns to show again.
    case showColumn([ColumnSpec])
    /// `a`: the value of a new child of the location.
    case add
    /// `w`: a jq expression filter, narrowing those in force.
    case condition
    /// `E`: the file to write the table to.
    case export
    /// `=`: a computed column's definition, to add after column `after`.
    case computedColumn(after: Int)
    /// A question a sheet asked (`.`: which column to chart against): the answer goes to `take`.
    case answer((String) -> Void)
    /// `%`: how column `spec` shows its numbers.
    case numberFormat(spec: ColumnSpec)
}

/// A line being typed: the text, edited at its end.
struct Prompt {
    let purpose: PromptPurpose
    /// Shown before the text (sanitised when drawn, like everything).
    let label: String
    var text: String
    /// Earlier answers, oldest first, that ↑ and ↓ recall.
    let history: [String]
    /// The answer of `history` shown, while recalling.
    private var recalled: Int?

    init(purpose: PromptPurpose, label: String, text: String, history: [String] = [], note: String? = nil) {
        self.purpose = purpose
        self.label = label
        self.text = text
        self.history = history
        self.note = note
    }
    /// Said on a line above the prompt's: the value changed under an edit prompt.
    var note: String?

    enum Outcome { case editing, accepted, cancelled, reload }

    /// Applies a key: characters are typed, Backspace deletes, Enter accepts, Esc cancels, ↑ and
    /// ↓ recall earlier answers (↓ past the newest: an empty line).
    mutating func handle(_ key: Key) -> Outcome {
        switch key {
        case .enter: return .accepted
        case .escape: return .cancelled
        case .up where !history.isEmpty:
            let i = max(0, (recalled ?? history.count) - 1)
            recalled = i
            text = history[i]
        case .down where recalled != nil:
            let i = recalled! + 1
            recalled = i < history.count ? i : nil
            text = i < history.count ? history[i] : ""
        case .backspace, .delete:
            if !text.isEmpty { text.removeLast() }
        case .character(let c):
            // Ctrl-U clears the line; Ctrl-R asks for the value now there; other control
            // characters are not typed.
            if c == "\u{15}" {
                text = ""
            } else if c == "\u{12}" {
                return .reload
            } else if !(c.unicodeScalars.first.map { $0.value < 0x20 || $0.value == 0x7F } ?? true) {
                text.append(c)
            }
        default: break
        }
        return .editing
    }
}

/// A question answered with y or n.
struct Confirmation {
    /// What a yes does.
    enum Action {
        /// Delete the child at this path.
        case delete(Path)
        /// Write the table over this existing file.
        case overwrite(file: String, format: ExportFormat)
    }

    let question: String
    let action: Action
}

/// A typed value: JSON when it parses (`42`, `true`, `"x"`, `{"a":1}`), else the text as a string.
func typedValue(_ text: String) -> JSON {
    (try? JSONDocument(parsing: Array(text.utf8)))?.root.json ?? .string(text)
}

/// The text to prefill an edit prompt with: a string as it is (quoted only when it would
/// otherwise read as another JSON value), anything else as compact JSON, a missing value empty.
func editableText(_ node: JSONNode?) -> String {
    guard let node, !node.isNull else { return "" }
    if node.kind == .string, let s = node.stringValue {
        if case .string(let read) = typedValue(s), codeUnitsEqual(read, s) { return s }
        return JSON.string(s).serializedString()
    }
    return String(decoding: node.serialized(), as: UTF8.self)
}
