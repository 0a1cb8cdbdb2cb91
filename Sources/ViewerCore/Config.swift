// The user's configuration: `$XDG_CONFIG_HOME/synctable/config.json` (default flags, key
// bindings, colours). Read whole and checked before the viewer starts: a bad file is an error
// naming its line and column, never half applied.
#if canImport(Glibc)
import Glibc
#endif
import JSONTree
import TableUI

/// What the configuration file sets. Every part is optional.
///
/// ```json
/// {
///   "flags": {"page-size": 100, "no-animation": true, "edit": true, "no-cache": true, "columns": "-email",
///             "computed": ["ratio = .score / .level"]},
///   "keys": {"searchNext": ["n", "Ctrl-N"], "quit": ["q", "Q"]},
///   "colors": {"inserted": {"fg": 231, "bg": 28, "attrs": ["bold"]}, "removed": {"bg": 88}}
/// }
/// ```
public struct ViewerConfig: Equatable {
    public var pageSize: Int?
    public var noAnimation: Bool?
    /// Keys may write to the file, as with `--edit`.
    public var edit: Bool?
    /// No key writes: the default, kept so that older files still load; it wins over `edit`.
    public var readOnly: Bool?
    public var noCache: Bool?
    public var columns: String?
    /// Columns computed from each row (`--computed` adds more after them).
    public var computed: [ComputedColumn] = []
    /// Keys for actions, replacing the standard keys of each action named.
    public var keys: [ViewerAction: [Key]] = [:]
    public var styles: ThemeStyles = ThemeStyles()

    public init() {}

    /// `$XDG_CONFIG_HOME/synctable/config.json`, or `$HOME/.config/synctable/config.json`.
    public static func standardPath(environment: [String: String]) -> String? {
        if let xdg = environment["XDG_CONFIG_HOME"], xdg.hasPrefix("/") { return xdg + "/synctable/config.json" }
        guard let home = environment["HOME"], !home.isEmpty else { return nil }
        return home + "/.config/synctable/config.json"
    }

    /// The configuration in `path`; nil when there is no such file.
    /// - Throws: `ConfigError` when it cannot be read, is not JSON, or sets something unknown or
    ///   of the wrong kind.
    public static func load(path: String) throws(ConfigError) -> ViewerConfig? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            if errno == ENOENT { return nil }
            throw ConfigError(file: path, line: 0, column: 0, message: "cannot read: \(String(cString: strerror(errno)))")
        }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = read(fd, &buffer, buffer.count)
            if n < 0 && errno == EINTR { continue }
            if n < 0 { throw ConfigError(file: path, line: 0, column: 0, message: "cannot read: \(String(cString: strerror(errno)))") }
            if n == 0 { break }
            bytes += buffer[0..<n]
        }
        return try ViewerConfig(parsing: bytes, file: path)
    }

    /// - Throws: `ConfigError` with the line and column of the problem.
    public init(parsing bytes: [UInt8], file: String) throws(ConfigError) {
        let document: JSONDocument
        do {
            document = try JSONDocument(parsing: bytes)
        } catch {
            throw ConfigError(file: file, line: error.line, column: error.column, message: error.message)
        }
        let reader = ConfigReader(file: file, document: document)
        let root = document.root
        try reader.expect(root, .object, "the configuration")
        for (name, value) in try reader.members(root) {
            switch name {
            case "flags": try readFlags(value, reader)
            case "keys": try readKeys(value, reader)
            case "colors": styles = try ThemeStyles(value, reader)
            default: throw reader.error(at: value, "unknown section \"\(name)\" (flags, keys, colors)")
            }
        }
    }

    private mutating func readFlags(_ node: JSONNode, _ reader: ConfigReader) throws(ConfigError) {
        try reader.expect(node, .object, "flags")
        for (name, value) in try reader.members(node) {
            switch name {
            case "page-size":
                guard value.kind == .number, let n = Int(value.numberText ?? ""), n >= 0 else {
                    throw reader.error(at: value, "page-size: a whole number, 0 or more")
                }
                pageSize = n
            case "no-animation": noAnimation = try reader.bool(value, name)
            case "edit": edit = try reader.bool(value, name)
            case "read-only": readOnly = try reader.bool(value, name)
            case "no-cache": noCache = try reader.bool(value, name)
            case "columns":
                guard let text = value.stringValue else { throw reader.error(at: value, "columns: a string such as \"name,score\" or \"-email\"") }
                columns = text
            case "computed":
                for definition in value.kind == .array ? Array(value.elements) : [value] {
                    guard let text = definition.stringValue else {
                        throw reader.error(at: definition, "computed: a string such as \"ratio = .score / .level\", or a list of them")
                    }
                    do { computed.append(try ComputedColumn(definition: text)) } catch {
                        throw reader.error(at: definition, "computed: \(error)")
                    }
                }
            default:
                throw reader.error(at: value, "unknown flag \"\(name)\" (page-size, no-animation, edit, read-only, no-cache, columns, computed)")
            }
        }
    }

    private mutating func readKeys(_ node: JSONNode, _ reader: ConfigReader) throws(ConfigError) {
        try reader.expect(node, .object, "keys")
        for (name, value) in try reader.members(node) {
            guard let action = ViewerAction.allCases.first(where: { $0.name == name }) else {
                throw reader.error(at: value, "unknown action \"\(name)\" (the actions: \(ViewerAction.allCases.map(\.name).joined(separator: ", ")))")
            }
            let names: [JSONNode] = value.kind == .array ? Array(value.elements) : [value]
            var keys: [Key] = []
            for keyNode in names {
                guard let text = keyNode.stringValue, let key = parseKeyName(text) else {
                    throw reader.error(at: keyNode, "\(name): not a key: \(keyNode.json.serializedString(escaping: .invisibles)) "
                                       + "(a character, or Enter, Esc, Tab, Shift-Tab, Backspace, Delete, Up, Down, Left, Right, PgUp, PgDn, Home, End, Space, Ctrl-A…Ctrl-Z)")
                }
                keys.append(key)
            }
            guard !keys.isEmpty else { throw reader.error(at: value, "\(name): at least one key") }
            self.keys[action] = keys
        }
    }

    /// `base` with the configured keys: an action named gets exactly its configured keys, and
    /// a key given to one action is taken from any other (so each key does one thing). The
    /// help screen shows the keys as bound.
    public func keyBindings(_ base: [KeyBinding]) -> [KeyBinding] {
        guard !keys.isEmpty else { return base }
        let taken = Set(keys.values.flatMap { $0 })
        return base.map { binding in
            let bound = keys[binding.action] ?? binding.keys.filter { !taken.contains($0) }
            let label = keys[binding.action] == nil && bound == binding.keys ? binding.label : bound.map(keyName).joined(separator: " ")
            return KeyBinding(label.isEmpty ? "(none)" : label, bound, binding.action, binding.help)
        }
    }
}

