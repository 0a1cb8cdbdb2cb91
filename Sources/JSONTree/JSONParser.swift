// The strict RFC 8259 parser: bytes in, tape out. Iterative (no recursion), so deep
// nesting is a depth error, never a stack overflow.
import CJSONScan
import EngineMemory
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Documents nested deeper than this are rejected: every layer above the parser may
/// recurse over the tree, and threads other than the main one have small stacks.
public let maximumJSONDepth = 1024

enum JSONParser {
    /// - Parameter portable: take the path of CPUs without AVX2 (for tests on those that have it).
    static func parse(_ bytes: [UInt8], portable: Bool = false) throws(JSONParseError) -> TapeStorage {
        try parse(DocumentBytes(bytes), portable: portable)
    }

    static func parse(_ bytes: DocumentBytes, portable: Bool = false, tuning: EngineTuning = .current) throws(JSONParseError) -> TapeStorage {
        guard bytes.count < Int(UInt32.max) else {
            throw JSONParseError(message: "file larger than 4 GiB", offset: 0, line: 1, column: 1)
        }
        return try bytes.withUnsafeBufferPointer { buf throws(JSONParseError) in
            try parse(buf, depthLimit: maximumJSONDepth, portable: portable, tuning: tuning)
        }
    }

    /// Parses `bytes` as `parse` does, telling `progress` how far it has read as it goes.
    static func parse(_ bytes: DocumentBytes, progress: ParseProgress, tuning: EngineTuning) throws(JSONParseError) -> TapeStorage {
        defer { progress.position.store(Int.max, ordering: .releasing) }
        guard bytes.count < Int(UInt32.max) else {
            throw JSONParseError(message: "file larger than 4 GiB", offset: 0, line: 1, column: 1)
        }
        return try bytes.withUnsafeBufferPointer { buf throws(JSONParseError) in
            var parser = Parser<WholeTape>(buf, depthLimit: maximumJSONDepth, portable: false, tuning: tuning)
            (parser.progress, parser.nextPassed) = (progress, 0)
            parser.startFragment(from: nil)
            return try finish(&parser)
        }
    }

    /// Parses `buf` (at most 4 GiB), nested at most `depthLimit` deep; positions are relative to it.
    /// Never inlined: callers in other files would take it out of this file's code unit (the
    /// compiler's threads work file by file), and with it the inlining of the parser's loop.
    @inline(never)
    /// - Parameters:
    ///   - entryLimit: fewer tape entries than this, or an error (tests: the limit without
    ///     gigabytes of input).
    ///   - splitFrom: where the second thread looks for the members it parses (`TapeFragment`);
    ///     by default the middle of an input of `splitParseSize` bytes or more, none for less;
    ///     none unless `tuning` has a second thread.
    ///   - fragmentTaken: told whether the parse took the second thread's members; the parse
    ///     then waits for that thread to finish them when it gets to them, rather than reading
    ///     on (tests: so that small or quickly parsed inputs are split too).
    static func parse(_ buf: UnsafeBufferPointer<UInt8>, depthLimit: Int, portable: Bool = false,
                      entryLimit: Int = Tape.entryLimit, splitFrom: Int? = nil, tuning: EngineTuning = .current,
                      fragmentTaken: ((Bool) -> Void)? = nil) throws(JSONParseError) -> TapeStorage
    {
        var parser = Parser<WholeTape>(buf, depthLimit: depthLimit, portable: portable, tuning: tuning)
        parser.startFragment(from: splitFrom)
        parser.waitsForFragment = fragmentTaken != nil
        defer { fragmentTaken?(parser.fragmentTaken) }
        return try finish(&parser, entryLimit: entryLimit)
    }

    /// Runs `parser` to the end: its tape, or its error (the tape then freed).
    private static func finish<Scope>(_ parser: inout Parser<Scope>, entryLimit: Int = Tape.entryLimit)
        throws(JSONParseError) -> TapeStorage
    {
        defer { parser.deallocateScratch() }
        do throws(JSONParseError) {
            defer { parser.stopFragment() }
            try parser.run()
            guard parser.tape.count < entryLimit else {
                throw JSONParseError(
                    message: "more values than a document can hold (\(entryLimit - 1) tape entries: one a value, two an object or array)",
                    offset: 0, line: 1, column: 1)
            }
        } catch {
            parser.tape.discard()
            throw error
        }
        return parser.tape.finish(split: parser.split, metadataKeys: parser.metadataKeys)
    }

    /// Parses `buf` as strictly as `parse` (the same errors), keeping on the tape only the nodes
    /// on the way to `path` (each container's members there, each a node) and everything under
    /// it: any other container is one node with its byte range and no children.
    /// `watch` hears of the parse's progress towards `path` (`PathWatch`).
    @inline(never)
    static func parse(
        _ buf: UnsafeBufferPointer<UInt8>, keeping path: Path, watch: PathWatch? = nil
    ) throws(JSONParseError) -> (TapeStorage, PathMembers) {
        var parser = Parser<PrunedTape>(buf, depthLimit: maximumJSONDepth, portable: false, tuning: .current)
        if !path.keys.isEmpty, let watch {
            parser.watch = watch
            parser.nextPassed = 0
            parser.memberWatch = watch.followed
        }
        parser.keptPath = path.keys.map { Array($0.utf8) }
        parser.keptKeys = KeptKeys(parser.keptPath)
        parser.keptIndexes = path.keys.map { key in
            // An array element's key: its index in decimal, without leading zeros.
            guard let n = Int32(key), n >= 0, String(n) == key else { return -1 }
            return n
        }
        return (try finish(&parser), parser.pathMembers)
    }
}

/// How far a parse has read its input, for a thread that follows it: a position about every
/// `PathWatch.step` bytes, and `Int.max` once the parse has ended (whether or not it succeeded).
package final class ParseProgress: Sendable {
    package let position = Atomic<Int>(0)
    /// The second thread of a parse on two (`TapeFragment`): the key it settled on, and how far
    /// it has read from there.
    package let secondStart = Atomic<Int>(.max)
    package let secondPosition = Atomic<Int>(0)
    package init() {}

    /// How far the input is read with no gap from its start: `position`, or once the parse
    /// has read up to the second thread's start (and waits for it there), that thread's position.
    package var readUpTo: Int {
        let read = position.load(ordering: .acquiring)
        guard read >= secondStart.load(ordering: .acquiring) else { return read }
        return max(read, secondPosition.load(ordering: .acquiring))
    }
}

/// What a pruned parse tells a writer while it runs: how far it is, until it reaches the first
/// value at its path (not the root); then, when that value is a number, string, `true`,
/// `false` or `null`, its byte range; and when it is an object's member followed by another,
/// the bytes from its key to the next key. Every position passed lies before that value. The
/// value reached is the first one there: a later duplicate key on the way may still make
/// another one the value at the path, and the parse may still fail.
package struct PathWatch {
    /// How often `passed` is called: every this many bytes parsed, or about.
    static let step = 1 << 20
    package var passed: (Int) -> Void
    package var found: (Range<Int>) -> Void
    /// The first member at the path, from its key to the key of the member after it: the
    /// member and the separator that goes with it when it is removed alone. Called when the
    /// parse reads that next key; never when the member is its object's last.
    package var followed: ((Range<Int>) -> Void)?

    package init(
        passed: @escaping (Int) -> Void, found: @escaping (Range<Int>) -> Void,
        followed: ((Range<Int>) -> Void)? = nil
    ) {
        self.passed = passed
        self.found = found
        self.followed = followed
    }
}

