// The WebSocket transport's framing of messages: long ones split into numbered frames.
import NIOCore
import HummingbirdWebSocket
import NIOWebSocket
import ServiceLifecycle
import Synchronization

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
    /// Its frames whole, each a final text frame with its header (a server's frames are not
    /// masked, so they are the same bytes for every client).
    let framed: ByteBuffer
    /// Each frame's text, within `framed`.
    let frames: [ByteBuffer]

    init(_ text: String) {
        let pieces = WebSocketFrames.split(text)
        var framed = ByteBuffer()
        framed.reserveCapacity(pieces.reduce(0) { $0 + $1.utf8.count + 10 })
        var ranges = [Range<Int>]()
        for piece in pieces {
            let length = piece.utf8.count
            framed.writeInteger(UInt8(0x81))
            switch length {
            case ..<126: framed.writeInteger(UInt8(length))
            case ..<65_536: framed.writeMultipleIntegers(UInt8(126), UInt16(length))
            default: framed.writeMultipleIntegers(UInt8(127), UInt64(length))
            }
            let start = framed.writerIndex
            framed.writeString(piece)
            ranges.append(start..<framed.writerIndex)
        }
        self.framed = framed
        frames = ranges.map { framed.getSlice(at: $0.lowerBound, length: $0.count)! }
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

    /// Whether a split message's pieces are awaited.
    var isAssembling: Bool { expected > 0 }
    /// The bytes of the pieces held.
    var heldBytes: Int { bytes }

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
        // A piece costs its bytes and its place in the list (empty pieces are not free).
        bytes += frame.utf8.count + MemoryLayout<String>.stride
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

/// Since when a client's message has been unfinished: its WebSocket frames (continuation frames
/// without FIN yet), or the numbered pieces of a split message. Shared by the connection's
/// reader, its loop and the watch that closes it.
final class UnfinishedMessages: Sendable {
    private struct State {
        var frames: ContinuousClock.Instant?
        var pieces: ContinuousClock.Instant?
    }

    private let state = Mutex(State())

    func framesStarted() { state.withLock { $0.frames = $0.frames ?? .now } }
    func framesEnded() { state.withLock { $0.frames = nil } }
    func piecesStarted() { state.withLock { $0.pieces = $0.pieces ?? .now } }
    func piecesEnded() { state.withLock { $0.pieces = nil } }

    /// Whether a message has been unfinished for longer than `limit`.
    func isOverdue(_ limit: Duration) -> Bool {
        state.withLock { state in
            guard let oldest = state.frames.map({ min($0, state.pieces ?? $0) }) ?? state.pieces else { return false }
            return ContinuousClock.now - oldest > limit
        }
    }
}

/// The connections' unfinished messages, watched by one task of the server rather than by one
/// task a connection waking every second. A service of the server's group: it runs where the
/// server runs, timed on an event loop (`ServiceTimer`), its wake-ups not waiting for the
/// concurrency pool.
final class UnfinishedSweeper: Service, Sendable {
    typealias Close = @Sendable () async -> Void

    private let watched = Mutex([ObjectIdentifier: (messages: UnfinishedMessages, close: Close)]())
    /// How long a message may stay unfinished.
    let limit: Duration

    init(limit: Duration) { self.limit = limit }

    /// Calls `close` once `messages` has held a message unfinished for longer than the limit.
    func watch(_ messages: UnfinishedMessages, close: @escaping Close) {
        watched.withLock { $0[ObjectIdentifier(messages)] = (messages, close) }
    }

    func unwatch(_ messages: UnfinishedMessages) {
        _ = watched.withLock { $0.removeValue(forKey: ObjectIdentifier(messages)) }
    }

    /// Every quarter of the limit (a second at most), closes the connections with an overdue
    /// message, each in a task of its own (a client that does not read holds up no other);
    /// ends when the server stops.
    func run() async throws {
        let period = min(limit / 4, .seconds(1))
        await withDiscardingTaskGroup { group in
            await ServiceTimer().every(TimeAmount(period)) {
                for close in overdue() { group.addTask { await close() } }
            }
        }
    }

    /// The closes of the connections whose message is overdue, no longer watched.
    private func overdue() -> [Close] {
        watched.withLock { watched in
            var late = [Close]()
            for (key, entry) in watched where entry.messages.isOverdue(limit) {
                late.append(entry.close)
                watched[key] = nil
            }
            return late
        }
    }
}

/// Joins a client's WebSocket frames (a text frame and its continuation frames) into messages,
/// within a byte limit, charging what an unfinished message holds to the connection.
struct MessageReader {
    enum Step {
        case waiting
        case message(String)
        /// The connection is to be closed: why.
        case refused(WebSocketErrorCode, String)
    }

    let limit: Int
    let account: MemoryAccount
    let unfinished: UnfinishedMessages
    private var message: ByteBuffer?
    /// Whether the message being joined is text (a binary one is read, charged and dropped).
    private var isText = true
    private var charged = 0

    init(limit: Int, account: MemoryAccount, unfinished: UnfinishedMessages) {
        self.limit = limit
        self.account = account
        self.unfinished = unfinished
    }

    mutating func take(_ frame: WebSocketDataFrame) -> Step {
        switch frame.opcode {
        case .text, .binary:
            guard message == nil else { return .refused(.protocolError, "a new message began before the last one ended") }
            if frame.fin { return frame.opcode == .text ? .message(String(buffer: frame.data)) : .waiting }
            message = frame.data
            isText = frame.opcode == .text
            unfinished.framesStarted()
        case .continuation:
            guard message != nil else { return .refused(.protocolError, "a continuation frame with no message begun") }
            var data = frame.data
            message!.writeBuffer(&data)
        }
        guard message!.readableBytes <= limit else { return .refused(.messageTooLarge, "a message is over \(limit) bytes") }
        // What the buffer holds (it grows by doubling), not only what was sent.
        let size = message!.capacity
        if size > charged {
            if let refusal = account.charge(size - charged) { return .refused(.policyViolation, refusal) }
            charged = size
        }
        guard frame.fin else { return .waiting }
        let text = String(buffer: message!)
        message = nil
        close()
        return isText ? .message(text) : .waiting
    }

    /// Gives back what the unfinished message held.
    mutating func close() {
        account.release(charged)
        charged = 0
        unfinished.framesEnded()
    }
}
