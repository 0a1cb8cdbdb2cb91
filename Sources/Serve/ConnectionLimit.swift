// A cap on open connections below the descriptor limit: past it, a connection is answered 503
// and closed at once, so the server keeps answering (and accepting) however many sockets
// clients open.
import HTTPTypes
import NIOCore
import NIOHTTPTypes
import Synchronization

/// Counts the server's open connections; each new one past `maximum` is refused.
final class ConnectionLimit: Sendable {
    let maximum: Int
    private let open = Atomic(0)

    init(maximum: Int) { self.maximum = maximum }

    /// How many connections are open (refused ones until they close).
    var count: Int { open.load(ordering: .relaxed) }

    /// A new connection's handler.
    func handler() -> ConnectionLimitHandler { ConnectionLimitHandler(limit: self) }

    fileprivate func opened() -> Bool { open.wrappingAdd(1, ordering: .relaxed).newValue <= maximum }
    fileprivate func closed() { open.wrappingSubtract(1, ordering: .relaxed) }

    /// The cap for a process allowed `descriptors` open files: room is left for the store's
    /// files and for refusing connections past the cap.
    static func maximum(descriptors: Int) -> Int { max(16, descriptors - 256) }
}

/// One connection's place under the cap: counted while open; past the cap, answered
/// `503 Service Unavailable` before its request is read, then closed.
final class ConnectionLimitHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundOut = HTTPResponsePart

    private let limit: ConnectionLimit
    private var counted = false
    private var refused = false

    fileprivate init(limit: ConnectionLimit) { self.limit = limit }

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
        if !refused { context.fireChannelRead(data) }
    }

    private func arrived(_ context: ChannelHandlerContext) {
        guard !counted else { return }
        counted = true
        guard !limit.opened() else { return }
        refused = true
        let body = ByteBuffer(string: #"{"error":"too many connections: try again in a moment"}"# + "\n")
        var head = HTTPResponse(status: .serviceUnavailable)
        head.headerFields[.contentType] = "application/json; charset=utf-8"
        head.headerFields[.contentLength] = String(body.readableBytes)
        head.headerFields[.retryAfter] = "1"
        head.headerFields[.connection] = "close"
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(body)), promise: nil)
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
    }

    private func left() {
        guard counted else { return }
        counted = false
        limit.closed()
    }
}