/// What a parse keeps on its tape: every node, or (for a writer, which reads one path) the
/// nodes on the way to a path and under it. A type, so that each is compiled on its own and the
/// whole parse pays nothing for the other.
private protocol TapeScope {
    static var isPruned: Bool { get }
}

private enum WholeTape: TapeScope {
    static var isPruned: Bool { false }
}

private enum PrunedTape: TapeScope {
    static var isPruned: Bool { true }
}

/// Where an open container stands for a pruned parse (`OpenContainer.kept`).
private enum Kept {
    /// Everything in it is kept (the path's node or below it; any container of a whole parse).
    static let all: Int32 = -1
    /// A container off the path: one node, its contents validated but not kept.
    static let prunedTop: Int32 = -2
    /// A container inside one off the path: nothing kept.
    static let inside: Int32 = -3
    // 0, 1, …: the node at the path's first `kept` keys (its members are kept, its values only
    // the one named by the next key).
}

private let quote = UInt8(ascii: "\""), backslash = UInt8(ascii: "\\")
private let comma = UInt8(ascii: ","), colon = UInt8(ascii: ":"), dot = UInt8(ascii: ".")
private let openBrace = UInt8(ascii: "{"), closeBrace = UInt8(ascii: "}")
private let openBracket = UInt8(ascii: "["), closeBracket = UInt8(ascii: "]")

/// The memory of a tape.
typealias TapeMemory = RecycledMemory<TapeEntry>

/// The tape while it is written, in memory that passes to the document without a copy.
struct TapeBuilder {
    var memory: TapeMemory
    var base: UnsafeMutablePointer<TapeEntry>
    var count = 0
    var capacity: Int
    /// For a large tape: its pages faulted in ahead of the parse, on another thread.
    private(set) var prefault: TapePrefault?

    /// Memory as `tuning` allows; with `prefaulted`, a large tape's pages are faulted in on
    /// another thread where it allows that too (`TapePrefault`).
    init(capacity: Int, tuning: EngineTuning, prefaulted: Bool = true) {
        memory = TapeMemory(capacity: capacity, tuning: tuning)
        base = memory.base
        self.capacity = memory.capacity
        if prefaulted { prefault = TapePrefault(memory, tuning: tuning) }
    }

    @inline(__always)
    mutating func append(_ e: TapeEntry) {
        if count == capacity { grow() }
        base[count] = e
        count += 1
    }

    mutating func grow() {
        stopPrefault()
        memory.resize(to: capacity * 2)
        base = memory.base
        capacity = memory.capacity
    }

    @inline(__always)
    subscript(i: Int) -> TapeEntry {
        get { base[i] }
        nonmutating set { base[i] = newValue }
    }

    mutating func finish(split: (object: Int, member: Int)? = nil, metadataKeys: Bool = true) -> TapeStorage {
        stopPrefault()
        // The capacity came from the separator count, usually close to what was used; give back
        // a large excess only (a resize that moves costs a copy; a kept size lets malloc reuse it).
        if count < capacity - capacity / 4 { memory.shrink(to: count) }
        return TapeStorage(memory: memory, count: count, split: split, metadataKeys: metadataKeys)
    }

    mutating func discard() {
        stopPrefault()
        memory.release()
    }

    /// Tells the prefault how far the tape is written, `at` bytes into `input` bytes.
    func passed(at: Int, of input: Int) {
        prefault?.tell(upTo: TapePrefault.wanted(written: count * MemoryLayout<TapeEntry>.stride, at: at, of: input))
    }

    /// Before the memory moves or goes.
    mutating func stopPrefault() {
        prefault?.stop()
        prefault = nil
    }
}

/// An open container while parsing.
private struct OpenContainer {
    /// Its tape index.
    var index: Int
    var isObject: Bool
    /// For an object, the tape index of its last key so far (-1 before the first), and where
    /// its keys' order stands: 0 while they increase, the first key of a second increasing run,
    /// or -1 once they fall a second time or one has an escape (`markDuplicateKeys`).
    var lastKey = -1
    var secondRun = 0
    /// For a pruned parse, what of it is kept (`Kept`); always `Kept.all` in a whole parse.
    var kept: Int32 = Kept.all
    /// For a pruned parse, an array on the path: elements so far.
    var elements: Int32 = 0
}

/// A pruned parse's path, its keys' bytes one after another in memory of their own.
private struct KeptKeys {
    let bytes: UnsafeMutablePointer<UInt8>
    /// Where key `k` starts in `bytes`, and (at `k + 1`) where it ends.
    let starts: UnsafeMutablePointer<Int>

    init(_ keys: [[UInt8]]) {
        bytes = .allocate(capacity: max(1, keys.reduce(0) { $0 + $1.count }))
        starts = .allocate(capacity: keys.count + 1)
        var at = 0
        for (k, key) in keys.enumerated() {
            starts[k] = at
            for byte in key {
                bytes[at] = byte
                at += 1
            }
        }
        starts[keys.count] = at
    }

    func key(_ k: Int) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(start: bytes + starts[k], count: starts[k + 1] - starts[k])
    }

    func deallocate() {
        bytes.deallocate()
        starts.deallocate()
    }
}

/// Objects with at most this many keys are checked for duplicates pair by pair.
private let smallObjectKeys = 16

private struct Parser<Scope: TapeScope> {
    let p: UnsafeBufferPointer<UInt8>
    let n: Int
    var i = 0
    var tape: TapeBuilder
    /// Open containers, at most `depthLimit` deep.
    let stack: UnsafeMutablePointer<OpenContainer>
    var depth = 0
    let depthLimit: Int
    /// The tape indexes of the keys of a small object whose duplicates are looked for pair by
    /// pair, and their hashes when one has an escape.
    let smallKeys: UnsafeMutablePointer<Int>
    let smallHashes: UnsafeMutablePointer<UInt64>
    /// A pruned parse: where the pass over a container off the path stands (`skipContainer`).
    let skipState: UnsafeMutablePointer<jsonscan_skip_t>
    /// Hash slots for finding duplicates in large objects, stamped with a generation so
    /// they never need clearing.
    var slots = UnsafeMutableBufferPointer<UInt64>(start: nil, count: 0)
    var generation: UInt64 = 0
    /// A pruned parse: the path kept (its keys' bytes, and as array indexes, -1 for none), how
    /// deep inside a container off it the parse is (0: nodes are written), and whether the
    /// value after the last key read is the next one on the path.
    var keptPath: [[UInt8]] = []
    var keptKeys: KeptKeys?
    /// A pruned parse: what it found in each object on the path.
    var pathMembers = PathMembers()
    var keptIndexes: [Int32] = []
    var suppressed = 0
    var keyOnPath = false
    /// A pruned parse: told of its progress until it reaches the path's value, then nil; and
    /// the position past which it next says how far it is (to `watch` or `progress`).
    var watch: PathWatch?
    var nextPassed = Int.max
    /// A whole parse followed by another thread: told how far it is.
    var progress: ParseProgress?
    /// A pruned parse: told of the first member at the path and the key after it, then nil; the
    /// key of that member (-1 until read) and the tape index of its object.
    var memberWatch: ((Range<Int>) -> Void)?
    var memberKey = -1
    var memberObject = -1
    /// Whether a key on the tape may be metadata (`.priority`, `.value`): it starts with "." or
    /// has an escape, which may hide one.
    var metadataKeys = false
    /// Whether the whole input was found to be valid UTF-8 up front (SIMD), so strings need
    /// no per-character check. When it is not, or the CPU has no fast check, strings are
    /// validated as they are scanned, which also locates the error.
    let utf8Checked: Bool
    /// A whole parse of a large input: the members a second thread parses, until taken or
    /// given up; and the position from which the parse looks at where that thread stands.
    var fragment: TapeFragment?
    /// What the parse may use beyond one thread and malloc (a second thread: `fragment`).
    let tuning: EngineTuning
    var fragmentFrom = 0
    var fragmentCheck = Int.max
    var fragmentTaken = false
    /// Once a fragment is taken: its object's tape index and its first key's.
    var split: (object: Int, member: Int)?
    var waitsForFragment = false
    /// A fragment's parse (a whole parse's code, so that it runs as fast): 1, the depth of the
    /// object whose members it reads; 0 for any other parse. What it shares with the whole
    /// parse, how many members of its object it has read, and how deep it has nested.
    var fragmentLevel = 0
    var shared: TapeFragment.Shared?
    var fragmentMembers = 0
    var deepest = 1

