// The server's connections: HTTP/1.1 with the WebSocket upgrade, each under a `ConnectionGuard`.
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
import ServiceLifecycle

/// `HTTP1WebSocketUpgradeChannel` with what it leaves out until a request's head has arrived:
/// the connection cap and a deadline for that head (its own handlers are installed after the
/// head), a 400 for a request HTTP's parser refuses (its pipeline leaves errors unhandled), and
/// the end of a connection still waiting for its head when the server stops.
struct GuardedChannel: ServerChildChannel {
    typealias Value = HTTP1WebSocketUpgradeChannel.Value

    let base: HTTP1WebSocketUpgradeChannel
    let limit: ConnectionLimit
    let headTimeout: TimeAmount

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        do {
            try channel.pipeline.syncOperations.addHandler(ConnectionGuard(limit: limit, headTimeout: headTimeout), position: .first)
        } catch {
            return channel.eventLoop.makeFailedFuture(error)
        }
        return base.setup(channel: channel, logger: logger).flatMapThrowing { value in
            try channel.pipeline.syncOperations.addHandler(UnreadableRequestHandler())
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        let channel = value.channel
        await withTaskCancellationHandler {
            await withGracefulShutdownHandler {
                await base.handle(value: value, logger: logger)
            } onGracefulShutdown: {
                // A connection past its head is HTTP's or the WebSocket session's to end.
                channel.eventLoop.execute {
                    let waiting = (try? channel.pipeline.syncOperations.handler(type: ConnectionGuard.self))?.headArrived == false
                    if waiting { channel.close(promise: nil) }
                }
            }
        } onCancel: {
            channel.close(promise: nil)
        }
        // The upgrade's result may fail (a request HTTP could not parse) with the socket open.
        channel.close(promise: nil)
    }
}
