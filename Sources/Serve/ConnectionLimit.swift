// A cap on open connections below the descriptor limit: past it, a connection is answered 503
// and closed at once, so the server keeps answering (and accepting) however many sockets
// clients open.
import NIOCore
import NIOHTTP1
import Synchronization

/// Counts the server's open connections; each new one past `maximum` is refused.
final class ConnectionLimit: Sendable {
    let maximum: Int
    private let open = Atomic(0)

    init(maximum: Int) { self.maximum = maximum }

    /// How many connections are open (refused ones until they close).
    var count: Int { open.load(ordering: .relaxed) }

    fileprivate func opened() -> Bool { open.wrappingAdd(1, ordering: .relaxed).newValue <= maximum }
    fileprivate func closed() { open.wrappingSubtract(1, ordering: .relaxed) }

    /// The cap for a process allowed `descriptors` open files: room is left for the store's
    /// files and for refusing connections past the cap.
    static func maximum(descriptors: Int) -> Int { max(16, descriptors - 256) }
}

/// The first handler of every connection, below HTTP and WebSocket (so it holds for both): the
/// connection's place under the cap, and the time its first request's head has to arrive in.
///
/// Past the cap, a connection is answered `503 Service Unavailable` before anything of it is
/// read, then closed. A connection whose first head is not complete within `headTimeout` (an
/// idle socket, or a head sent a byte at a time) is closed; after the head, HTTP's own idle
/// timeout and the WebSocket session's pings take over.
final class ConnectionGuard: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let limit: ConnectionLimit
    private let headTimeout: TimeAmount
    private var counted = false
    private var refused = false
    private var deadline: Scheduled<Void>?
    /// The last bytes read while looking for the end of the first head (CR LF CR LF).
    private var tail: UInt32 = 0
    /// Whether the first request's head has arrived.
    private(set) var headArrived = false

    init(limit: ConnectionLimit, headTimeout: TimeAmount) {
        self.limit = limit
        self.headTimeout = headTimeout
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { arrived(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        arrived(context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        left()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) { left() }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !refused else { return }
        if !headArrived {
            for byte in unwrapInboundIn(data).readableBytesView {
                tail = tail << 8 | UInt32(byte)
                if tail == 0x0D0A_0D0A {
                    headArrived = true
                    deadline?.cancel()
                    break
                }
            }
        }
        context.fireChannelRead(data)
    }

    /// Answers `status` with a JSON error straight onto the socket (below HTTP's encoder, which
    /// may be gone or broken) and closes the connection.
    func refuse(context: ChannelHandlerContext, status: String, error: String) {
        let body = #"{"error":"\#(error)"}"# + "\n"
        let text = "HTTP/1.1 \(status)\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: \(body.utf8.count)\r\n"
            + (status.hasPrefix("503") ? "Retry-After: 1\r\n" : "") + "Connection: close\r\n\r\n" + body
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: text))).whenComplete { _ in channel.close(promise: nil) }
    }

    private func arrived(_ context: ChannelHandlerContext) {
        guard !counted else { return }
        counted = true
        guard limit.opened() else {
            refused = true
            refuse(context: context, status: "503 Service Unavailable", error: "too many connections: try again in a moment")
            return
        }
        let channel = context.channel
        deadline = context.eventLoop.scheduleTask(in: headTimeout) { channel.close(promise: nil) }
    }

    private func left() {
        deadline?.cancel()
        deadline = nil
        guard counted else { return }
        counted = false
        limit.closed()
    }
}

/// After HTTP's decoder: a request it cannot parse is answered 400 (through the connection's
/// guard) and the connection closed, rather than left open with its parser stuck.
final class UnreadableRequestHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = Never

    func channelRead(context: ChannelHandlerContext, data: NIOAny) { context.fireChannelRead(data) }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard error is HTTPParserError, let guardContext = try? context.pipeline.syncOperations.context(handlerType: ConnectionGuard.self),
              let connectionGuard = guardContext.handler as? ConnectionGuard else {
            context.fireErrorCaught(error)
            return
        }
        connectionGuard.refuse(context: guardContext, status: "400 Bad Request", error: "the request is not HTTP/1.1 that this server can read")
    }
}