    init(_ p: UnsafeBufferPointer<UInt8>, depthLimit: Int, portable: Bool, tuning: EngineTuning) {
        // A pruned parse keeps a fraction of the nodes, and a writer waits for it: no survey
        // (strings are checked for UTF-8 as they are scanned, which costs nothing for ASCII),
        // and a tape that grows as it needs. Nor a parse split over two threads: its second
        // thread starts at once rather than after a pass over the whole input (10 ms of a
        // 150 MB first screen, and the first touch of each page of a mapped file).
        let survey = p.count == 0 ? jsonscan_survey_t(utf8: 1, separators: 0)
            : Scope.isPruned ? jsonscan_survey_t(utf8: 0, separators: min(p.count, 1 << 15))
            : portable ? jsonscan_survey_portable(p.baseAddress!, p.count)
            : p.count >= splitParseSize ? jsonscan_survey_t(utf8: 0, separators: p.count / 4)
            : jsonscan_survey(p.baseAddress!, p.count)
        // Every node but the first follows a separator, and takes a byte with a separator or
        // bracket after it (so at most about half the bytes are nodes); a container's second
        // entry is one more for each '[' or '{', also separators: never too small for valid
        // input. Without a survey, room for half the bytes as nodes (as the second thread's
        // tape has): only empty containers, nested or listed, need more, and the tape grows.
        // Large tapes are mappings whose pages count only once written, so an excess costs
        // address space, not memory; `finish` gives it back.
        self.init(p, depthLimit: depthLimit, utf8Checked: survey.utf8 == 1,
                  capacity: max(16, min(2 * survey.separators + 2, p.count + 2)), tuning: tuning)
    }

    init(_ p: UnsafeBufferPointer<UInt8>, depthLimit: Int, utf8Checked: Bool, capacity: Int, tuning: EngineTuning) {
        self.p = p
        self.n = p.count
        self.depthLimit = depthLimit
        self.utf8Checked = utf8Checked
        self.tuning = tuning
        tape = TapeBuilder(capacity: capacity, tuning: tuning)
        if tape.prefault != nil { nextPassed = 0 }
        stack = .allocate(capacity: depthLimit + 1)
        smallKeys = .allocate(capacity: smallObjectKeys)
        smallHashes = .allocate(capacity: smallObjectKeys)
        skipState = .allocate(capacity: 1)
    }

    func deallocateScratch() {
        stack.deallocate()
        smallKeys.deallocate()
        smallHashes.deallocate()
        skipState.deallocate()
        slots.deallocate()
        keptKeys?.deallocate()
    }

    @inline(never)
    func fail(_ message: String, _ at: Int) -> JSONParseError {
        // A fragment's error is never shown (the whole parse finds it again): no line count.
        if fragmentLevel > 0 { return JSONParseError(message: message, offset: at, line: 0, column: 0) }
        return JSONParseError(message, at: at, in: p)
    }

    func describe(_ at: Int) -> String {
        guard at < n else { return "end of input" }
        let b = p[at]
        if b >= 0x20 && b < 0x7F { return "'\(Character(Unicode.Scalar(b)))'" }
        return "byte 0x" + String(b, radix: 16, uppercase: true)
    }

    mutating func run() throws(JSONParseError) {
        if fragmentLevel > 0 {
            // From a key of an object that is open as far as this parse knows (never closed here).
            stack[0] = OpenContainer(index: -1, isObject: true)
            depth = 1
            try parseKeyAndColon()
        } else {
            // A UTF-8 byte order mark is allowed before the value (RFC 8259 §8.1 lets parsers ignore it).
            if n >= 3 && p[0] == 0xEF && p[1] == 0xBB && p[2] == 0xBF { i = 3 }
            skipWhitespace()
            if i >= n { throw fail("expected a JSON value, found end of input", i) }
        }
        var needValue = true
        while true {
            // A value, or a container's first member; containers are parsed without recursion.
            if needValue {
                needValue = try parseValue()
                if needValue { continue }
            }
            // After a value: close containers or continue with the next member/element.
            if i >= nextPassed { reportPassed() }
            guard depth > 0 else { break }
            let top = stack[depth - 1]
            skipWhitespace()
            guard i < n else {
                throw fail(top.isObject ? "expected ',' or '}' after object member, found end of input"
                    : "expected ',' or ']' after array element, found end of input", i)
            }
            let c = p[i]
            if c == comma {
                i += 1
                skipWhitespace()
                if top.isObject {
                    if !Scope.isPruned && i >= fragmentCheck && takeFragment() { continue }
                    try parseKeyAndColon()
                    if depth == fragmentLevel { countMember() }
                }
                needValue = true
            } else if top.isObject ? c == closeBrace : c == closeBracket {
                i += 1
                if depth == fragmentLevel { return }
                closeContainer()
            } else {
                throw fail(top.isObject ? "expected ',' or '}' after object member, found \(describe(i))"
                    : "expected ',' or ']' after array element, found \(describe(i))", i)
            }
        }
        skipWhitespace()
        if i < n { throw fail("unexpected \(describe(i)) after the JSON value", i) }
    }

    /// Parses one value starting at `i`; a container is only opened (its members follow in `run`).
    /// - Returns: true when a non-empty container was opened and its first value comes next.
    // `@_transparent` (inlined before optimisation) rather than `@inline(__always)`: release
    // builds compile a module on several threads, and there the hint alone left the per-value
    // functions as calls, which kept the parser's state in memory (about 10% slower).
    @_transparent
    mutating func parseValue() throws(JSONParseError) -> Bool {
        guard i < n else { throw fail("expected a value, found end of input", i) }
        let c = p[i]
        // A pruned parse: whether this value is kept whole, on the path, or off it.
        let kept = Scope.isPruned ? keptState() : Kept.all
        switch c {
        case quote:
            let start = i
            let escaped = try scanString()
            if !Scope.isPruned || suppressed == 0 {
                tape.append(TapeEntry(start: start, end: i, flags: escaped ? Tape.escaped : 0))
            }
            if Scope.isPruned && kept == Kept.all { reportFound(start) }
            return false
        case openBrace, openBracket:
            guard depth < depthLimit else {
                throw fail("nesting deeper than \(maximumJSONDepth) levels", i)
            }
            if Scope.isPruned && kept == Kept.all { reportReached() }
            if Scope.isPruned && kept == Kept.prunedTop && skipContainer() { return false }
            let isObject = c == openBrace
            stack[depth] = OpenContainer(index: tape.count, isObject: isObject, kept: kept)
            depth += 1
            if !Scope.isPruned && depth > deepest { deepest = depth }
            if Scope.isPruned && kept == Kept.inside {
                suppressed += 1
            } else {
                tape.append(.container(start: i))
                tape.append(TapeEntry(start: 0, word: 0))  // where it ends: written when it closes
                if Scope.isPruned && kept == Kept.prunedTop { suppressed = 1 }
            }
            i += 1
            skipWhitespace()
            if i < n && p[i] == (isObject ? closeBrace : closeBracket) {
                i += 1
                closeContainer()
                return false
            }
            if isObject { try parseKeyAndColon() }
            return true
        case UInt8(ascii: "t"):
            try literal("true")
            if Scope.isPruned && kept == Kept.all { reportFound(i - 4) }
        case UInt8(ascii: "f"):
            try literal("false")
            if Scope.isPruned && kept == Kept.all { reportFound(i - 5) }
        case UInt8(ascii: "n"):
            try literal("null")
            if Scope.isPruned && kept == Kept.all { reportFound(i - 4) }
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            let start = i
            try scanNumber()
            if !Scope.isPruned || suppressed == 0 { tape.append(TapeEntry(start: start, end: i, flags: 0)) }
            if Scope.isPruned && kept == Kept.all { reportFound(start) }
        default:
            throw fail("expected a value, found \(describe(i))", i)
        }
        return false
    }

