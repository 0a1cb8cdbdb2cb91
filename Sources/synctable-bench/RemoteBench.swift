// The viewer on a database URL (`synctable serve` on loopback): an edit of the served file on its
// screen beside the same edit's local `events` line, and the table current after a server restart.
#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Foundation

func runRemoteBenchmarks(_ report: Report, _ options: BenchOptions) {
    guard let (binary, folder) = releaseBinaryAndFolder(options, "remote") else { return }
    let file = folder + "/board.json"
    var board = Board(children: 1_000)
    saveByRename(file, board.text)
    guard var server = ServedFile(binary: binary, file: file) else { return }
    defer { server.stop() }
    let url = "http://127.0.0.1:\(server.port)/players"
    guard let viewer = try? PtyProcess(binary, [url, "--order-by-child", "score", "--limit-to-last", "20", "--no-animation"],
                                       rows: 40, columns: 120),
          viewer.waitFor(Array(Board.key(board.best).utf8), timeout: 60) != nil
    else {
        printError("remote bench: the viewer on \(url) never showed its first screen")
        return
    }
    defer { viewer.stop() }
    editToRemoteScreen(report, options, binary: binary, file: file, board: &board, viewer: viewer)
    reconnectAfterRestart(report, options, binary: binary, file: file, board: &board, viewer: viewer, server: &server)
}

/// Players `p0000`… with distinct scores; an edit gives one player the best score so far, so that
/// it enters the top 20 and its key appears on screen.
private struct Board {
    var scores: [Int]
    var best: Int

    init(children: Int) {
        scores = Array(0..<children)
        best = children - 1
    }

    static func key(_ i: Int) -> String { "p" + String(10_000 + i).dropFirst() }

    /// Gives child `i` the best score; returns its key.
    mutating func promote(_ i: Int) -> String {
        scores[i] = (scores.max() ?? 0) + 1
        best = i
        return Board.key(i)
    }

    var text: String {
        "{\"players\": {" + scores.enumerated().map { "\"\(Board.key($0.offset))\": {\"score\": \($0.element)}" }
            .joined(separator: ", ") + "}}"
    }
}

/// Holds what two threads found, for the thread that waits for both.
private final class Arrivals: @unchecked Sendable {
    var screen: Double?
    var events: Double?
}

/// Each edit (by rename, as an editor saves): the time from the save to the promoted key on the
/// remote viewer's screen, and to the local `events` line naming it, read at the same time.
private func editToRemoteScreen(_ report: Report, _ options: BenchOptions, binary: String, file: String,
                                board: inout Board, viewer: PtyProcess) {
    guard let events = LineReadingProcess([binary, "events", file, "--path", "/players", "--order-by-child", "score",
                                           "--limit-to-last", "20"]),
          events.readLines(untilPrefix: #"{"event":"value""#, seconds: 60) != nil
    else {
        printError("remote bench: synctable events printed no first window")
        return
    }
    defer { events.stop() }
    nonisolated(unsafe) let unsafeViewer = viewer, unsafeEvents = events
    var local = [Double](), remote = [Double](), beyond = [Double]()
    let edits = options.quick ? 10 : 100
    var random = UInt64(0x5EED)
    viewer.drain(for: 0.3)
    for _ in 0..<edits {
        random = random &* 6364136223846793005 &+ 1442695040888963407
        let key = board.promote(Int(random >> 33) % board.scores.count)
        let token = Array(key.utf8)
        let arrivals = Arrivals()
        let group = DispatchGroup()
        let saved = now()
        saveByRename(file, board.text)
        DispatchQueue.global().async(group: group) { arrivals.screen = unsafeViewer.waitFor(token, timeout: 30) }
        DispatchQueue.global().async(group: group) {
            arrivals.events = unsafeEvents.readLines(untilPrefix: #"{"event":"value""#, seconds: 30)
                .flatMap { $0.contains { $0.contains("\"\(key)\"") } ? now() : nil }
        }
        group.wait()
        guard let screen = arrivals.screen, let line = arrivals.events else {
            printError("remote bench: edit of \(key) not seen (screen \(arrivals.screen != nil), events \(arrivals.events != nil))")
            continue
        }
        local.append((line - saved) * 1000)
        remote.append((screen - saved) * 1000)
        beyond.append((screen - line) * 1000)
        viewer.drain(for: 0.02)
    }
    let p50 = Stats(beyond).median
    report.add(Figure(
        name: "edit of the served file → row on a remote viewer's screen, beyond the local events line, p50", unit: "ms",
        synctable: Stats(beyond),
        peers: [(name: "local events line", stats: Stats(local), note: nil),
                (name: "remote screen", stats: Stats(remote), note: nil)],
        target: "≤ 10 ms", met: p50 <= 10, ratio: nil,
        note: "\(beyond.count) edits by rename of a 1,000-child file; top 20 by score; loopback"))
}

/// The server killed, the file edited while it is down, the server started again: the time from
/// the server's `listening` line to the edit's row on the remote viewer's screen.
private func reconnectAfterRestart(_ report: Report, _ options: BenchOptions, binary: String, file: String,
                                   board: inout Board, viewer: PtyProcess, server: inout ServedFile) {
    var latencies = [Double]()
    let port = server.port
    for round in 0..<(options.quick ? 2 : 5) {
        server.kill()
        guard viewer.waitFor(Array("OFFLINE".utf8), timeout: 30) != nil else {
            printError("remote bench: no OFFLINE badge after the server was killed")
            return
        }
        // Down for a moment, as a restart takes; the viewer keeps trying meanwhile.
        usleep(UInt32(300_000 + round * 200_000))
        let key = board.promote((round * 7919) % board.scores.count)
        saveByRename(file, board.text)
        viewer.drain(for: 0.05)
        guard let restarted = ServedFile(binary: binary, file: file, port: port) else { return }
        let back = now()
        server = restarted
        guard let shown = viewer.waitFor(Array(key.utf8), timeout: 30) else {
            printError("remote bench: \(key) not on screen after the restart")
            return
        }
        latencies.append((shown - back) * 1000)
        viewer.drain(for: 0.3)
    }
    let worst = latencies.max() ?? .nan
    report.add(Figure(
        name: "server restart → remote viewer's table current", unit: "ms", synctable: Stats(latencies),
        target: "≤ 1 s after the server is back", met: worst <= 1000,
        note: "\(latencies.count) restarts (down 0.3–1.1 s); from the server's listening line to the row edited meanwhile on screen; worst \(Report.fmt(worst)) ms"))
}
