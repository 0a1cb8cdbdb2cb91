// Reading a journal back: its revisions in order, from `FILE.1` (the oldest, after a rotation)
// then `FILE`; a torn last line is a warning, anything else not a journal's an error. A recording
// is held as what a journal is (a first value and each revision's changes), any revision made when asked.
#if canImport(Glibc)
import Glibc
#endif
import JSONTree

/// A journal read whole: its entries oldest first, and what was wrong at its end.
public struct JournalRecording: Sendable {
    public var entries: [JournalEntry] = []
    /// Set when the last line was cut short (its writer was killed mid-line): it is left out.
    public var warning: String?
    /// Where each entry's line is, for errors.
    private var places: [(file: String, line: Int)] = []

    public init() {}

    /// Reads `path` (and `path.1`, before it, when there is one).
    /// - Throws: `JournalError` for a file that is not a journal (with the line and column), a
    ///   line that is not one that is not the last, or a file that cannot be read.
    public init(path: String) throws(JournalError) {
        if let older = try? readWholeFile(path + ".1"), isJournal(older) {
            try read(older, file: path + ".1", isLast: false)
        }
        let bytes: [UInt8]
        do { bytes = try readWholeFile(path) } catch { throw .system(file: path, message: error.message) }
        try read(bytes, file: path, isLast: true)
    }

    /// Reads the lines of `bytes` (one file of a journal).
    public mutating func read(_ bytes: [UInt8], file: String, isLast: Bool) throws(JournalError) {
        guard !bytes.isEmpty else { throw .notJournal(file: file, line: 1, column: 1, message: "it is empty") }
        var start = 0, number = 0
        while start < bytes.count {
            number += 1
            let end = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) ?? bytes.count
            let torn = end == bytes.count
            if torn && start == end { break }  // the newline that ends the last line
            do {
                entries.append(try JournalEntry(line: bytes[start..<end], number: number, file: file))
                places.append((file, number))
            } catch {
                // Only the very last line of the newest file can be one a killed writer left unfinished.
                guard torn, isLast, number > 1, case .badLine = error else { throw error }
                warning = "\(file): line \(number) was cut short (its writer stopped mid-line) and is left out"
            }
            start = end + 1
        }
    }

    /// The value after each entry, oldest first, from `since` to `until` (seconds since 1970):
    /// the entries before `since` make the first value shown, those after `until` are left out.
    /// - Throws: `JournalError.badLine` for a change that does not apply (naming its line).
    public func forEachRevision(since: Double? = nil, until: Double? = nil,
                                _ body: (_ value: ReplayTree, _ entry: JournalEntry) -> Void) throws(JournalError) {
        var replay = JournalReplay(self, since: since, until: until)
        while let next = try replay.next() { body(next.value, next.entry) }
    }

    /// Where entry `n`'s line is.
    func place(_ n: Int) -> (file: String, line: Int) { places[n] }
}

/// A recording's revisions one at a time (see `JournalRecording.forEachRevision`), so that a reader
/// can pause between them.
public struct JournalReplay: Sendable {
    private let recording: JournalRecording
    private let since: Double?, until: Double?
    private var n = 0
    private var value: ReplayTree?
    /// The last entry before `since`: its state is the first shown.
    private var held: JournalEntry?
    private var ready: [(value: ReplayTree, entry: JournalEntry)] = []
    private var finished = false

    public init(_ recording: JournalRecording, since: Double? = nil, until: Double? = nil) {
        self.recording = recording
        self.since = since
        self.until = until
    }

    /// The next revision's value and entry; nil after the last.
    /// - Throws: `JournalError.badLine` for a change that does not apply (naming its line).
    public mutating func next() throws(JournalError) -> (value: ReplayTree, entry: JournalEntry)? {
        while ready.isEmpty && !finished { try advance() }
        return ready.isEmpty ? nil : ready.removeFirst()
    }

    private mutating func advance() throws(JournalError) {
        guard n < recording.entries.count, until.map({ recording.entries[n].time <= $0 }) ?? true else {
            finished = true
            if let held, let value { ready.append((value, held)) }
            return
        }
        let entry = recording.entries[n]
        n += 1
        if let since, entry.time >= since, let earlier = held, let value {
            ready.append((value, earlier))
            held = nil
        }
        switch entry.content {
        case .whole(let whole): value = ReplayTree(whole)
        case .changes(let changes):
            guard value != nil else { return }
            for change in changes {
                do { try value!.apply(change) } catch {
                    let place = recording.place(n - 1)
                    throw .badLine(file: place.file, line: place.line, column: 1, message: "\(error)")
                }
            }
        }
        if let since, entry.time < since {
            held = entry
        } else if let value {
            ready.append((value, entry))
        }
    }
}

/// The revisions of a recording, oldest first (cut by `since` and `until` as
/// `JournalRecording.forEachRevision` cuts them), each one's value made on request: the value
/// kept at the nearest earlier checkpoint (one every `spacing` revisions) with the changes
/// after it applied. Checkpoints share every child their revisions did not change: a value is
/// copied on write, one container on a changed path at a time.
public struct JournalRevisions: Sendable {
    /// Each revision's entry: its time, writer and changes (or whole value).
    public let entries: [JournalEntry]
    /// Revisions from one checkpoint to the next.
    public let spacing: Int
    /// The value of revision `k * spacing`, for each k.
    private let checkpoints: [ReplayTree]

