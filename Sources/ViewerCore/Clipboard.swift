// Copying text to the terminal's clipboard with OSC 52, which works over ssh and in tmux.
#if canImport(Glibc)
import Glibc
#endif
import TableUI

/// The OSC 52 sequence that sets the clipboard to `text`: `ESC ] 52 ; c ; BASE64 BEL`. The
/// text is base64-encoded, so whatever it holds cannot act on the terminal.
public func clipboardSequence(_ text: String) -> [UInt8] {
    Array("\u{1B}]52;c;".utf8) + base64(Array(text.utf8)) + [0x07]
}

/// Why `text` may not go on the clipboard, or nil when it may: the clipboard gets exactly what
/// the screen shows, and text with control characters (C0, DEL, C1) or bidirectional controls
/// shows escaped. Copying the escapes would give the user a different text than the one they
/// chose; copying the raw text could, once pasted, end a shell's bracketed paste (`ESC [201~`)
/// and run what follows a newline. So such text is not copied at all.
func clipboardRefusal(_ text: String) -> String? {
    let shown = sanitize(text)
    guard shown != text else { return nil }
    return "not copied: \(shown) holds control or bidirectional characters"
}

/// Writes the OSC 52 sequence for `text` to `fd` (the terminal).
public func copyToClipboard(_ text: String, fd: Int32) {
    let bytes = clipboardSequence(text)
    bytes.withUnsafeBytes { p in
        var done = 0
        while done < p.count {
            let n = write(fd, p.baseAddress! + done, p.count - done)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return }
            done += n
        }
    }
}

/// Standard base64 (RFC 4648) with padding.
func base64(_ bytes: [UInt8]) -> [UInt8] {
    let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    var out: [UInt8] = []
    out.reserveCapacity((bytes.count + 2) / 3 * 4)
    var i = 0
    while i < bytes.count {
        let b0 = UInt32(bytes[i])
        let b1 = i + 1 < bytes.count ? UInt32(bytes[i + 1]) : 0
        let b2 = i + 2 < bytes.count ? UInt32(bytes[i + 2]) : 0
        let n = b0 << 16 | b1 << 8 | b2
        out.append(alphabet[Int(n >> 18 & 63)])
        out.append(alphabet[Int(n >> 12 & 63)])
        out.append(i + 1 < bytes.count ? alphabet[Int(n >> 6 & 63)] : UInt8(ascii: "="))
        out.append(i + 2 < bytes.count ? alphabet[Int(n & 63)] : UInt8(ascii: "="))
        i += 3
    }
    return out
}
