// A program running in a pseudo-terminal, as a user's terminal would run it: the
// benchmarks read exactly the bytes it writes to the screen.
import Foundation

final class PtyProcess {
    let process = Process()
    let controller: Int32
    private var tail: [UInt8] = []
    /// Everything read so far, when `keep` is set (for debugging a benchmark).
    private(set) var transcript: [UInt8] = []

    /// Starts `executable` with a terminal of `rows` × `columns` as its standard input,
    /// output and error, and TERM set to `term`.
    init(_ executable: String, _ arguments: [String], rows: Int = 40, columns: Int = 120,
         term: String = "xterm-256color") throws {
        // Linux's multiplexer directly: unlock the terminal side and ask its number
        // (what posix_openpt/unlockpt/ptsname do, which Swift's Glibc module does not export).
        let fd = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC)
        var unlock: Int32 = 0, number: UInt32 = 0
        let TIOCSPTLCK: UInt = 0x4004_5431, TIOCGPTN: UInt = 0x8004_5430
        guard fd >= 0, ioctl(fd, TIOCSPTLCK, &unlock) == 0, ioctl(fd, TIOCGPTN, &number) == 0 else {
            throw PtyError("cannot open a pseudo-terminal")
        }
        controller = fd
        var size = winsize(ws_row: UInt16(rows), ws_col: UInt16(columns), ws_xpixel: 0, ws_ypixel: 0)
        _ = ioctl(fd, UInt(TIOCSWINSZ), &size)
        let terminalPath = "/dev/pts/\(number)"
        guard let terminal = FileHandle(forUpdatingAtPath: terminalPath) else { throw PtyError("cannot open \(terminalPath)") }
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        env["TERM"] = term
        env["LINES"] = nil
        env["COLUMNS"] = nil
        process.environment = env
        process.standardInput = terminal
        process.standardOutput = terminal
        process.standardError = terminal
        try process.run()
        try? terminal.close()
    }

    deinit { close(controller) }

    /// Waits until `token` appears in the output (bytes read before this call count only
    /// through the last `token.count - 1` bytes kept between calls).
    /// - Returns: the monotonic time at which the chunk holding it was read, or nil on timeout.
    func waitFor(_ token: [UInt8], timeout: Double) -> Double? {
        let deadline = now() + timeout
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let left = deadline - now()
            if left <= 0 { return nil }
            var pfd = pollfd(fd: controller, events: Int16(POLLIN), revents: 0)
            let ready = poll(&pfd, 1, Int32(max(1, left * 1000)))
            if ready <= 0 { continue }
            let n = read(controller, &chunk, chunk.count)
            if n <= 0 { return nil }
            let at = now()
            tail.append(contentsOf: chunk[0..<n])
            if let found = range(of: token, in: tail) {
                tail.removeSubrange(0..<found.upperBound)
                return at
            }
            if tail.count > token.count { tail.removeFirst(tail.count - token.count) }
        }
    }

    /// Reads and drops whatever output is waiting, for up to `seconds`.
    func drain(for seconds: Double) {
        let deadline = now() + seconds
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while now() < deadline {
            var pfd = pollfd(fd: controller, events: Int16(POLLIN), revents: 0)
            if poll(&pfd, 1, 10) > 0 { if read(controller, &chunk, chunk.count) <= 0 { return } }
        }
        tail.removeAll()
    }

    func send(_ text: String) {
        var t = text
        t.withUTF8 { _ = write(controller, $0.baseAddress, $0.count) }
    }

    /// Peak resident memory of the program so far (VmHWM), in bytes.
    func peakResidentBytes() -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") })
        else { return nil }
        return Int(line.filter(\.isNumber)).map { $0 * 1024 }
    }

    func stop() {
        if process.isRunning {
            send("q")
            let deadline = now() + 2
            while process.isRunning && now() < deadline { drain(for: 0.05) }
            if process.isRunning { process.terminate() }
        }
        process.waitUntilExit()
    }
}

struct PtyError: Error, CustomStringConvertible {
    let description: String
    init(_ d: String) { description = d }
}

func range(of needle: [UInt8], in haystack: [UInt8]) -> Range<Int>? {
    guard !needle.isEmpty, haystack.count >= needle.count else { return nil }
    let first = needle[0]
    var i = 0
    while i + needle.count <= haystack.count {
        if haystack[i] == first && haystack[i..<(i + needle.count)].elementsEqual(needle) { return i..<(i + needle.count) }
        i += 1
    }
    return nil
}

/// Runs a command to completion; returns its standard output and the seconds it took.
func runCommand(_ executable: String, _ arguments: [String]) -> (output: [UInt8], seconds: Double, status: Int32) {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: executable)
    p.arguments = arguments
    let pipe = Pipe()
    p.standardOutput = pipe
    p.standardError = FileHandle.nullDevice
    let start = now()
    guard (try? p.run()) != nil else { return ([], 0, -1) }
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    return ([UInt8](data), now() - start, p.terminationStatus)
}

/// The full path of a program on PATH, or nil.
func which(_ name: String) -> String? {
    for dir in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
        let path = "\(dir)/\(name)"
        if FileManager.default.isExecutableFile(atPath: path) { return path }
    }
    return nil
}