    /// For a pruned parse, at a container off the path (`Kept.prunedTop`): validates it in one
    /// tight pass that keeps nothing (saying how far it is as the parse does), and writes its
    /// one node. False when it is not valid: the caller then parses it as usual, from its
    /// start, which finds the error and reports it the usual way.
    @inline(__always)
    mutating func skipContainer() -> Bool {
        let start = i
        skipState.pointee.depth = 0
        var end = jsonscan_skip_container(p.baseAddress!, i, n, depthLimit - depth, utf8Checked ? 1 : 0, nextPassed, skipState)
        while end >= 0 && skipState.pointee.depth > 0 {
            i = end
            reportPassed()
            end = jsonscan_skip_container(p.baseAddress!, i, n, depthLimit - depth, utf8Checked ? 1 : 0, nextPassed, skipState)
        }
        guard end >= 0 else {
            i = start
            return false
        }
        let index = tape.count
        tape.append(.container(start: start))
        tape.append(TapeEntry(start: UInt32(end), word: 0))
        tape[index].word = Tape.containerWord(next: index + 2)
        i = end
        return true
    }

    @_transparent
    mutating func parseKeyAndColon() throws(JSONParseError) {
        guard i < n, p[i] == quote else {
            throw fail("expected a string key, found \(describe(i))", i)
        }
        let start = i
        let escaped = try scanString()
        if Scope.isPruned {
            if suppressed == 0 {
                if memberKey >= 0 && stack[depth - 1].index == memberObject { reportFollowed(start) }
                appendKey(TapeEntry(start: start, end: i, flags: escaped ? Tape.escaped : 0))
                let d = Int(stack[depth - 1].kept)
                keyOnPath = d >= 0 && keyMatches(start, i, escaped: escaped, level: d)
                if keyOnPath { notePathMember(level: d) }
                if keyOnPath && d + 1 == keptPath.count && memberWatch != nil && memberKey < 0 {
                    (memberKey, memberObject) = (start, stack[depth - 1].index)
                }
            }
        } else {
            appendKey(TapeEntry(start: start, end: i, flags: escaped ? Tape.escaped : 0))
        }
        skipWhitespace()
        guard i < n, p[i] == colon else { throw fail("expected ':' after object key, found \(describe(i))", i) }
        i += 1
        skipWhitespace()
    }

    /// Appends the key `key` of the innermost open object to the tape, comparing it with the key
    /// before it while both are in the cache: keys in at most two increasing runs that share no
    /// key are distinct (most large objects: sorted dumps, push ids, or one then the other).
    @inline(__always)
    mutating func appendKey(_ key: TapeEntry) {
        let index = tape.count
        tape.append(key)
        // Noted while the key is in the cache: a child list of a document with no such key
        // reads no byte of the file per child (a cache miss each, 80 % of listing a large object).
        if key.word & Tape.escaped != 0 || p[Int(key.start) + 1] == dot { metadataKeys = true }
        let object = stack + (depth - 1)
        let last = object.pointee.lastKey
        object.pointee.lastKey = index
        guard object.pointee.secondRun >= 0 else { return }
        if key.word & Tape.escaped != 0 {
            object.pointee.secondRun = -1
        } else if last >= 0 && compareKeys(tape[last], key) >= 0 {
            object.pointee.secondRun = object.pointee.secondRun == 0 ? index : -1
        }
    }

    @_transparent
    mutating func closeContainer() {
        depth -= 1
        let top = stack[depth]
        if Scope.isPruned && top.kept == Kept.inside {
            suppressed -= 1
            return
        }
        if Scope.isPruned && top.kept == Kept.prunedTop {
            // One node for the whole container: its bytes, and no children.
            suppressed = 0
            tape[top.index].word = Tape.containerWord(next: top.index + 2)
            tape[top.index + 1].start = UInt32(i)
            return
        }
        tape[top.index].word = Tape.containerWord(next: tape.count)
        tape[top.index + 1].start = UInt32(i)
        if Scope.isPruned && top.kept >= 0 && top.isObject {
            pathMembers.objects[top.index, default: .init(key: keptPath[Int(top.kept)])].lastKey = top.lastKey
        }
        if top.isObject && top.secondRun != 0 { markDuplicateKeys(ofObject: top.index, secondRun: top.secondRun) }
    }

    @inline(__always)
    mutating func literal(_ word: StaticString) throws(JSONParseError) {
        let len = word.utf8CodeUnitCount
        let w = word.utf8Start
        // Compare the first four letters at once; "false" has one more.
        let matches = i + len <= n
            && UnsafeRawPointer(p.baseAddress! + i).loadUnaligned(as: UInt32.self)
                == UnsafeRawPointer(w).loadUnaligned(as: UInt32.self)
            && (len == 4 || p[i + 4] == w[4])
        if !matches {
            var k = 0
            while i + k < n && p[i + k] == w[k] { k += 1 }
            throw fail(i + k < n ? "invalid literal, expected '\(word)'" : "unexpected end of input in '\(word)'", i + k)
        }
        if !Scope.isPruned || suppressed == 0 { tape.append(TapeEntry(start: i, end: i + len, flags: 0)) }
        i += len
    }

    /// For a pruned parse, a kept scalar just parsed at `start..<i`: when it is the path's own
    /// value (its parent is on the path, not under it), the first one is reported.
    @inline(__always)
    mutating func reportFound(_ start: Int) {
        guard let report = watch, depth > 0, stack[depth - 1].kept >= 0 else { return }
        watch = nil
        nextPassed = Int.max
        report.found(start..<i)
    }

    /// For a pruned parse, at a kept container: when it is the path's own value, the watch
    /// hears nothing more (it is told of values at the path that are scalars only).
    @inline(__always)
    mutating func reportReached() {
        guard watch != nil, depth > 0, stack[depth - 1].kept >= 0 else { return }
        watch = nil
        nextPassed = Int.max
    }

    /// For a pruned parse, at a key just appended that is the path's key `level` in its object.
    @inline(never)
    mutating func notePathMember(level: Int) {
        pathMembers.objects[stack[depth - 1].index, default: .init(key: keptPath[level])].matches.append(tape.count - 1)
    }

