// A WebSocket session's way out: its messages' frames written to the connection.
import NIOCore
import NIOWebSocket

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
        let frames = pending.flatMap { $0.frames.map { WebSocketFrame(fin: true, opcode: .text, data: $0) } }
        pending = []
        guard let last = frames.last else { return }
        let channel = self.channel
        let written = channel.isWritable ? nil : channel.eventLoop.makePromise(of: Void.self)
        // On the connection's event loop (the session's executor), written at once; were it
        // not, in one hop.
        let write = {
            for frame in frames.dropLast() { channel.write(frame, promise: nil) }
            channel.writeAndFlush(last, promise: written)
        }
        if channel.eventLoop.inEventLoop { write() } else { channel.eventLoop.execute(write) }
        guard let written else { return }
        // A future's wait does not end when the task is cancelled: closing the channel fails
        // the write, which does.
        await withTaskCancellationHandler {
            try? await written.futureResult.get()
        } onCancel: {
            channel.close(promise: nil)
        }
    }
}
