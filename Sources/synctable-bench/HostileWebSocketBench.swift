// `synctable serve` against WebSocket clients that would exhaust it: 1,000 listens of distinct
// queries on one connection, 50 connections each holding an unfinished 16 MB message, 12
// onDisconnect payloads of 15 MB in small items (the server's memory, within --max-memory); and
// the server's CPU for a PUT while 1,000 listens wait on other locations.
#if canImport(Glibc)
import Glibc
#endif
import Foundation

func runHostileWebSocketBenchmarks(_ report: Report, _ options: BenchOptions, binary: String, folder: String) {
    let budget = 1 << 30
    let file = folder + "/eleven-ws.json"
    _ = FileManager.default.createFile(atPath: file, contents: Data(generateCollection(children: 74_000)))
    let memory = ["--max-memory", String(budget)]
    let budgetMB = Double(budget) / 1e6

    func peak(_ what: String, _ body: (Int) -> Int) {
        guard let server = ServedFile(binary: binary, file: file, arguments: memory) else { return }
        let before = residentMB(server.process.processIdentifier, "VmHWM")
        let sent = body(server.port)
        let after = residentMB(server.process.processIdentifier, "VmHWM")
        server.stop()
        report.add(Figure(
            name: "server peak RSS, \(what)", unit: "MB", synctable: Stats([after]),
            peers: [(name: "when started", stats: Stats([before]), note: nil)],
            target: "≤ --max-memory (\(Report.fmt(budgetMB)) MB)", met: after <= budgetMB, ratio: nil,
            note: "\(sent) sent"))
    }

    let listens = options.quick ? 100 : 1_000
    peak("\(listens) listens of distinct queries on one connection") { port in
        guard let ws = RawWebSocketClient(port: port) else { return 0 }
        for n in 0..<listens {
            ws.send(#"{"t":"d","d":{"r":\#(n + 1),"a":"q","b":{"p":"/items","q":{"i":".key","l":\#(500 + n),"vf":"l"},"t":\#(n + 1),"h":""}}}"#)
        }
        ws.waitForAnswer(to: listens, seconds: 120)
        return listens
    }
    let holders = options.quick ? 5 : 50
    peak("\(holders) connections each holding an unfinished 16 MB message") { port in
        let clients = (0..<holders).compactMap { _ in RawWebSocketClient(port: port) }
        let piece = [UInt8](repeating: UInt8(ascii: "a"), count: 48 * 1024)
        for client in clients {
            client.sendFrame([UInt8(ascii: "\"")], opcode: 1, fin: false)
            for _ in 0..<(16 << 20) / piece.count { if !client.sendFrame(piece, opcode: 0, fin: false) { break } }
        }
        usleep(1_000_000)
        return clients.count
    }
    let payloads = options.quick ? 3 : 12
    peak("\(payloads) onDisconnect payloads of 15 MB in small items") { port in
        let items = "[" + Array(repeating: "0", count: 7_500_000).joined(separator: ",") + "]"
        let clients = (0..<payloads).compactMap { _ in RawWebSocketClient(port: port) }
        for client in clients { client.sendMessage(#"{"t":"d","d":{"r":1,"a":"o","b":{"p":"/gone","d":\#(items)}}}"#) }
        usleep(2_000_000)
        return clients.count
    }

    // A PUT's CPU in the server, with 1,000 query listens on other locations and with none.
    let rooms = folder + "/rooms.json"
    let text = "{\"x\": 0, \"rooms\": {" + (0..<1_000).map { #""r\#($0)": {"n": \#($0), "name": "room \#($0)"}"# }.joined(separator: ",") + "}}"
    let puts = options.quick ? 50 : 300
    func cpuPerPut(listening: Bool) -> Double? {
        _ = FileManager.default.createFile(atPath: rooms, contents: Data(text.utf8))
        guard let server = ServedFile(binary: binary, file: rooms) else { return nil }
        defer { server.stop() }
        var client: RawWebSocketClient?
        if listening {
            guard let ws = RawWebSocketClient(port: server.port) else { return nil }
            for n in 0..<1_000 {
                ws.send(#"{"t":"d","d":{"r":\#(n + 1),"a":"q","b":{"p":"/rooms/r\#(n)","q":{"i":".key","l":5,"vf":"l"},"t":\#(n + 1),"h":""}}}"#)
            }
            ws.waitForAnswer(to: 1_000, seconds: 60)
            client = ws
        }
        let pid = server.process.processIdentifier
        let before = processCPUSeconds(pid)
        for n in 0..<puts { _ = requestOnce(port: server.port, "PUT", "/x.json", body: Array(String(n).utf8)) }
        usleep(200_000)
        let spent = processCPUSeconds(pid) - before
        withExtendedLifetime(client) {}
        return spent / Double(puts)
    }
    if let quiet = cpuPerPut(listening: false), let busy = cpuPerPut(listening: true) {
        report.add(Figure(
            name: "server CPU per PUT, 1,000 query listens on other locations", unit: "ms",
            synctable: Stats([busy * 1000]), peers: [(name: "no listens", stats: Stats([quiet * 1000]), note: nil)],
            target: "≤ 2 ms", met: busy * 1000 <= 2, ratio: nil,
            note: "\(puts) PUTs one after another; utime + stime of the server process"))
    }
}

/// utime + stime of a process, in seconds.
func processCPUSeconds(_ pid: Int32) -> Double {
    guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
          let close = text.lastIndex(of: ")") else { return .nan }
    let fields = text[text.index(after: close)...].split(separator: " ")
    // After the name: state is field 3; utime and stime are fields 14 and 15.
    guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return .nan }
    return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
}

/// The WebSocket protocol by hand: frames masked with a zero key; what the server sends is read
/// on a thread of its own (counting the answers), so the server is never held up by this client.
final class RawWebSocketClient: @unchecked Sendable {
    let fd: Int32
    private let lock = NSLock()
    private var answered = 0

    init?(port: Int) {
        guard let fd = connectLoopback(port) else { return nil }
        self.fd = fd
        let upgrade = "GET /.ws?v=5&ns=bench HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
        guard sendAll(Array(upgrade.utf8)) else { return nil }
        Thread { [self] in drain() }.start()
    }

    deinit { close(fd) }

    @discardableResult
    func sendFrame(_ payload: [UInt8], opcode: UInt8, fin: Bool) -> Bool {
        var head: [UInt8] = [(fin ? 0x80 : 0) | opcode]
        switch payload.count {
        case ..<126: head.append(0x80 | UInt8(payload.count))
        case ..<65536: head += [0x80 | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        default: head += [0x80 | 127] + (0..<8).reversed().map { UInt8(truncatingIfNeeded: payload.count >> ($0 * 8)) }
        }
        return sendAll(head + [0, 0, 0, 0] + payload)
    }

    func send(_ text: String) { sendFrame(Array(text.utf8), opcode: 1, fin: true) }

    /// A message as the SDKs send it: over 16,384 characters, its count of pieces, then the pieces.
    func sendMessage(_ text: String) {
        let bytes = Array(text.utf8)
        guard bytes.count > 16_384 else { return send(text) }
        let pieces = stride(from: 0, to: bytes.count, by: 16_384).map { Array(bytes[$0..<min($0 + 16_384, bytes.count)]) }
        send(String(pieces.count))
        for piece in pieces where !sendFrame(piece, opcode: 1, fin: true) { return }
    }

    /// Waits until `count` requests were answered (or `seconds` passed).
    func waitForAnswer(to count: Int, seconds: Double) {
        let deadline = now() + seconds
        while now() < deadline && lock.withLock({ answered }) < count { usleep(10_000) }
    }

    private func sendAll(_ bytes: [UInt8]) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return false }
            sent += n
        }
        return true
    }

    /// Reads everything; counts the answers (`"r":` in a data message's envelope).
    private func drain() {
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        let marker = Array(#"{"t":"d","d":{"r":"#.utf8)
        var tail = [UInt8]()
        while true {
            let n = recv(fd, &chunk, chunk.count, 0)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return }
            let window = tail + chunk[0..<n]
            var found = 0
            var i = 0
            while let range = window[i...].firstRange(of: marker) {
                found += 1
                i = range.upperBound
            }
            if found > 0 { lock.withLock { answered += found } }
            tail = Array(window.suffix(marker.count - 1))
        }
    }
}
