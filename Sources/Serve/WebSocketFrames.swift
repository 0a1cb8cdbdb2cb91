// The WebSocket transport's framing of messages: long ones split into numbered frames.
import NIOCore

/// The client SDKs send and accept messages of at most 16,384 characters a frame; a longer one
/// goes as a frame holding the count (`"3"`), then that many pieces.
enum WebSocketFrames {
    static let maxCharacters = 16_384

    /// The frames that carry `message`: itself, or its count and its pieces (cut between
    /// characters, so each piece is valid text; counted in UTF-16 units, as the SDK counts).
    static func split(_ message: String) -> [String] {
        guard message.utf16.count > maxCharacters else { return [message] }
        var pieces = [String]()
        var piece = ""
        var units = 0
        for scalar in message.unicodeScalars {
            let width = scalar.utf16.count
            if units + width > maxCharacters {
                pieces.append(piece)
                piece = ""
                units = 0
            }
            piece.unicodeScalars.append(scalar)
            units += width
        }
        if !piece.isEmpty { pieces.append(piece) }
        return [String(pieces.count)] + pieces
    }
}

/// A message to a client as it goes on the wire: the bytes of its frames, made once. A push is
/// sent to every connection that listens where it changed; they share these buffers (a write
/// copies nothing).
struct WireMessage: Sendable {
    let frames: [ByteBuffer]

    init(_ text: String) {
        frames = WebSocketFrames.split(text).map { ByteBuffer(string: $0) }
    }

    /// The message's text, its frames joined again.
    var text: String {
        let pieces = frames.count == 1 ? frames[...] : frames.dropFirst()
        return pieces.map { String(buffer: $0) }.joined()
    }
}

/// Joins a client's frames into messages, within a byte limit.
struct FrameAssembler {
    enum Step: Equatable {
        /// A whole message.
        case message(String)
        /// More frames are expected, or the frame was a keep-alive (`"0"`).
        case waiting
        /// The message being assembled is over the limit.
        case tooLarge
    }

    let limit: Int
    private var expected = 0
    private var pieces = [String]()
    private var bytes = 0

    init(limit: Int) { self.limit = limit }

    mutating func take(_ frame: String) -> Step {
        if expected == 0 {
            // A frame of at most six characters that is a number announces a split message
            // (the SDK's rule); "0" is the client's keep-alive.
            if frame.utf8.count <= 6, let count = Int(frame) {
                expected = max(count, 0)
                return .waiting
            }
            return frame.utf8.count > limit ? .tooLarge : .message(frame)
        }
        bytes += frame.utf8.count
        guard bytes <= limit else {
            reset()
            return .tooLarge
        }
        pieces.append(frame)
        guard pieces.count == expected else { return .waiting }
        let message = pieces.joined()
        reset()
        return .message(message)
    }

    private mutating func reset() {
        expected = 0
        pieces = []
        bytes = 0
    }
}
