// A writer's parse of a large file on two threads. While the parse reads the first half, a
// scout validates the members of the object found at the second half (in a file of many
// children, the object that holds them) and lists where each key and value lies. The parse,
// reaching one of those keys where it expects a key, takes the members from there as listed
// instead of reading them. That is exact: whether the members from a key onwards are valid,
// and where they lie, depends on nothing before that key, so the list is what the parse would
// have found. Anywhere else, or once the scout has stopped (at an error, say), the parse reads
// on itself and reports any error the usual way.
import CJSONScan
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

final class MemberScout: @unchecked Sendable {
    /// Pruned parses of inputs at least this large are scouted, from the middle.
    static let threshold = 16 << 20
    /// The parse takes listed members only with at most this many containers open; the scout
    /// checks their values as if nested that deep (never more leniently than the parse).
    static let depth = 64
    /// A level of objects is kept once this many of its members are listed in a row. Before,
    /// the scout may have started inside a child; at that child's end it moves up a level.
    static let settled = 64
    /// How far past its start the scout looks for a level to keep.
    static let reach = 4 << 20
    /// How many starts the scout tries before it gives up.
    static let attempts = 64
    /// Members are handed to the parse in runs of this many.
    static let run = 4096

    private let input: UnsafeBufferPointer<UInt8>
    /// Where the scout starts looking, and the members it lists (only the first `published`
    /// may be read by the parse).
    let from: Int
    let members: UnsafeMutablePointer<jsonscan_member_t>
    private let capacity: Int
    private let published = Atomic<Int>(0)
    private let finished = Atomic<Bool>(false)
    /// The object's closing brace after the last member listed, or -1 (the scout stopped
    /// before it); set before `finished`.
    private let closing = Atomic<Int>(-1)
    /// Raised when the parse no longer needs the scout (read by C, hence no `Atomic`).
    private let stopFlag = UnsafeMutablePointer<Int32>.allocate(capacity: 1)
    private var work: ThreadWork<Void>?

    /// The path's keys, which the scout marks the members of (`JSONSCAN_MEMBER_NAMED`).
    private let keys: UnsafeMutableBufferPointer<jsonscan_key_t>
    private let keyBytes: UnsafeMutableBufferPointer<UInt8>
    private let keyCount: Int

    init(_ input: UnsafeBufferPointer<UInt8>, from: Int, naming path: [[UInt8]]) {
        self.input = input
        self.from = from
        keyBytes = .allocate(capacity: max(1, path.reduce(0) { $0 + $1.count }))
        keys = .allocate(capacity: max(1, path.count))
        var at = 0
        for (k, key) in path.enumerated() {
            _ = UnsafeMutableBufferPointer(rebasing: keyBytes[at..<at + key.count]).initialize(from: key)
            keys[k] = jsonscan_key_t(bytes: UnsafePointer(keyBytes.baseAddress! + at), count: key.count)
            at += key.count
        }
        keyCount = path.count
        // The shortest member is 5 bytes (`"":0,`). Pages are taken only as members are
        // written; the cap keeps the reservation sane for files of gigabytes.
        capacity = max(Self.settled, min((input.count - from) / 5 + 2, 1 << 24))
        members = .allocate(capacity: capacity)
        stopFlag.initialize(to: 0)
        work = ThreadWork { [self] in scout() }
    }

    /// Tells the scout to list no more (those listed stay valid): once a writer knows where
    /// its value lies, it writes the rest of the file on the other core while the parse goes
    /// on, and the scout would only slow it.
    func halt() {
        jsonscan_flag_raise(stopFlag)
    }

    /// Stops the scout and waits for it; the members go with it.
    func stop() {
        halt()
        _ = work?.join()
        work = nil
        members.deallocate()
        stopFlag.deallocate()
        keys.deallocate()
        keyBytes.deallocate()
    }

    /// The members the parse may read: more than `index` of them, or as many as there are
    /// once the scout has finished (it waits for the scout until one of those holds).
    func available(beyond index: Int) -> Int {
        while true {
            let count = published.load(ordering: .acquiring)
            if count > index { return count }
            if finished.load(ordering: .acquiring) { return published.load(ordering: .acquiring) }
            usleep(20)
        }
    }

    /// Once `available` has said the scout has finished: the closing brace after its last member.
    var closingBrace: Int? {
        let at = closing.load(ordering: .acquiring)
        return at >= 0 ? at : nil
    }

    private func scout() {
        defer { finished.store(true, ordering: .releasing) }
        guard let b = input.baseAddress, var at = settle() else { return }
        let n = input.count, maxDepth = maximumJSONDepth - Self.depth
        var written = Self.settled, closed: Int32 = 0
        published.store(written, ordering: .releasing)
        while jsonscan_flag_get(stopFlag) == 0 && written < capacity {
            var count = 0
            let end = jsonscan_scan_members(b, at, n, maxDepth, 1, 1, keys.baseAddress, keyCount, members + written, min(Self.run, capacity - written),
                                            &count, &closed, stopFlag)
            written += count
            published.store(written, ordering: .releasing)
            guard end >= 0 else { return }
            if closed != 0 {
                closing.store(end, ordering: .relaxed)
                return
            }
            at = end
        }
    }

    /// Settles on a level: lists a run of `settled` members of one object in `members`, and
    /// returns the position after the last one's value; nil when none is found within `reach`.
    /// A start that turns out not to be a member (a string in an array, say) is left for the
    /// next; one inside a small object moves up to its parent at the object's end.
    private func settle() -> Int? {
        let b = input.baseAddress!, n = input.count, maxDepth = maximumJSONDepth - Self.depth
        var candidate = from, attempts = 0
        while attempts < Self.attempts, let key = firstKey(after: candidate) {
            attempts += 1
            candidate = key + 1
            var at = key, count = 0, closed: Int32 = 0
            while at - from < Self.reach && jsonscan_flag_get(stopFlag) == 0 {
                let end = jsonscan_scan_members(b, at, n, maxDepth, 0, 0, keys.baseAddress, keyCount, members, Self.settled,
                                                &count, &closed, stopFlag)
                guard end >= 0 else { break }
                if closed == 0 { return end }
                guard let next = keyAfterClosing(end) else { break }
                at = next
            }
        }
        return nil
    }

    /// The first place at or after `at` that may start an object's member other than its
    /// first: a comma, whitespace, and a quote.
    private func firstKey(after at: Int) -> Int? {
        var i = at
        let limit = min(input.count, at + Self.reach)
        while i < limit {
            if input[i] == UInt8(ascii: ",") {
                let key = jsonscan_skip_whitespace(input.baseAddress!, i + 1, input.count)
                if key < input.count && input[key] == UInt8(ascii: "\"") { return key }
            }
            i += 1
        }
        return nil
    }

    /// After an object closed at `brace`, taken as a member of an object: the next member's
    /// key, past the closing of any objects that end there too; nil when something else
    /// follows (an array's element, the end).
    private func keyAfterClosing(_ brace: Int) -> Int? {
        var i = brace
        while true {
            i = jsonscan_skip_whitespace(input.baseAddress!, i + 1, input.count)
            guard i < input.count else { return nil }
            if input[i] == UInt8(ascii: "}") { continue }
            guard input[i] == UInt8(ascii: ",") else { return nil }
            let key = jsonscan_skip_whitespace(input.baseAddress!, i + 1, input.count)
            return key < input.count && input[key] == UInt8(ascii: "\"") ? key : nil
        }
    }
}