    /// For a pruned parse, at the key after the path's first member, in the same object.
    @inline(never)
    mutating func reportFollowed(_ next: Int) {
        let (report, member) = (memberWatch, memberKey)
        memberWatch = nil
        memberKey = -1
        report?(member..<next)
    }

    /// For a pruned parse still looking for the path's value, a parse followed, or a large
    /// tape faulted in ahead: says how far it is, every `PathWatch.step` bytes.
    @inline(never)
    mutating func reportPassed() {
        nextPassed = i + PathWatch.step
        if fragmentLevel > 0 {
            // Given up by the whole parse: end here (the parse fails, and nothing is kept).
            if shared?.stopped.load(ordering: .relaxed) == true { i = n }
            // Once settled, how far it has read, for a copy of the input that follows the parse
            // (it goes on from here while the whole parse waits at the start).
            if let progress, let start = shared?.start.load(ordering: .relaxed), start >= 0 {
                progress.secondPosition.store(i, ordering: .releasing)
                progress.secondStart.store(start, ordering: .releasing)
            }
            // Its tape's pages too are faulted in ahead, once it has settled (an attempt that
            // does not settle writes little).
            if let start = shared?.start.load(ordering: .relaxed), start >= 0 { tape.passed(at: i - start, of: n - start) }
            return
        }
        // While a fragment may still give the rest, the tape is foreseen to end where it starts:
        // pages faulted in past there would be held beside the fragment's own.
        tape.passed(at: i, of: fragment != nil ? fragmentFrom : n)
        if let progress {
            progress.position.store(i, ordering: .releasing)
        } else {
            watch?.passed(i)
        }
    }

    /// For a pruned parse, the `Kept` state of the value about to be parsed; counts an array's
    /// elements on the path.
    @inline(__always)
    mutating func keptState() -> Int32 {
        if suppressed > 0 { return Kept.inside }
        guard depth > 0 else { return keptPath.isEmpty ? Kept.all : 0 }
        let parent = stack[depth - 1].kept
        guard parent >= 0 else { return Kept.all }
        let onPath: Bool
        if stack[depth - 1].isObject {
            onPath = keyOnPath
        } else {
            onPath = stack[depth - 1].elements == keptIndexes[Int(parent)]
            stack[depth - 1].elements += 1
        }
        guard onPath else { return Kept.prunedTop }
        return Int(parent) + 1 == keptPath.count ? Kept.all : parent + 1
    }

    /// Whether the key at `start..<end` (quotes included) decodes to the path's key `level`.
    /// (Called for each member of each object on the path: pointers only, nothing retained.)
    @inline(__always)
    func keyMatches(_ start: Int, _ end: Int, escaped: Bool, level: Int) -> Bool {
        if escaped { return decodeString(p, start, end) == keptPath[level] }
        let key = keptKeys!.key(level)
        let count = end - start - 2
        return count == key.count && (count == 0 || memcmp(p.baseAddress! + start + 1, key.baseAddress!, count) == 0)
    }

    @inline(__always)
    mutating func skipWhitespace() {
        // Most values follow their separator directly or after one space.
        if i < n && p[i] > 0x20 { return }
        if i + 1 < n && p[i] == 0x20 && p[i + 1] > 0x20 {
            i += 1
            return
        }
        skipWhitespaceRun()
    }

    mutating func skipWhitespaceRun() {
        guard i < n else { return }
        i = jsonscan_skip_whitespace(p.baseAddress!, i, n)
    }

    /// Scans a string whose opening quote is at `i`; leaves `i` after the closing quote.
    /// Validates escapes (including surrogate pairs) and UTF-8.
    /// - Returns: whether the string contains escapes.
    /// - Complexity: O(length); 16 plain bytes per step.
    @inline(__always)
    mutating func scanString() throws(JSONParseError) -> Bool {
        let base = p.baseAddress!
        let open = i
        var j = i + 1
        var escaped = false
        while true {
            // 16 bytes a step to the next byte that needs a look.
            j = jsonscan_string_stop(base, j, n, utf8Checked ? 0 : 1)
            guard j < n else { throw fail("unterminated string (opened at byte \(open))", n) }
            let c = base[j]
            if c == quote {
                i = j + 1
                return escaped
            } else if c == backslash {
                escaped = true
                j = try scanEscape(at: j)
            } else if c < 0x20 {
                throw fail("control character U+00\(hex2(c)) must be escaped in a string", j)
            } else {
                // Not validated yet: text in other scripts comes in runs of multi-byte characters.
                repeat { j = try scanUTF8(at: j) } while j < n && base[j] >= 0x80
            }
        }
    }

    func hex2(_ c: UInt8) -> String {
        let s = String(c, radix: 16, uppercase: true)
        return s.count == 1 ? "0" + s : s
    }

    /// Validates the escape at `at` (a backslash); returns the position after it.
    func scanEscape(at: Int) throws(JSONParseError) -> Int {
        guard at + 1 < n else { throw fail("unterminated escape at end of input", at) }
        switch p[at + 1] {
        case quote, backslash, UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
            UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
            return at + 2
        case UInt8(ascii: "u"):
            let u = try hex4(at + 2)
            if u >= 0xD800 && u <= 0xDBFF {
                guard at + 7 < n, p[at + 6] == backslash, p[at + 7] == UInt8(ascii: "u"),
                    let low = try? hex4(at + 8), low >= 0xDC00 && low <= 0xDFFF
                else {
                    throw fail("lone surrogate \\u\(String(u, radix: 16, uppercase: true)): a high surrogate must be followed by a low one", at)
                }
                return at + 12
            } else if u >= 0xDC00 && u <= 0xDFFF {
                throw fail("lone surrogate \\u\(String(u, radix: 16, uppercase: true)) without a high surrogate before it", at)
            }
            return at + 6
        default:
            throw fail("invalid escape '\\\(describeEscape(at + 1))' in string", at)
        }
    }

    func describeEscape(_ at: Int) -> String {
        let b = p[at]
        return b >= 0x20 && b < 0x7F ? String(Character(Unicode.Scalar(b))) : "x" + hex2(b)
    }

