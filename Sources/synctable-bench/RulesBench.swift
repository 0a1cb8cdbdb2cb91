// `synctable serve --rules`: what deciding each request with a 20-rule file costs a limited
// query's rate and an edit's fan-out to streams, beside the same server without rules.
#if canImport(Glibc)
import Glibc
#endif
import Foundation

func runRulesBenchmarks(_ report: Report, _ options: BenchOptions) {
    guard let (binary, folder) = releaseBinaryAndFolder(options, "rules") else { return }
    let rules = folder + "/database.rules.json"
    FileManager.default.createFile(atPath: rules, contents: Data(twentyRules.utf8))
    let withRules = ["--rules", rules, "--accept-unverified-tokens"]
    runRulesQueryRate(report, options, binary: binary, folder: folder, withRules: withRules)
    runRulesFanOut(report, options, binary: binary, folder: folder, withRules: withRules)
}

/// A rules file of 20 rules (`.read`, `.write`, `.validate`, `.indexOn`) of the shapes the
/// documentation shows; the benchmarks' reads go through `items` and `n`.
private let twentyRules = #"""
    {"rules": {
      "items": {".read": "auth != null && auth.token.email_verified == true", ".indexOn": ["score", "name"],
        "$id": {".write": "auth != null && auth.uid === $id",
                ".validate": "newData.hasChildren(['name', 'score'])",
                "name": {".validate": "newData.isString() && newData.val().length < 100"},
                "score": {".validate": "newData.isNumber() && newData.val() >= 0"},
                "$other": {".validate": false}}},
      "users": {"$uid": {".read": "auth.uid === $uid", ".write": "auth.uid === $uid",
                         "role": {".validate": "root.child('users').child(auth.uid).child('role').val() == 'admin'"}}},
      "public": {".read": true, ".write": "auth != null"},
      "rooms": {"$room": {".read": "$room.beginsWith('public') || root.child('members').child($room).hasChild(auth.uid)",
                          "topic": {".write": "$room.contains('public')"}}},
      "members": {"$room": {".read": "auth != null", ".write": "root.child('rooms').child($room).exists()"}},
      "messages": {".read": "query.orderByKey && query.limitToFirst <= 1000", ".indexOn": ".value"},
      "n": {".read": "auth != null && auth.token.email_verified == true", ".write": false}
    }}
    """#

/// An unsigned ID token of a user with a verified email, for `?auth=`.
private let benchToken: String = {
    func base64URL(_ text: String) -> String {
        Data(text.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
    return base64URL(#"{"alg":"none"}"#) + "." + base64URL(#"{"sub":"bench","email_verified":true}"#) + "."
}()

/// Requests per second of a limited query on keep-alive connections, with the 20-rule file
/// (as a signed-in user) beside the same file served without rules; runs alternate.
private func runRulesQueryRate(_ report: Report, _ options: BenchOptions, binary: String, folder: String, withRules: [String]) {
    let file = folder + "/collection.json"
    FileManager.default.createFile(atPath: file, contents: Data(generateCollection(children: 10_000)))
    guard let plain = ServedFile(binary: binary, file: file), let guarded = ServedFile(binary: binary, file: file, arguments: withRules) else { return }
    let target = #"/items.json?orderBy=%22score%22&limitToLast=50"#
    let seconds = options.quick ? 0.5 : 2.0
    var without = [Double](), with = [Double]()
    for _ in 0..<(options.quick ? 1 : 3) {
        guard let a = requestRate(port: plain.port, target: target, seconds: seconds),
              let b = requestRate(port: guarded.port, target: target + "&auth=" + benchToken, seconds: seconds) else {
            printError("rules bench: a query failed")
            plain.stop()
            guarded.stop()
            return
        }
        without.append(a)
        with.append(b)
    }
    plain.stop()
    guarded.stop()
    let ratio = Stats(with).median / Stats(without).median
    report.add(Figure(
        name: "GET limitToLast 50 by child, 10,000 children, 20-rule file", unit: "req/s", synctable: Stats(with),
        peers: [(name: "no rules", stats: Stats(without), note: nil)],
        target: "≥ 0.8 × no rules", met: ratio >= 0.8, ratio: ratio,
        note: "4 keep-alive connections on loopback, \(seconds) s per run, runs alternating; as a user with an ID token"))
}

/// Each of 200 streams of `/n` waits for the event of each edit of the file, with the rules
/// (each stream checks its user's access per revision) and without; p99 of both.
private func runRulesFanOut(_ report: Report, _ options: BenchOptions, binary: String, folder: String, withRules: [String]) {
    let clients = options.quick ? 20 : 200
    let edits = options.quick ? 3 : 20
    var p99 = [String: [Double]]()
    var value = 0
    for round in 0..<(options.quick ? 1 : 3) {
        for rules in [false, true] {
            let file = folder + "/streams-\(round)-\(rules).json"
            saveByRename(file, #"{"n": 0, "other": "x"}"#)
            guard let server = ServedFile(binary: binary, file: file, arguments: rules ? withRules : []),
                  let streams = StreamClients(port: server.port, path: "/n.json" + (rules ? "?auth=" + benchToken : ""), count: clients)
            else { return }
            var latencies = [Double]()
            for _ in 0..<edits {
                value += 1
                let start = now()
                saveByRename(file, #"{"n": \#(value), "other": "x"}"#)
                guard let arrivals = streams.waitForAll(containing: #""data":\#(value)}"#, seconds: 30) else {
                    printError("rules bench: not every stream received edit \(value)")
                    server.stop()
                    return
                }
                latencies += arrivals.map { ($0 - start) * 1000 }
            }
            p99[rules ? "rules" : "none", default: []].append(percentile(latencies, 0.99))
            server.stop()
        }
    }
    let with = Stats(p99["rules"] ?? []), without = Stats(p99["none"] ?? [])
    report.add(Figure(
        name: "edit of the file → event at each of \(clients) streams, p99, 20-rule file", unit: "ms", synctable: with,
        peers: [(name: "no rules", stats: without, note: nil)],
        target: "≤ 1.2 × no rules", met: with.median <= 1.2 * without.median, ratio: without.median / with.median,
        note: "\(edits) edits by rename per run, runs alternating; each stream as a user with an ID token"))
}

/// Completed requests per second for `target` over 4 keep-alive connections, each on a thread.
private func requestRate(port: Int, target: String, seconds: Double) -> Double? {
    let request = Array("GET \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8)
    let counts = Counts()
    let finished = DispatchSemaphore(value: 0)
    let deadline = now() + seconds
    for _ in 0..<4 {
        Thread {
            defer { finished.signal() }
            guard let fd = connectLoopback(port) else { return counts.add(nil) }
            defer { close(fd) }
            var done = 0
            var buffer = [UInt8](repeating: 0, count: 1 << 16)
            while now() < deadline {
                guard request.withUnsafeBytes({ send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == request.count,
                      readResponse(fd, &buffer) else { return counts.add(nil) }
                done += 1
            }
            counts.add(done)
        }.start()
    }
    for _ in 0..<4 { finished.wait() }
    return counts.total.map { Double($0) / seconds }
}

/// The requests each thread completed; nil once any failed.
private final class Counts: @unchecked Sendable {
    private let lock = NSLock()
    private var sum: Int? = 0

    func add(_ count: Int?) {
        lock.lock()
        defer { lock.unlock() }
        sum = count.flatMap { c in sum.map { $0 + c } }
    }

    var total: Int? {
        lock.lock()
        defer { lock.unlock() }
        return sum
    }
}

/// Reads one `200` response with a `Content-Length` body; false otherwise.
private func readResponse(_ fd: Int32, _ buffer: inout [UInt8]) -> Bool {
    var filled = 0
    var headEnd: Int?
    var total: Int?
    while total.map({ filled < $0 }) ?? true {
        if filled == buffer.count { buffer += [UInt8](repeating: 0, count: buffer.count) }
        let n = buffer[filled...].withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        guard n > 0 else { return false }
        filled += n
        if headEnd == nil, let end = buffer[..<filled].firstRange(of: [13, 10, 13, 10])?.upperBound {
            headEnd = end
            let head = String(decoding: buffer[..<end], as: UTF8.self).lowercased()
            guard head.hasPrefix("http/1.1 200"), let line = head.split(separator: "\r\n").first(where: { $0.hasPrefix("content-length:") }),
                  let length = Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) else { return false }
            total = end + length
        }
    }
    return true
}