/// A configuration problem, as `FILE:LINE:COLUMN: error: MESSAGE`.
public struct ConfigError: Error, Equatable, CustomStringConvertible {
    public let file: String
    /// 1-based; 0 when the problem is the file itself (it cannot be read).
    public let line: Int
    public let column: Int
    public let message: String

    public var description: String {
        line > 0 ? "\(file):\(line):\(column): error: \(message)" : "\(file): error: \(message)"
    }

    /// `FILE:LINE:COLUMN: MESSAGE`, for a program that adds its own `error:` prefix.
    public var located: String {
        line > 0 ? "\(file):\(line):\(column): \(message)" : "\(file): \(message)"
    }
}

/// Reads a configuration document, with errors that point into it.
struct ConfigReader {
    let file: String
    let document: JSONDocument

    func error(at node: JSONNode, _ message: String) -> ConfigError {
        let (line, column) = lineAndColumn(of: node.byteRange.lowerBound)
        return ConfigError(file: file, line: line, column: column, message: message)
    }

    func expect(_ node: JSONNode, _ kind: JSONKind, _ what: String) throws(ConfigError) {
        guard node.kind == kind else { throw error(at: node, "\(what): expected an \(kind == .object ? "object" : "array")") }
    }

    func members(_ node: JSONNode) throws(ConfigError) -> [(String, JSONNode)] {
        var seen: Set<String> = []
        var out: [(String, JSONNode)] = []
        for (key, value) in node.members {
            let name = key.stringValue ?? ""
            guard seen.insert(name).inserted else { throw error(at: value, "\"\(name)\" is set twice") }
            out.append((name, value))
        }
        return out
    }

    func bool(_ node: JSONNode, _ name: String) throws(ConfigError) -> Bool {
        guard node.kind == .bool, let b = node.boolValue else { throw error(at: node, "\(name): true or false") }
        return b
    }

    /// The 1-based line and column (in Unicode scalars) of a byte offset.
    func lineAndColumn(of offset: Int) -> (Int, Int) {
        var line = 1
        var lineStart = 0
        let bytes = document.bytes
        for i in 0..<min(offset, bytes.count) where bytes[i] == 0x0A {
            line += 1
            lineStart = i + 1
        }
        let column = bytes[lineStart..<min(offset, bytes.count)].reduce(1) { n, b in (b & 0xC0) == 0x80 ? n : n + 1 }
        return (line, column)
    }
}

// MARK: - Colours

