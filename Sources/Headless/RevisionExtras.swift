// What a command may do with a source's revisions besides showing them: record them in a journal
// (`--record`), add rates (`--rate`), or, for a journal, cut them (`--since`, `--until`).
#if canImport(Glibc)
import Glibc
#endif
import JSONTree
import Journal
import RateStore
import StoreInterface

/// `--rate`, `--record`, `--record-max-bytes`, `--since` and `--until`, checked.
public struct RevisionExtras: Sendable {
    public var rates: [Path] = []
    public var record: String?
    public var recordMaxBytes: Int?
    /// Seconds since 1970 that cut a journal.
    public var since: Double?
    public var until: Double?
    /// Whether a store of rates is put over the source even without `--rate` (the viewer's `R` adds them later).
    public var ratesLater = false

    public init() {}

    /// - Throws: `CommandError` (exit status 2) naming the flag of a value that is not one.
    public init(rates: [String], record: String?, recordMaxBytes: Int?, since: String?, until: String?) throws(CommandError) {
        for text in rates {
            guard let path = try? Path(text.hasPrefix("/") ? text : "/" + text), !path.isRoot else {
                throw CommandError("--rate: \(JSON.string(text).serializedString()) is not a column's path (such as stats64/rx/bytes)")
            }
            self.rates.append(path)
        }
        self.record = record
        if let recordMaxBytes {
            guard recordMaxBytes > 0 else { throw CommandError("--record-max-bytes must be 1 or more, not \(recordMaxBytes)") }
            guard record != nil else { throw CommandError("--record-max-bytes needs --record FILE") }
            self.recordMaxBytes = recordMaxBytes
        }
        self.since = try since.map { text throws(CommandError) in try secondsSince1970(text, flag: "--since") }
        self.until = try until.map { text throws(CommandError) in try secondsSince1970(text, flag: "--until") }
    }
}

/// Whether the file at `path` is a SyncTable journal (by its content, whatever its name).
public func isJournalFile(_ path: String) -> Bool {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return false }
    defer { close(fd) }
    var head = [UInt8](repeating: 0, count: journalMarker.utf8.count)
    let n = head.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
    return n == head.count && isJournal(head)
}

/// The journal at `path` as a store (see `JournalStore`).
/// - Throws: `CommandError` (exit status 2) for a file that is not a journal, at its line and column.
public func openJournal(_ path: String, extras: RevisionExtras) throws(CommandError) -> JournalStore {
    do { return try JournalStore(path: path, since: extras.since, until: extras.until) } catch {
        throw CommandError(journalError: error)
    }
}

extension CommandError {
    /// A journal's error, at its file, line and column.
    public init(journalError error: JournalError) {
        switch error {
        case .notJournal(let file, let line, let column, let message):
            self.init("not a SyncTable journal: \(message)", at: "\(file):\(line):\(column)")
        case .badLine(let file, let line, let column, let message):
            self.init("a journal line that is not one: \(message)", at: "\(file):\(line):\(column)")
        case .system(let file, let message):
            self.init(message, at: file)
        }
    }
}

/// `store` with what `extras` asks for: its revisions recorded (what the source gave, rates left
/// out), then rates added.
func applying(_ extras: RevisionExtras, to store: any LiveStore, location: Path) throws(CommandError) -> any LiveStore {
    if let path = extras.record {
        // A journal recorded again (cut by --since/--until) keeps every revision.
        replayedJournal(store)?.publishesEveryRevision = true
        try record(store, to: path, maxBytes: extras.recordMaxBytes)
    }
    guard !extras.rates.isEmpty || extras.ratesLater else { return store }
    let rates: RateStore
    do {
        rates = try RateStore(source: store, columns: extras.rates.map { RateColumn(location: location, column: $0) })
    } catch {
        throw CommandError("\(store.name): \(error)")
    }
    // Rates are differences between successive revisions: a journal's are published in turn.
    replayedJournal(store)?.publishesEveryRevision = true
    replayedJournal(store)?.waits { [unowned rates] in rates.hub.isEvaluatingFirstWindows }
    return rates
}

/// Appends each revision of `store` to the journal at `path` from now on.
/// - Throws: `CommandError` (exit status 2) for a file that exists and is not a journal.
func record(_ store: any LiveStore, to path: String, maxBytes: Int?) throws(CommandError) {
    let writer: JournalWriter
    do { writer = try JournalWriter(path: path, maxBytes: maxBytes) } catch { throw CommandError(journalError: error) }
    if let warning = writer.warning { printError("synctable: warning: \(warning)") }
    var failed = false
    // The observer holds the store (and the writer) for as long as the store lives.
    store.observeRevisions { revision in
        guard !failed else { return }
        let who = revision.writer ?? (store.hasWritesInProgress ? "this" : store.isRemote ? "network" : "other process")
        do { try writer.append(revision.document, time: revision.time, writer: who) } catch {
            // The data goes on being shown; the recording stops, and says so once.
            failed = true
            printError("synctable: warning: recording stopped: \(error)")
        }
    }
}

/// `2026-12-05T03:00:00Z` (UTC), `2026-12-05 03:00` or `03:00` (local, today), or seconds since 1970.
/// - Throws: `CommandError` naming `flag` for anything else.
func secondsSince1970(_ text: String, flag: String) throws(CommandError) -> Double {
    if let seconds = Double(text) { return seconds }
    let failure = CommandError("\(flag): \(JSON.string(text).serializedString()) is not a time (such as 2026-12-05T03:00:00Z, 2026-12-05 03:00 or 03:00)")
    let utc = text.hasSuffix("Z")
    let body = utc ? text.dropLast() : Substring(text)
    let halves = body.split(whereSeparator: { $0 == "T" || $0 == " " })
    let date = halves.count == 2 || body.contains("-") ? halves.first : nil
    let clock = halves.count == 2 ? halves.last : date == nil ? halves.first : nil
    var parts = tm()
    var now = time(nil)
    if utc { gmtime_r(&now, &parts) } else { localtime_r(&now, &parts) }
    (parts.tm_hour, parts.tm_min, parts.tm_sec) = (0, 0, 0)
    if let date {
        let ymd = date.split(separator: "-").compactMap { Int32($0) }
        guard ymd.count == 3, (1...12).contains(ymd[1]), (1...31).contains(ymd[2]) else { throw failure }
        (parts.tm_year, parts.tm_mon, parts.tm_mday) = (ymd[0] - 1900, ymd[1] - 1, ymd[2])
    }
    if let clock {
        let hms = clock.split(separator: ":").compactMap { Int32($0) }
        guard (2...3).contains(hms.count), (0...23).contains(hms[0]), (0...59).contains(hms[1]), hms.count == 2 || (0...60).contains(hms[2]) else {
            throw failure
        }
        (parts.tm_hour, parts.tm_min, parts.tm_sec) = (hms[0], hms[1], hms.count == 3 ? hms[2] : 0)
    }
    guard date != nil || clock != nil else { throw failure }
    parts.tm_isdst = -1
    return Double(utc ? timegm(&parts) : mktime(&parts))
}
