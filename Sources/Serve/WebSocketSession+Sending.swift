// A WebSocket session's way out: its messages' frames written to the connection.
import NIOCore
import NIOWebSocket
import StoreInterface

extension WebSocketSession {
    /// Sends `message` (after any data that must precede it), split into frames when long.
    func send(_ message: ServerMessage) async {
        await send(serialized: message.wire)
    }

    func send(serialized message: WireMessage) async {
        pending.append(message)
        await flush()
    }

    /// Writes the pending messages' frames to the connection.
    ///
    /// While the connection takes them, nothing is awaited. Once its buffer is past its
    /// high-water mark (the client is not reading), the loop waits until these frames are
    /// written: meanwhile revisions coalesce in the mailbox, which drops the connection (cancels
    /// its task, closing it, which ends the wait) when it falls too far behind.
    func flush() async {
        guard let written = writePending() else { return }
        let channel = self.channel
        // A future's wait does not end when the task is cancelled: closing the channel fails
        // the write, which does.
        await withTaskCancellationHandler {
            try? await written.get()
        } onCancel: {
            channel.close(promise: nil)
        }
    }

    /// From the feed, on the connection's event loop while the session waits for its mailbox:
    /// brings the listens to `revision` and writes what changed, without waking the session's
    /// task; false when the connection takes no more now (the task then follows the revision
    /// and waits for its write).
    func followDirectly(_ revision: Revision) -> Bool {
        guard channel.isWritable else { return false }
        follow(revision)
        _ = writePending()
        return true
    }

    /// Writes the pending messages (on the connection's event loop: the session's executor);
    /// the future of their write when the connection is past its high-water mark, else nil.
    private func writePending() -> EventLoopFuture<Void>? {
        guard let last = pending.last else { return nil }
        let written = channel.isWritable ? nil : channel.eventLoop.makePromise(of: Void.self)
        if let encoder = frameEncoder {
            // Framed once for every connection: written past the encoder, as it would write them.
            for message in pending.dropLast() { encoder.write(NIOAny(message.framed), promise: nil) }
            encoder.writeAndFlush(NIOAny(last.framed), promise: written)
        } else {
            let frames = pending.flatMap { $0.frames.map { WebSocketFrame(fin: true, opcode: .text, data: $0) } }
            for frame in frames.dropLast() { channel.write(frame, promise: nil) }
            channel.writeAndFlush(frames[frames.count - 1], promise: written)
        }
        pending.removeAll(keepingCapacity: true)
        return written?.futureResult
    }

    /// The connection's WebSocket frame encoder, to write frames framed already past it (nil
    /// if the pipeline has none: frames are then written through it).
    static func encoderContext(of channel: any Channel) -> ChannelHandlerContext? {
        try? channel.pipeline.syncOperations.context(handlerType: WebSocketFrameEncoder.self)
    }
}
