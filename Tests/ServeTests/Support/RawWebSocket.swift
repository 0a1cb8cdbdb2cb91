// The WebSocket protocol by hand over a test connection: any frame a hostile client could send
// (unfinished, oversized, out of range), and the server's messages read as they arrive.
import JSONTree

extension HTTPConnection {
    /// Upgrades the connection to the client SDKs' WebSocket protocol; false when refused.
    func upgradeToWebSocket(namespace: String = "test") throws -> Bool {
        let upgrade = "GET /.ws?v=5&ns=\(namespace) HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
        guard send(Array(upgrade.utf8)) else { return false }
        return try readHead().status == 101
    }

    /// Sends one frame, masked with a zero key (so its payload reads as it is).
    @discardableResult
    func sendFrame(_ payload: [UInt8], opcode: UInt8 = 1, fin: Bool = true) -> Bool {
        var head: [UInt8] = [(fin ? 0x80 : 0) | opcode]
        switch payload.count {
        case ..<126: head.append(0x80 | UInt8(payload.count))
        case ..<65536: head += [0x80 | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        default: head += [0x80 | 127] + (0..<8).reversed().map { UInt8(truncatingIfNeeded: payload.count >> ($0 * 8)) }
        }
        return send(head + [0, 0, 0, 0] + payload)
    }

    @discardableResult
    func sendText(_ text: String) -> Bool { sendFrame(Array(text.utf8)) }

    /// Sends a message as the SDKs do: over 16,384 characters, its count of pieces, then the pieces.
    @discardableResult
    func sendMessage(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count > 16_384 else { return sendFrame(bytes) }
        let pieces = stride(from: 0, to: bytes.count, by: 16_384).map { Array(bytes[$0..<min($0 + 16_384, bytes.count)]) }
        return sendText(String(pieces.count)) && pieces.allSatisfy { sendFrame($0) }
    }

    /// The server's next text message (its frames joined); nil when it closed the connection.
    func readMessage(seconds: Double = 20) throws -> JSON? {
        try readText(seconds: seconds).map { try JSONDocument(parsing: Array($0.utf8)).root.json }
    }

    /// The server's next text frame's text; nil when it closed the connection.
    func readText(seconds: Double = 20) throws -> String? {
        while true {
            let head = try readExactly(2, seconds: seconds)
            var length = Int(head[1] & 0x7F)
            if length == 126 {
                length = try readExactly(2, seconds: seconds).reduce(0) { $0 << 8 | Int($1) }
            } else if length == 127 {
                length = try readExactly(8, seconds: seconds).reduce(0) { $0 << 8 | Int($1) }
            }
            let payload = try readExactly(length, seconds: seconds)
            switch head[0] & 0x0F {
            case 8: return nil
            case 1: return String(decoding: payload, as: UTF8.self)
            default: continue
            }
        }
    }

    /// The server's next message as the SDKs read it: a frame holding a count (`"3"`) announces
    /// that many pieces, joined; nil when it closed the connection.
    func readPieces(seconds: Double = 20) throws -> String? {
        guard let first = try readText(seconds: seconds) else { return nil }
        guard first.count <= 6, let count = Int(first) else { return first }
        var whole = ""
        for _ in 0..<count {
            guard let piece = try readText(seconds: seconds) else { return nil }
            whole += piece
        }
        return whole
    }

    /// Reads messages until the answer to request `r` (data messages before it are skipped).
    func readAnswer(to r: Int, seconds: Double = 20) throws -> JSON? {
        while let message = try readMessage(seconds: seconds) {
            if message["d"]?["r"]?.doubleValue == Double(r) { return message["d"]?["b"] }
        }
        return nil
    }

    /// Reads messages until the server closes the connection: true when it did.
    func readUntilClosed(seconds: Double = 20) throws -> Bool {
        do {
            while try readMessage(seconds: seconds) != nil {}
            return true
        } catch let error as HTTPTestError where error.description == "closed" {
            return true
        }
    }
}
