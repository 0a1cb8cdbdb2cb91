// Appending revisions to a journal (`--record FILE`): the first line the whole value, each next
// one what a revision changed; past a size, the file so far becomes `FILE.1`.
#if canImport(Glibc)
import Glibc
#endif
import JSONTree

/// Appends revisions to the journal at `path`, one line each, written whole with one `write`
/// (a reader never sees half of one unless the writer is killed mid-way).
///
/// An existing journal is continued: its last revision is what the next is compared with (a line
/// its writer left unfinished is cut off first). A file that is not a journal is left alone.
public final class JournalWriter {
    public let path: String
    /// Past this many bytes the file is renamed `path.1` (replacing an older one) and a new one
    /// begins with the whole value; nil: never.
    public let maxBytes: Int?
    /// What was cut off an existing journal's end, in words (nil when nothing was).
    public private(set) var warning: String?
    private var fd: Int32
    private var size: Int
    /// The last revision written (the next is compared with it).
    private var last: JSONDocument?

    /// - Throws: `JournalError` for a file that exists and is not a journal, or cannot be written.
    public init(path: String, maxBytes: Int? = nil) throws(JournalError) {
        self.path = path
        self.maxBytes = maxBytes
        var existing = (try? readWholeFile(path)) ?? []
        if !existing.isEmpty {
            guard isJournal(existing) else {
                throw .notJournal(file: path, line: 1, column: 1, message: "it exists and is not one, so it is not written to")
            }
            var recording = JournalRecording()
            try recording.read(existing, file: path, isLast: true)
            if recording.warning != nil, let cut = existing.lastIndex(of: UInt8(ascii: "\n")) {
                existing.removeSubrange((cut + 1)...)
                warning = recording.warning
                truncate(path, off_t(existing.count))
            }
            var lastValue: ReplayTree?
            try recording.forEachRevision { value, _ in lastValue = value }
            last = lastValue?.document()
        }
        fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw .system(file: path, message: SystemError().message) }
        size = existing.count
        // A last line that is whole but has no newline yet (its writer stopped just before it).
        if existing.last.map({ $0 != UInt8(ascii: "\n") }) == true { try write([UInt8(ascii: "\n")]) }
    }

    deinit { close(fd) }

    /// Appends the line of the revision `document` (nothing when it changed nothing).
    /// - Parameters:
    ///   - time: when it was made, seconds since 1970.
    ///   - writer: who wrote it, where known.
    /// - Throws: `JournalError.system` when the line cannot be written.
    public func append(_ document: JSONDocument, time: Double, writer: String?) throws(JournalError) {
        var entry: JournalEntry
        if let last {
            let changes = journalChanges(from: last.root, to: document.root)
            guard !changes.isEmpty else { return }
            entry = JournalEntry(time: time, writer: writer, content: .changes(changes))
        } else {
            entry = JournalEntry(time: time, writer: writer, content: .whole(document.root.json))
        }
        var line = entry.line()
        if let maxBytes, size > 0, size + line.count > maxBytes {
            try rotate()
            entry.content = .whole(document.root.json)
            line = entry.line()
        }
        try write(line)
        last = document
    }

    /// The file so far becomes `path.1`; a new one begins.
    private func rotate() throws(JournalError) {
        guard rename(path, path + ".1") == 0 else { throw .system(file: path, message: SystemError().message) }
        close(fd)
        fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw .system(file: path, message: SystemError().message) }
        size = 0
    }

    private func write(_ line: [UInt8]) throws(JournalError) {
        var done = 0
        while done < line.count {
            let n = line.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + done, $0.count - done) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw .system(file: path, message: SystemError().message) }
            done += n
        }
        size += line.count
    }
}