    func hex4(_ at: Int) throws(JSONParseError) -> UInt32 {
        guard at + 4 <= n else { throw fail("expected 4 hex digits after \\u", at) }
        var v: UInt32 = 0
        for k in 0..<4 {
            let c = p[at + k]
            let d: UInt8
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): d = c - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): d = c - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): d = c - UInt8(ascii: "A") + 10
            default: throw fail("expected 4 hex digits after \\u", at + k)
            }
            v = v << 4 | UInt32(d)
        }
        return v
    }

    /// Validates one multi-byte UTF-8 sequence at `at` (RFC 3629: no overlongs, no
    /// surrogates); returns the position after it.
    @inline(__always)
    func scanUTF8(at: Int) throws(JSONParseError) -> Int {
        let b0 = p[at]
        // The common case first: a 3-byte character such as CJK (E1…EC, EE…EF lead bytes).
        if b0 >= 0xE1 && b0 <= 0xEF && b0 != 0xED && at + 3 <= n
            && p[at + 1] & 0xC0 == 0x80 && p[at + 2] & 0xC0 == 0x80
        {
            return at + 3
        }
        return try scanUTF8Slow(at: at)
    }

    func scanUTF8Slow(at: Int) throws(JSONParseError) -> Int {
        let b0 = p[at]
        var len = 0
        var lo: UInt8 = 0x80, hi: UInt8 = 0xBF
        switch b0 {
        case 0xC2...0xDF: len = 2
        case 0xE0: len = 3; lo = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: len = 3
        case 0xED: len = 3; hi = 0x9F
        case 0xF0: len = 4; lo = 0x90
        case 0xF1...0xF3: len = 4
        case 0xF4: len = 4; hi = 0x8F
        default: throw fail("invalid UTF-8 byte 0x\(hex2(b0)) in string", at)
        }
        guard at + len <= n else { throw fail("truncated UTF-8 sequence in string", at) }
        let b1 = p[at + 1]
        guard b1 >= lo && b1 <= hi else { throw fail("invalid UTF-8 sequence in string (byte 0x\(hex2(b1)))", at + 1) }
        var k = 2
        while k < len {
            guard p[at + k] & 0xC0 == 0x80 else {
                throw fail("invalid UTF-8 sequence in string (byte 0x\(hex2(p[at + k])))", at + k)
            }
            k += 1
        }
        return at + len
    }

    @inline(__always)
    mutating func scanNumber() throws(JSONParseError) {
        if p[i] == UInt8(ascii: "-") {
            i += 1
            guard i < n, isDigit(p[i]) else { throw fail("expected a digit after '-'", i) }
        }
        if p[i] == UInt8(ascii: "0") {
            i += 1
            if i < n && isDigit(p[i]) { throw fail("leading zeros are not allowed in numbers", i - 1) }
        } else {
            while i < n && isDigit(p[i]) { i += 1 }
        }
        if i < n && p[i] == UInt8(ascii: ".") {
            i += 1
            guard i < n, isDigit(p[i]) else { throw fail("expected a digit after '.'", i) }
            while i < n && isDigit(p[i]) { i += 1 }
        }
        if i < n && (p[i] == UInt8(ascii: "e") || p[i] == UInt8(ascii: "E")) {
            i += 1
            if i < n && (p[i] == UInt8(ascii: "+") || p[i] == UInt8(ascii: "-")) { i += 1 }
            guard i < n, isDigit(p[i]) else { throw fail("expected a digit in the exponent", i) }
            while i < n && isDigit(p[i]) { i += 1 }
        }
    }

    @inline(__always) func isDigit(_ c: UInt8) -> Bool { c &- 0x30 < 10 }

    /// The tape index of the key after key `k` of an object that has closed (its subtree is on
    /// the tape); `tape.count` after the last.
    @inline(__always)
    func nextKey(after k: Int) -> Int {
        let v = tape[k + 1]
        return v.isContainer ? v.next : k + 2
    }

    /// Marks all but the last of each set of equal keys of the object at `object`, which has
    /// closed, as shadowed. `secondRun` is where its keys began a second increasing run, or -1
    /// when they fell more than once or one has an escape (`OpenContainer`).
    /// - Complexity: O(keys) expected.
    mutating func markDuplicateKeys(ofObject object: Int, secondRun: Int) {
        if secondRun > 0 && runsShareNoKey(ofObject: object, secondRun: secondRun) { return }
        var count = 0
        var k = object + 2
        var escapes = false
        while k < tape.count && count < smallObjectKeys {
            smallKeys[count] = k
            escapes = escapes || tape[k].word & Tape.escaped != 0
            count += 1
            k = nextKey(after: k)
        }
        if k == tape.count {
            // Small objects (most of them): each pair, told apart by length first, or (keys
            // with escapes, compared decoded) by hash.
            if escapes { for a in 0..<count { smallHashes[a] = hash(ofKey: smallKeys[a]) } }
            for a in 0..<count {
                let key = smallKeys[a]
                for b in (a + 1)..<count where (!escapes || smallHashes[a] == smallHashes[b]) && keysEqual(key, smallKeys[b]) {
                    tape[key].word |= Tape.shadowed
                    break
                }
            }
            return
        }
        while k < tape.count { (count, k) = (count + 1, nextKey(after: k)) }
        var size = 16
        while size < count * 2 { size <<= 1 }
        if slots.count < size {
            slots.deallocate()
            slots = .allocate(capacity: size)
            generation = 0
        }
        generation = generation & 0xFFFF == 0xFFFF ? 1 : generation + 1
        if generation == 1 { for s in 0..<slots.count { slots[s] = 0 } }
        k = object + 2
        while k < tape.count {
            insertKey(k, hash: hash(ofKey: k), size: size)
            k = nextKey(after: k)
        }
    }

    /// Puts key `index` in the hash slots (`size` of them), marking an equal key already there
    /// as shadowed. A slot holds the generation (16 bits), 16 more bits of the hash, and the
    /// key's tape index: keys are compared only when their hashes agree.
    @inline(__always)
    mutating func insertKey(_ index: Int, hash: UInt64, size: Int) {
        let tag = generation << 48 | (hash >> 48) << 32
        var slot = Int(truncatingIfNeeded: hash) & (size - 1)
        while slots[slot] >> 48 == generation {
            let other = Int(slots[slot] & 0xFFFF_FFFF)
            if slots[slot] & 0xFFFF_0000_0000 == tag & 0xFFFF_0000_0000 && keysEqual(other, index) {
                tape[other].word |= Tape.shadowed
                break
            }
            slot = (slot + 1) & (size - 1)
        }
        slots[slot] = tag | UInt64(index)
    }

    /// Whether the two increasing runs of keys of the closed object at `object`, the second
    /// from `secondRun`, have no key in common (found by walking them side by side, as a merge
    /// would take them).
    func runsShareNoKey(ofObject object: Int, secondRun: Int) -> Bool {
        var (a, b) = (object + 2, secondRun)
        while a < secondRun && b < tape.count {
            let order = compareKeys(tape[a], tape[b])
            if order == 0 { return false }
            if order < 0 { a = nextKey(after: a) } else { b = nextKey(after: b) }
        }
        return true
    }

    /// The order of the bytes of two keys without escapes: negative, zero or positive.
    @inline(__always)
    func compareKeys(_ x: TapeEntry, _ y: TapeEntry) -> Int {
        let (a, b) = (Int(x.start) + 1, Int(y.start) + 1)
        let (countA, countB) = (end(of: x) - 1 - a, end(of: y) - 1 - b)
        let common = min(countA, countB)
        // The first 8 bytes as one big-endian word tell most keys apart without a call; a
        // shorter key's word is read past its end (within the input) and masked.
        if common >= 8 || (a + 8 <= n && b + 8 <= n) {
            var u = UnsafeRawPointer(p.baseAddress! + a).loadUnaligned(as: UInt64.self).bigEndian
            var v = UnsafeRawPointer(p.baseAddress! + b).loadUnaligned(as: UInt64.self).bigEndian
            if common < 8 {
                let mask: UInt64 = common == 0 ? 0 : ~0 << (8 * UInt64(8 - common))
                (u, v) = (u & mask, v & mask)
            }
            if u != v { return u < v ? -1 : 1 }
            if common <= 8 { return countA - countB }
        }
        let order = common == 0 ? 0 : Int(memcmp(p.baseAddress! + a, p.baseAddress! + b, common))
        return order != 0 ? order : countA - countB
    }

    func keysEqual(_ a: Int, _ b: Int) -> Bool {
        let ea = tape[a], eb = tape[b]
        let (endA, endB) = (end(of: ea), end(of: eb))
        if ea.word & Tape.escaped == 0 && eb.word & Tape.escaped == 0 {
            let la = endA - Int(ea.start), lb = endB - Int(eb.start)
            return la == lb && memcmp(p.baseAddress! + Int(ea.start), p.baseAddress! + Int(eb.start), la) == 0
        }
        return decodeString(p, Int(ea.start), endA) == decodeString(p, Int(eb.start), endB)
    }

    /// Where the key (or other scalar) of entry `e` ends.
    @inline(__always)
    func end(of e: TapeEntry) -> Int {
        e.length != Tape.longLength ? Int(e.start + e.length) : Tape.scalarEnd(p, from: Int(e.start))
    }

    /// The hash of the decoded bytes of the key token at `start..<end` (quotes included): a key
    /// with escapes is hashed decoded, so `"a"` and `"\u0061"` hash alike.
    @inline(__always)
    func keyHash(_ start: Int, _ end: Int, escaped: Bool) -> UInt64 {
        if escaped { return decodeString(p, start, end).withUnsafeBufferPointer { contentHash($0) } }
        return contentHash(UnsafeBufferPointer(start: p.baseAddress! + start + 1, count: end - start - 2),
                           canOverread: start + 9 <= n)
    }

    /// The hash of key `k`'s decoded bytes.
    func hash(ofKey k: Int) -> UInt64 {
        let e = tape[k]
        return keyHash(Int(e.start), end(of: e), escaped: e.word & Tape.escaped != 0)
    }
}

