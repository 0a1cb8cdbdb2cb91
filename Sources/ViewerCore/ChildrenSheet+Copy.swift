// `Y`: the selected child's value as JSON, to the terminal's clipboard (OSC 52).
import JSONTree
import TableUI

extension ChildrenSheet {
    /// Terminals cap what OSC 52 carries (xterm and tmux near 100 kB of base64); more is refused.
    static let copyLimit = 74_000

    /// Copies the selected child's value as compact JSON. Every control, DEL, C1 and
    /// bidirectional character, and every invisible format character the screen shows escaped,
    /// is written as a `\u` escape, so the text pasted is the same JSON value and never carries
    /// a raw control character or hidden text.
    func copySelectedValue() {
        guard let (key, value) = selectedChild else {
            message = Message(text: "no row selected", isError: true)
            return
        }
        let path = location.child(key)
        let text = escapingInvisibleFormats(value.json.serializedString(.compact, escaping: .invisibles))
        let size = text.utf8.count
        guard size <= Self.copyLimit else {
            message = Message(text: "not copied: the value of \(path) is \(size) bytes of JSON, more than a terminal's "
                              + "clipboard takes (\(Self.copyLimit)); synctable list prints it", isError: true)
            return
        }
        environment.perform(.copyToClipboard(text))
        message = Message(text: "copied the value of \(path) as JSON (\(size) bytes)", isError: false)
    }
}

/// `json` with each invisible format character as `\uXXXX` (a surrogate pair past U+FFFF): JSON
/// text holds them only inside strings, where the escape means the same character.
private func escapingInvisibleFormats(_ json: String) -> String {
    guard json.unicodeScalars.contains(where: isInvisibleFormat) else { return json }
    var out = String.UnicodeScalarView()
    for scalar in json.unicodeScalars {
        guard isInvisibleFormat(scalar) else {
            out.append(scalar)
            continue
        }
        for unit in String(scalar).utf16 {
            out.append(contentsOf: "\\u".unicodeScalars)
            let hex = String(unit, radix: 16)
            out.append(contentsOf: (String(repeating: "0", count: 4 - hex.count) + hex).unicodeScalars)
        }
    }
    return String(out)
}
