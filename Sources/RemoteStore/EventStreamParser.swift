// The `text/event-stream` framing of a streamed body, as bytes arrive in chunks cut anywhere.
import JSONTree

/// Turns the bytes of a server-sent-events body into `StreamEvent`s.
///
/// Follows the framing of the HTML standard's event streams: lines end with LF, CRLF or CR
/// (a CR at the end of one chunk and an LF at the start of the next are one line end);
/// `event:` names the event, `data:` lines are joined with LF, `:` starts a comment, a blank
/// line ends the event; one space after the colon is dropped. Events of unknown names are
/// skipped, as a browser would.
///
/// Memory is bounded whatever the server sends: comment lines are dropped as they arrive, and
/// an event (with its lines not yet ended) larger than `maximumEventBytes` is an error.
public struct EventStreamParser: Sendable {
    /// The largest event taken: a whole location's `put` may be large, but not endless.
    public static let defaultMaximumEventBytes = 256 << 20

    private var line = [UInt8]()
    private var lastWasCR = false
    private var inComment = false
    private var eventName = [UInt8]()
    private var data = [UInt8]()
    private var hasData = false
    private var failed = false
    public let maximumEventBytes: Int

    public init(maximumEventBytes: Int = defaultMaximumEventBytes) {
        self.maximumEventBytes = maximumEventBytes
    }

    /// The bytes held for the event being read.
    public var bufferedBytes: Int { line.count + eventName.count + data.count }

    /// The events that `chunk` completes, in order; and an error for the first malformed one
    /// (the events before it are kept; the stream is not to be trusted after it, so the
    /// parser then ignores everything).
    public mutating func parse<Bytes: Sequence>(_ chunk: Bytes) -> (events: [StreamEvent], error: RemoteError?) where Bytes.Element == UInt8 {
        var events = [StreamEvent]()
        guard !failed else { return ([], nil) }
        for byte in chunk {
            if byte == 0x0A && lastWasCR {
                lastWasCR = false
                continue
            }
            lastWasCR = byte == 0x0D
            guard byte == 0x0A || byte == 0x0D else {
                if inComment { continue }
                if line.isEmpty && byte == UInt8(ascii: ":") {
                    inComment = true
                    continue
                }
                line.append(byte)
                if bufferedBytes > maximumEventBytes {
                    failed = true
                    return (events, RemoteError(.malformedResponse, "an event is larger than \(maximumEventBytes) bytes"))
                }
                continue
            }
            if inComment {
                inComment = false
                continue
            }
            do throws(RemoteError) {
                if let event = try endLine() { events.append(event) }
            } catch {
                failed = true
                return (events, error)
            }
        }
        return (events, nil)
    }

    /// Handles the line just ended; the event when it was the blank line ending one.
    private mutating func endLine() throws(RemoteError) -> StreamEvent? {
        defer { line.removeAll(keepingCapacity: line.count < 1 << 16) }
        guard !line.isEmpty else { return try dispatch() }
        let colon = line.firstIndex(of: UInt8(ascii: ":")) ?? line.endIndex
        let field = line[..<colon]
        var value = colon < line.endIndex ? line[(colon + 1)...] : []
        if value.first == UInt8(ascii: " ") { value = value.dropFirst() }
        if field.elementsEqual("event".utf8) {
            eventName = Array(value)
        } else if field.elementsEqual("data".utf8) {
            if hasData { data.append(0x0A) }
            data += value
            hasData = true
        }
        return nil
    }

    /// The event the fields read so far make; nil for a block without data or of an unknown name.
    private mutating func dispatch() throws(RemoteError) -> StreamEvent? {
        defer {
            eventName.removeAll()
            data.removeAll(keepingCapacity: data.count < 1 << 16)
            hasData = false
        }
        guard hasData else { return nil }
        let name = String(decoding: eventName, as: UTF8.self)
        switch name {
        case "put", "patch":
            let (path, value) = try Self.pathAndData(name, data)
            if name == "patch" && value.objectValue == nil {
                throw RemoteError(.malformedResponse, "a patch event's data is not an object")
            }
            return name == "put" ? .put(path, value) : .patch(path, value)
        case "keep-alive":
            return .keepAlive
        case "cancel":
            return .cancel(Self.reason(data) ?? "the server cancelled the stream")
        case "auth_revoked":
            return .authRevoked
        default:
            return nil
        }
    }

    /// `{"path": "/a/b", "data": …}`.
    private static func pathAndData(_ name: String, _ bytes: [UInt8]) throws(RemoteError) -> (Path, JSON) {
        let payload: JSON
        do {
            payload = try JSONDocument(parsing: bytes).root.json
        } catch {
            throw RemoteError(.malformedResponse, "a \(name) event's data is not JSON: \(error)")
        }
        guard case .object(let object) = payload, let pathText = object["path"]?.stringValue, let value = object["data"] else {
            throw RemoteError(.malformedResponse, "a \(name) event's data is not {\"path\": …, \"data\": …}")
        }
        guard pathText.hasPrefix("/") else {
            throw RemoteError(.malformedResponse, "a \(name) event's path '\(pathText)' does not start with '/'")
        }
        // Database paths: keys joined by "/", no escapes ("/" cannot be in a key).
        let keys = pathText.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        return (Path(keys: keys), value)
    }

    /// A cancel event's reason: its data as a JSON string, or as text; nil when null or empty.
    private static func reason(_ bytes: [UInt8]) -> String? {
        if let value = try? JSONDocument(parsing: bytes).root.json {
            if let text = value.stringValue { return text }
            if value.isNull { return nil }
        }
        return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self)
    }
}