/// The table's looks a configuration may set, by role.
public struct ThemeStyles: Equatable {
    public enum Role: String, CaseIterable, Sendable {
        case header, row, inserted, removed, changed, changedCell, moved, marker, match, note
    }

    public var styles: [Role: CellStyle] = [:]

    public init() {}

    init(_ node: JSONNode, _ reader: ConfigReader) throws(ConfigError) {
        try reader.expect(node, .object, "colors")
        for (name, value) in try reader.members(node) {
            guard let role = Role(rawValue: name) else {
                throw reader.error(at: value, "unknown colour role \"\(name)\" (\(Role.allCases.map(\.rawValue).joined(separator: ", ")))")
            }
            styles[role] = try Self.style(value, name, reader)
        }
    }

    /// `{"fg": 0–255, "bg": 0–255, "attrs": ["bold", "dim", "reverse", "underline"]}`.
    private static func style(_ node: JSONNode, _ role: String, _ reader: ConfigReader) throws(ConfigError) -> CellStyle {
        try reader.expect(node, .object, role)
        var style = CellStyle()
        for (name, value) in try reader.members(node) {
            switch name {
            case "fg", "bg":
                guard value.kind == .number, let n = Int(value.numberText ?? ""), (0...255).contains(n) else {
                    throw reader.error(at: value, "\(role).\(name): a colour number from 0 to 255")
                }
                if name == "fg" { style.foreground = n } else { style.background = n }
            case "attrs":
                guard value.kind == .array else { throw reader.error(at: value, "\(role).attrs: an array such as [\"bold\"]") }
                for item in value.elements {
                    switch item.stringValue {
                    case "bold"?: style.attributes.insert(.bold)
                    case "dim"?: style.attributes.insert(.dim)
                    case "reverse"?: style.attributes.insert(.reverse)
                    case "underline"?: style.attributes.insert(.underline)
                    default: throw reader.error(at: item, "\(role).attrs: bold, dim, reverse or underline")
                    }
                }
            default: throw reader.error(at: value, "\(role): unknown \"\(name)\" (fg, bg, attrs)")
            }
        }
        return style
    }

    /// `theme` with these styles; without colours (`NO_COLOR`, a monochrome terminal) only
    /// their attributes apply.
    public func applied(to theme: TableTheme, colors: ColorSupport) -> TableTheme {
        var theme = theme
        for (role, configured) in styles {
            var style = configured
            if colors == .none {
                style.foreground = -1
                style.background = -1
            }
            switch role {
            case .header: theme.header = style
            case .row: theme.row = style
            case .inserted: theme.inserted = [style]
            case .removed: theme.deleted = style
            case .changed: theme.flash = style
            case .changedCell: theme.changedCell = style
            case .moved: theme.moved = style
            case .marker: theme.marker = style
            case .match: theme.match = style
            case .note: theme.note = style
            }
        }
        return theme
    }
}

// MARK: - Key names

/// A key from its name in a configuration: one character, or a name such as `Enter`, `PgDn`,
/// `Ctrl-N`.
func parseKeyName(_ text: String) -> Key? {
    if text.count == 1, let c = text.first, !(c.unicodeScalars.first!.value < 0x20) { return .character(c) }
    switch text.lowercased() {
    case "enter", "return": return .enter
    case "esc", "escape": return .escape
    case "tab": return .tab
    case "shift-tab", "backtab": return .backTab
    case "backspace": return .backspace
    case "delete", "del": return .delete
    case "up": return .up
    case "down": return .down
    case "left": return .left
    case "right": return .right
    case "pgup", "pageup": return .pageUp
    case "pgdn", "pagedown": return .pageDown
    case "home": return .home
    case "end": return .end
    case "space": return .character(" ")
    default: break
    }
    let lower = text.lowercased()
    if lower.hasPrefix("ctrl-"), lower.count == 6, let c = lower.last?.asciiValue, c >= 0x61, c <= 0x7A {
        return .character(Character(Unicode.Scalar(c - 0x60)))
    }
    return nil
}

/// How the help screen writes a key.
func keyName(_ key: Key) -> String {
    switch key {
    case .character(" "): return "Space"
    case .character(let c):
        if let v = c.unicodeScalars.first?.value, v < 0x20 { return "Ctrl-" + String(Character(Unicode.Scalar(v + 0x40)!)) }
        return String(c)
    case .enter: return "Enter"
    case .escape: return "Esc"
    case .tab: return "Tab"
    case .backTab: return "Shift-Tab"
    case .backspace: return "Backspace"
    case .delete: return "Delete"
    case .up: return "↑"
    case .down: return "↓"
    case .left: return "←"
    case .right: return "→"
    case .pageUp: return "PgUp"
    case .pageDown: return "PgDn"
    case .home: return "Home"
    case .end: return "End"
    default: return "\(key)"
    }
}