/// Length, first 8 and last 8 bytes of `b`, mixed: the hash the parser and the editor find
/// keys by (equality is checked anyway).
/// - Parameter canOverread: whether 8 bytes from `b`'s start are readable even when `b`
///   is shorter (bytes past its end are masked off, so the hash is the same).
@inline(__always)
func contentHash(_ b: UnsafeBufferPointer<UInt8>, canOverread: Bool = false) -> UInt64 {
    let len = b.count
    var first: UInt64 = 0, last: UInt64 = 0
    if len >= 8 {
        let raw = UnsafeRawPointer(b.baseAddress!)
        first = raw.loadUnaligned(as: UInt64.self)
        last = raw.loadUnaligned(fromByteOffset: len - 8, as: UInt64.self)
    } else if canOverread {
        // Little-endian: the key's bytes are the low ones.
        first = UnsafeRawPointer(b.baseAddress!).loadUnaligned(as: UInt64.self) & (1 << (8 * UInt64(len)) &- 1)
    } else {
        for k in 0..<len { first |= UInt64(b[k]) << (8 * UInt64(k)) }
    }
    let h = (first &* 0x9E37_79B9_7F4A_7C15) ^ (last &* 0xC2B2_AE3D_27D4_EB4F) ^ UInt64(len)
    return h ^ (h >> 31)
}

