// Reading and parsing off the loop thread: one read in flight, results handed back through a wake-up.
#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import JSONTree
import LiveQuery
import Synchronization
import StoreInterface

/// One read the loop asks for.
struct ReadRequest: Sendable {
    /// Increases with every request; a later request reads a later state of the file.
    let generation: UInt64
    let path: String
    /// The current revision's document: the next state is re-parsed from it (only the
    /// container an edit touched), and the same bytes need no parse at all.
    let current: JSONDocument?
    /// Whether no writer was known to be busy when the read began: a problem it finds is
    /// reported at once rather than after the settle delay.
    let settled: Bool
    /// The queries being listened to, so that their next changes are computed here too.
    let listeners: [ListenerSnapshot]
}

/// What a read found.
enum ReadOutcome: Sendable {
    /// A new valid state, with the listeners' changes to it.
    case parsed(JSONDocument, FileIdentity, [PrecomputedChange])
    /// The same bytes as the current revision.
    case unchanged(FileIdentity)
    case invalid(JSONParseError)
    case missing
    case unreadable(String)
    /// Written to while being read; read again.
    case unstable
    /// A newer change arrived before the parse began or before the windows were computed, so
    /// that work was skipped: the newer read is what counts.
    case superseded
    /// A JSON Lines source read from where it stopped, with the listeners' changes when its
    /// records changed.
    case lines(LinesNews, [PrecomputedChange])
}

struct ReadResult: Sendable {
    let request: ReadRequest
    let outcome: ReadOutcome
}

/// Runs reads on its own serial queue and signals `wake` when one finishes.
///
/// The loop keeps at most one request in flight, so a burst of changes costs at most one
/// read in progress and one pending.
final class ReadWorker: Sendable {
    /// The hub's first-window evaluations share the reads' queue.
    let windows: WindowWorker
    private let reader: SnapshotReader
    private let finished = Mutex<[ReadResult]>([])
    /// Results the loop has done with, freed on the read queue before its next read (`release`).
    private let retired = Mutex<[ReadResult]>([])
    /// Requests with a generation up to this one stop at their next checkpoint: before the
    /// parse, and between the parse and the window evaluation.
    private let supersededUpTo = Atomic<UInt64>(0)
    var wake: WakeSignal { windows.wake }
    /// For a JSON Lines file or a pipe: the records so far and where reading stopped.
    let lines: LinesReader?
    /// A first read of a file at least this large parses its mapping (`SnapshotReader.parseMapped`).
    let mappedFirstReadSize: Int

    init(wake: WakeSignal, lines: LinesReader? = nil, mappedFirstReadSize: Int = splitReadSize, tuning: EngineTuning = .current) {
        reader = SnapshotReader(tuning: tuning, holdsFiles: true)
        windows = WindowWorker(wake: wake, label: "FileStore.read")
        self.lines = lines
        self.mappedFirstReadSize = mappedFirstReadSize
    }

    func start(_ request: ReadRequest) {
        windows.queue.async { [self] in
            dropRetired()
            let result = ReadResult(request: request, outcome: perform(request))
            finished.withLock { $0.append(result) }
            wake.signal()
            // After the wake-up: freeing a replaced file may wait for the device.
            reader.releaseReplaced()
        }
    }

    /// Lets go of `results` on the read queue (the caller keeps no copy): the revisions they were
    /// read from (their requests' current documents) are freed there, not on the loop thread
    /// before the new revision's events are written out (a 1 GB file's memory file and tape:
    /// 1.8 GB unmapped, docs/engine/gigabyte.md), and before any read that starts after them, so
    /// that no three revisions are held at once.
    func release(_ results: [ReadResult]) {
        retired.withLock { $0.append(contentsOf: results) }
        windows.queue.async { [self] in dropRetired() }
    }

    private func dropRetired() {
        let results = retired.withLock { retired in
            defer { retired.removeAll() }
            return retired
        }
        withExtendedLifetime(results) {}
    }

    /// Asks requests up to `generation` to stop at their next checkpoint: a newer state is waiting.
    func supersede(upTo generation: UInt64) {
        supersededUpTo.max(generation, ordering: .relaxed)
    }

    func takeFinished() -> [ReadResult] {
        finished.withLock { results in
            defer { results.removeAll() }
            return results
        }
    }

    /// - Complexity: O(file size).
    private func perform(_ request: ReadRequest) -> ReadOutcome {
        if let lines {
            // Never superseded: each read continues from the last, and costs what was appended.
            let news = lines.read()
            guard let document = news.document else { return .lines(news, []) }
            return .lines(news, changes(request, document))
        }
        if request.current == nil, let mapped = reader.parseMapped(request.path, from: mappedFirstReadSize) {
            switch mapped {
            case .invalid(let error): return .invalid(error)
            case .parsed(let document, let identity):
                if supersededUpTo.load(ordering: .relaxed) >= request.generation { return .superseded }
                return .parsed(document, identity, changes(request, document))
            }
        }
        let (snapshot, sharedEnds) = reader.read(request.path, comparingWith: request.current?.bytes, following: request.current)
        switch snapshot {
        case .missing: return .missing
        case .unreadable(let why): return .unreadable(why)
        case .unstable: return .unstable
        case .bytes(let bytes, let identity):
            if supersededUpTo.load(ordering: .relaxed) >= request.generation { return .superseded }
            let document: JSONDocument
            do {
                // An edit to one child re-parses that child only.
                if let current = request.current, let (prefix, suffix) = sharedEnds {
                    document = try current.reparsing(bytes, sharedPrefix: prefix, sharedSuffix: suffix)
                } else if let current = request.current {
                    document = try current.reparsing(bytes)
                } else {
                    document = try JSONDocument(parsing: bytes)
                }
            } catch {
                return .invalid(error)
            }
            // Re-parsing the same bytes gives the same document back (found by its byte comparison).
            if document === request.current { return .unchanged(identity) }
            // The parse cannot be interrupted, but what follows it can be skipped.
            if supersededUpTo.load(ordering: .relaxed) >= request.generation { return .superseded }
            // Window evaluation can cost as much as the parse on large files: it is done here
            // too, so the loop thread only delivers.
            return .parsed(document, identity, changes(request, document))
        }
    }

    private func changes(_ request: ReadRequest, _ document: JSONDocument) -> [PrecomputedChange] {
        request.listeners.map { listener in
            PrecomputedChange(group: listener.group, version: listener.version, change: listener.change(to: document))
        }
    }
}