    /// Replays `recording` once (every change applied: one that does not apply is an error
    /// now, not when its revision is asked for), keeping a checkpoint every `spacing` revisions.
    /// - Throws: `JournalError.badLine` for a change that does not apply (naming its line).
    public init(_ recording: JournalRecording, since: Double? = nil, until: Double? = nil, spacing: Int = 16) throws(JournalError) {
        precondition(spacing > 0, "a checkpoint every 0 revisions")
        var replay = JournalReplay(recording, since: since, until: until)
        var entries = [JournalEntry](), checkpoints = [ReplayTree]()
        while let next = try replay.next() {
            if entries.count % spacing == 0 { checkpoints.append(next.value) }
            entries.append(next.entry)
        }
        self.entries = entries
        self.spacing = spacing
        self.checkpoints = checkpoints
    }

    /// How many revisions there are.
    public var count: Int { entries.count }

    /// Revision `n`'s value (0: the oldest).
    /// - Complexity: the changes of at most `spacing - 1` revisions, plus the containers on
    ///   their paths copied once.
    public func value(at n: Int) -> ReplayTree {
        var value = checkpoints[n / spacing]
        for i in stride(from: n / spacing * spacing + 1, through: n, by: 1) { value.advance(by: entries[i]) }
        return value
    }

    /// Makes `value`, revision `n - 1`'s, revision `n`'s.
    public func advance(_ value: inout ReplayTree, to n: Int) {
        value.advance(by: entries[n])
    }

    /// The children `keys` of the object at `location` in revision `n` (a child not there is
    /// left out), made from the nearest checkpoint by applying only the changes under them: a
    /// time machine's step costs what changed, not a copy of the whole value. Nil when the
    /// checkpoint has no object there, or a revision between replaced the whole value or
    /// changed `location` or above it.
    func children(_ keys: Set<String>, under location: [String], at n: Int) -> [String: ReplayTree.Node]? {
        guard case .object(let members)? = checkpoints[n / spacing].node(at: location[...]) else { return nil }
        var children = [String: ReplayTree.Node]()
        for key in keys { children[key] = members.places[JSONKey(key)].map { members.values[$0] } }
        for i in stride(from: n / spacing * spacing + 1, through: n, by: 1) {
            guard Self.apply(entries[i], to: &children, keys, under: location) else { return nil }
        }
        return children
    }

    /// Applies the changes of `entry` under the children `keys` of `location` to `children`;
    /// false for a whole value, a change at or above `location`, or one that does not apply.
    static func apply(_ entry: JournalEntry, to children: inout [String: ReplayTree.Node], _ keys: Set<String>,
                      under location: [String]) -> Bool {
        guard case .changes(let changes) = entry.content else { return false }
        for change in changes {
            switch childPlace(of: change.pointer, under: location) {
            case .atOrAbove: return false
            case .beside: continue
            case .child(let key):
                guard keys.contains(key) else { continue }
                let rest = change.pointer[(location.count + 1)...]
                if rest.isEmpty {
                    children[key] = change.value.map(ReplayTree.Node.init)
                    continue
                }
                // Taken out while it changes, so that it is referenced once.
                guard var child = children.removeValue(forKey: key),
                      (try? child.apply(change.value.map(ReplayTree.Node.init), at: rest, whole: change.pointer)) != nil else { return false }
                children[key] = child
            }
        }
        return true
    }
}

/// Where a change's pointer is against a location.
enum ChildPlace {
    /// At the location or above it: it may change every child.
    case atOrAbove
    /// Outside the location.
    case beside
    /// At or under the location's child `key`.
    case child(String)
}

func childPlace(of pointer: [String], under location: [String]) -> ChildPlace {
    if pointer.count > location.count, pointer.starts(with: location) { return .child(pointer[location.count]) }
    if location.starts(with: pointer) { return .atOrAbove }
    // Another element of an array the location is in: adding or removing one renumbers the
    // elements after it, the location's own among them (keys that cannot be indexes cannot).
    let common = zip(pointer, location).prefix { $0 == $1 }.count
    return arrayIndex(pointer[common]) != nil && arrayIndex(location[common]) != nil ? .atOrAbove : .beside
}

extension ReplayTree {
    /// This value after `entry`: its whole value, or its changes applied (changes a replay
    /// already applied to the same value: they apply again).
    mutating func advance(by entry: JournalEntry) {
        switch entry.content {
        case .whole(let whole): self = ReplayTree(whole)
        case .changes(let changes): for change in changes { try? apply(change) }
        }
    }
}

/// The bytes of the file at `path`.
func readWholeFile(_ path: String) throws(SystemError) -> [UInt8] {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { throw SystemError() }
    defer { close(fd) }
    var bytes = [UInt8]()
    var chunk = [UInt8](repeating: 0, count: 1 << 20)
    while true {
        let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if n < 0 && errno == EINTR { continue }
        guard n >= 0 else { throw SystemError() }
        if n == 0 { return bytes }
        bytes.append(contentsOf: chunk[..<n])
    }
}

/// `errno` in words.
struct SystemError: Error {
    let message = String(cString: strerror(errno))
}
