// A stream's writes, a slice at a time, with the bytes it still owes its client counted.
import Hummingbird
import NIOCore

/// Hands a stream's events to its connection in slices of at most `sliceBytes`.
///
/// An event may be the whole file (the first `put`); it is shared by every stream that sends
/// it (see `RevisionCache`). After each slice the stream waits for the connection's event loop
/// to have taken it: the connection then knows whether its buffer is past its high-water mark,
/// and the next write waits until it has drained. So a stream whose client does not read holds
/// about one slice of its own, whatever the file's size (without the wait, every slice would be
/// handed over before the loop noticed). What it has yet to send is counted in its mailbox,
/// which drops the stream when the file changes while it owes more than its limit.
struct EventWriter {
    static let sliceBytes = 64 << 10

    let mailbox: Mailbox
    let channel: any Channel

    func send(_ event: ByteBuffer, to writer: inout any ResponseBodyWriter) async throws {
        var rest = event
        mailbox.owe(rest.readableBytes)
        defer { mailbox.owe(-rest.readableBytes) }
        while let slice = rest.readSlice(length: min(Self.sliceBytes, rest.readableBytes)), slice.readableBytes > 0 {
            try await writer.write(slice)
            try await channel.eventLoop.submit {}.get()
            mailbox.owe(-slice.readableBytes)
        }
    }
}