/// Decodes the string token at `start..<end` (quotes included) into UTF-8 bytes.
/// The token was validated by the parser.
@usableFromInline
func decodeString(_ p: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> [UInt8] {
    var out = [UInt8]()
    out.reserveCapacity(end - start)
    var i = start + 1
    let last = end - 1
    func hex(_ at: Int) -> UInt32 {
        var v: UInt32 = 0
        for k in 0..<4 {
            let c = p[at + k]
            v = v << 4 | UInt32(c <= 0x39 ? c - 0x30 : (c | 0x20) - 0x61 + 10)
        }
        return v
    }
    while i < last {
        let c = p[i]
        guard c == backslash else {
            out.append(c)
            i += 1
            continue
        }
        let e = p[i + 1]
        i += 2
        switch e {
        case UInt8(ascii: "b"): out.append(0x08)
        case UInt8(ascii: "f"): out.append(0x0C)
        case UInt8(ascii: "n"): out.append(0x0A)
        case UInt8(ascii: "r"): out.append(0x0D)
        case UInt8(ascii: "t"): out.append(0x09)
        case UInt8(ascii: "u"):
            var u = hex(i)
            i += 4
            if u >= 0xD800 && u <= 0xDBFF {
                let low = hex(i + 2)
                i += 6
                u = 0x10000 + ((u - 0xD800) << 10) + (low - 0xDC00)
            }
            appendUTF8(&out, u)
        default: out.append(e)  // \" \\ \/
        }
    }
    return out
}

func appendUTF8(_ out: inout [UInt8], _ u: UInt32) {
    switch u {
    case 0..<0x80: out.append(UInt8(u))
    case 0x80..<0x800:
        out.append(UInt8(0xC0 | u >> 6)); out.append(UInt8(0x80 | u & 0x3F))
    case 0x800..<0x10000:
        out.append(UInt8(0xE0 | u >> 12)); out.append(UInt8(0x80 | (u >> 6) & 0x3F))
        out.append(UInt8(0x80 | u & 0x3F))
    default:
        out.append(UInt8(0xF0 | u >> 18)); out.append(UInt8(0x80 | (u >> 12) & 0x3F))
        out.append(UInt8(0x80 | (u >> 6) & 0x3F)); out.append(UInt8(0x80 | u & 0x3F))
    }
}

// MARK: - A whole parse on two threads

/// Whole parses of inputs at least this large take the second half from another thread.
let splitParseSize = 16 << 20

/// The second half of a whole parse, parsed on another thread while the parse reads the first:
/// the members of one object, from a key found past the input's middle to that object's
/// closing brace. The parse, reaching that key where it expects an object's next key, takes
/// the fragment's tape instead of reading the members itself. That is exact: what the members
/// from a key to the brace that closes their object parse to depends on nothing before the key
/// but how deeply they are nested, which is checked when they are taken. Anywhere else, or once
/// the fragment has failed (at an error, or a key that was not one), the parse reads on itself
/// and reports any error the usual way.
private final class TapeFragment {
    /// What the fragment's thread and the parse share.
    final class Shared: Sendable {
        /// The key the fragment parses from, once it has settled on one (-1 before).
        let start = Atomic<Int>(-1)
        /// Raised when the parse no longer wants the fragment.
        let stopped = Atomic<Bool>(false)
        /// Raised when the fragment's thread has ended.
        let ended = Atomic<Bool>(false)
    }

    /// The members parsed: their tape (container entries' next indexes counted from its
    /// start), and the key order of their object as `OpenContainer` keeps it (indexes too).
    struct Members {
        var start: Int
        /// After the closing brace of their object.
        var end: Int
        var memory: TapeMemory
        var count: Int
        var lastKey: Int
        var secondRun: Int
        /// How deeply they nest, their object counted as 1.
        var depth: Int
        var metadataKeys: Bool
    }

    /// A fragment settles on its key once its object has this many members from it: before,
    /// the key may have been one of a small child's, whose end moves the fragment up a level.
    static let settled = 64
    /// How many keys the fragment tries before it gives up.
    static let attempts = 16

    let shared = Shared()
    private var work: ThreadWork<Members?>?
    private var members: Members?
    private var joined = false

    /// Starts parsing the members of an object from the first key at or after `from` in `p`.
    init(_ p: UnsafeBufferPointer<UInt8>, from: Int, utf8Checked: Bool, progress: ParseProgress?) {
        let shared = shared
        work = ThreadWork { TapeFragment.parse(p, from: from, utf8Checked: utf8Checked, shared: shared, progress: progress) }
    }

    /// The members, once parsed (waits for them); nil when the fragment failed.
    func finished() -> Members? {
        if !joined {
            joined = true
            members = work?.join()
            work = nil
        }
        return members
    }

    /// Gives the fragment up: stops its thread and frees what it parsed.
    func stop() {
        shared.stopped.store(true, ordering: .relaxed)
        finished()?.memory.release()
        members = nil
    }

    private static func parse(_ p: UnsafeBufferPointer<UInt8>, from: Int, utf8Checked: Bool, shared: Shared,
                              progress: ParseProgress?) -> Members? {
        defer { shared.ended.store(true, ordering: .releasing) }
        var candidate = firstKey(p, after: from)
        var attempt = 0
        while let key = candidate, attempt < attempts, !shared.stopped.load(ordering: .relaxed) {
            attempt += 1
            var parser = Parser<WholeTape>(p, depthLimit: maximumJSONDepth, utf8Checked: utf8Checked,
                                              capacity: max(16, (p.count - key) / 2), tuning: .tuned)
            defer { parser.deallocateScratch() }
            (parser.i, parser.fragmentLevel, parser.shared, parser.nextPassed) = (key, 1, shared, key + PathWatch.step)
            parser.progress = progress
            var failed = false
            do throws(JSONParseError) {
                try parser.run()
                // Not settled: a small object (the key was a child's); its parent's next member,
                // if one follows. Else these members are all there is to take.
                if shared.start.load(ordering: .relaxed) != key {
                    candidate = keyAfterClosing(p, at: parser.i - 1)
                    if candidate == nil { shared.start.store(key, ordering: .releasing) }
                }
                if shared.start.load(ordering: .relaxed) == key {
                    parser.tape.stopPrefault()
                    return Members(start: key, end: parser.i, memory: parser.tape.memory, count: parser.tape.count,
                                   lastKey: parser.stack[0].lastKey, secondRun: parser.stack[0].secondRun, depth: parser.deepest,
                                   metadataKeys: parser.metadataKeys)
                }
            } catch {
                failed = true
            }
            // Not handed over, however the attempt ended. (A settled fragment that failed, as at
            // the end of a file cut short by a writer, once kept its tape: a follower grew by it.)
            parser.tape.discard()
            if failed {
                if shared.start.load(ordering: .relaxed) == key { break }
                candidate = firstKey(p, after: key + 1)
            }
        }
        return nil
    }

    /// The first place at or after `at` that may start an object's member other than its
    /// first: a comma, whitespace, and a quote.
    private static func firstKey(_ p: UnsafeBufferPointer<UInt8>, after at: Int) -> Int? {
        var i = at
        while i < p.count {
            if p[i] == comma {
                let key = jsonscan_skip_whitespace(p.baseAddress!, i + 1, p.count)
                if key < p.count && p[key] == quote { return key }
            }
            i += 1
        }
        return nil
    }

    /// After an object closed at `brace`: the next member's key, past the closing of any
    /// objects that end there too; nil when something else follows (an array's element, the end).
    private static func keyAfterClosing(_ p: UnsafeBufferPointer<UInt8>, at brace: Int) -> Int? {
        var i = brace
        while true {
            i = jsonscan_skip_whitespace(p.baseAddress!, i + 1, p.count)
            guard i < p.count else { return nil }
            if p[i] == closeBrace { continue }
            guard p[i] == comma else { return nil }
            let key = jsonscan_skip_whitespace(p.baseAddress!, i + 1, p.count)
            return key < p.count && p[key] == quote ? key : nil
        }
    }
}

extension Parser {
    /// A whole parse with a second thread (`tuning`): starts a fragment from `from`, or by
    /// default from the middle of an input of `splitParseSize` bytes or more.
    mutating func startFragment(from: Int?) {
        guard tuning.secondThread, let from = from ?? (n >= splitParseSize ? n / 2 : nil), from < n else { return }
        fragment = TapeFragment(p, from: from, utf8Checked: utf8Checked, progress: progress)
        (fragmentFrom, fragmentCheck) = (from, from)
    }

    /// Gives up the fragment, unless taken.
    mutating func stopFragment() {
        fragment?.stop()
        fragment = nil
        fragmentCheck = .max
    }

    /// A fragment's parse: one more member of its object read; the fragment settles on its key
    /// at `TapeFragment.settled` of them.
    @inline(never)
    mutating func countMember() {
        fragmentMembers += 1
        if fragmentMembers == TapeFragment.settled - 1, let shared {
            // The first key was not counted (it follows no comma here).
            shared.start.store(Int(tape[0].start), ordering: .releasing)
        }
    }

    /// A whole parse expecting the key at `i` of the innermost open object, at or past
    /// `fragmentCheck`: takes the fragment's members when they start here, and closes the
    /// object after them. True when it took them.
    @inline(never)
    mutating func takeFragment() -> Bool {
        guard let fragment else { return false }
        if waitsForFragment { _ = fragment.finished() }
        let start = fragment.shared.start.load(ordering: .acquiring)
        if start < 0 {
            // Not settled yet: look again at the next key, unless the fragment has given up.
            if fragment.shared.ended.load(ordering: .acquiring) { stopFragment() } else { fragmentCheck = i + 1 }
            return false
        }
        if i < start {
            fragmentCheck = start
            return false
        }
        // Read up to here: a copy that follows the parse goes on behind the fragment meanwhile.
        if i == start { progress?.position.store(i, ordering: .releasing) }
        guard i == start, let members = fragment.finished(), members.start == i,
              depth - 1 + members.depth <= depthLimit
        else {
            stopFragment()
            return false
        }
        self.fragment = nil
        fragmentCheck = .max
        fragmentTaken = true
        split = (stack[depth - 1].index, tape.count)
        append(members)
        i = members.end
        closeContainer()
        return true
    }

    /// Appends `members`, the rest of the innermost open object, to the tape (their memory
    /// given back), and takes their key order into the object's.
    mutating func append(_ members: TapeFragment.Members) {
        let at = tape.count
        // A container's word holds its next index, which counted from the fragment's start.
        let shift = UInt32(truncatingIfNeeded: at) << 1
        // The fragment's pages are moved into the tape's room past its end, and its entries
        // then down onto the end: memory already present, where a copy would have the kernel
        // zero as many fresh pages first (half the tape: 5–15 ms for a 150 MB file).
        tape.stopPrefault()
        let moved = tape.memory.moveIn(members.memory, count: members.count, after: at)
        if moved == nil { while tape.capacity < at + members.count { tape.grow() } }
        // Else copied a piece at a time, each up to where the tape's next huge page starts,
        // given back once copied: the tape is never held twice, beyond the page being filled.
        // (Moved entries go downwards: each is read before an earlier one's write reaches it.)
        let from = moved ?? members.memory.base, to = tape.base + at
        let stride = MemoryLayout<TapeEntry>.stride, huge = 2 << 20
        var first = 0
        while first < members.count {
            let room = (huge - Int(bitPattern: to + first) % huge) / stride
            let last = min(members.count, first + max(1, room))
            for k in first..<last {
                var e = from[k]
                if e.word & 1 != 0 { e.word &+= shift }
                to[k] = e
            }
            if moved == nil { members.memory.discardPages(0..<last) }
            first = last
        }
        if moved == nil { members.memory.release() }
        tape.count = at + members.count
        metadataKeys = metadataKeys || members.metadataKeys
        let object = stack + (depth - 1)
        let (secondRun, lastKey) = (object.pointee.secondRun, object.pointee.lastKey)
        object.pointee.lastKey = at + members.lastKey
        guard secondRun >= 0 && members.secondRun >= 0 else {
            object.pointee.secondRun = -1
            return
        }
        // Where the keys fell (each starts a new increasing run): in the object before, where
        // the fragment's first key follows its last, and within the fragment.
        let falls = [secondRun > 0 ? secondRun : nil,
                     compareKeys(tape[lastKey], tape[at]) >= 0 ? at : nil,
                     members.secondRun > 0 ? at + members.secondRun : nil].compactMap { $0 }
        object.pointee.secondRun = falls.isEmpty ? 0 : falls.count == 1 ? falls[0] : -1
    }
}
