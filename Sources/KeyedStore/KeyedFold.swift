// A log's records folded by a key: each record the new value of the child with its key.
import Expressions
import JSONTree

/// The records of a log folded into one child per key (an upsert per record), as
/// `jq -n 'reduce inputs as $r ({}; .[$r.k] = $r)'` folds them; a record `deleteWhen` keeps
/// removes its key's child instead. A record without a key (no value, `null`, an error, or not
/// a string or a number), and an invalid line, is an error row keyed `$N` (N: its record's
/// index), never dropped.
///
/// Folding is incremental: each call reads only the records after those already folded. Only
/// each key's latest record is held, as its bytes, so a fold of a long log costs about its table.
public struct KeyedFold: Sendable {
    public let key: Expression
    public let deleteWhen: Expression?
    /// Records folded so far.
    public private(set) var folded = 0
    /// Where each child's latest record is in `arena`, in the order their keys were (last)
    /// added: a key removed and added again moves to the end, as in jq's objects.
    private var slots: [Slot] = []
    private var slotOfKey: [String: Int32] = [:]
    /// The records' bytes: each child's latest, and replaced ones until they are compacted away.
    private var arena: [UInt8] = []
    private var unusedBytes = 0
    private var removedSlots = 0

    /// Where a child's record is in `arena` (`count` < 0: the child was removed). 8 bytes, and
    /// no key (the keys are `slotOfKey`'s): a fold holds about its table's bytes, not more.
    private struct Slot: Sendable {
        var start: UInt32
        var count: Int32
    }

    public init(key: Expression, deleteWhen: Expression? = nil) {
        self.key = key
        self.deleteWhen = deleteWhen
    }

    /// Folds the records of `log` (an array's elements, or an object's members, in order) after
    /// the first `folded`.
    /// - Returns: whether any child changed.
    @discardableResult
    public mutating func fold(_ log: JSONNode) -> Bool {
        let records: [JSONNode] = log.kind == .array ? Array(log.elements) : log.members.map(\.value)
        guard folded < records.count else { return false }
        foldRecords(records[folded...])
        return true
    }

    /// Folds every record of `records` (an array's elements: the next piece of a log read a
    /// piece at a time) after those already folded, numbering them on from `folded`.
    /// - Parameter lineOffset: the lines of the log before the piece (an invalid line's error
    ///   row names its line in the whole log).
    public mutating func foldMore(_ records: JSONNode, lineOffset: Int = 0) {
        for record in records.elements {
            if lineOffset > 0, record.kind == .object, let error = record[key: JSONLinesBuilder.errorMember] {
                apply(movedErrorRow(error.json, lines: lineOffset), index: folded)
            } else {
                apply(record, index: folded)
            }
            folded += 1
        }
    }

    private mutating func foldRecords(_ records: ArraySlice<JSONNode>) {
        for record in records {
            apply(record, index: folded)
            folded += 1
        }
    }

    /// `log`'s records folded (on top of those already folded), as a document.
    public func document(folding log: JSONDocument) -> JSONDocument {
        var fold = self
        fold.fold(log.root)
        return fold.document
    }

    /// How many children there are.
    public var count: Int { slotOfKey.count }

    /// The children so far, in order, as a document.
    public var document: JSONDocument {
        // Written from parsed records and keys: it parses.
        try! JSONDocument(parsing: bytes)
    }

    /// The children so far, in order, as JSON.
    public var value: JSON { document.root.json }

    /// The children so far as an object's bytes (each record's as it was read).
    public var bytes: [UInt8] {
        var keys = [String?](repeating: nil, count: slots.count)
        for (key, i) in slotOfKey { keys[Int(i)] = key }
        var out = [UInt8]()
        out.reserveCapacity(arena.count - unusedBytes + slotOfKey.count * 16 + 2)
        out.append(UInt8(ascii: "{"))
        for (slot, key) in zip(slots, keys) where slot.count >= 0 {
            guard let key else { continue }
            if out.count > 1 { out.append(UInt8(ascii: ",")) }
            writeJSONString(key, to: &out)
            out.append(UInt8(ascii: ":"))
            out.append(contentsOf: arena[Int(slot.start)..<(Int(slot.start) + Int(slot.count))])
        }
        out.append(UInt8(ascii: "}"))
        return out
    }

    private mutating func apply(_ record: JSONNode, index: Int) {
        if record.kind == .object, record[key: JSONLinesBuilder.errorMember] != nil { return set("$\(index)", record) }
        switch keyOf(record, index: index) {
        case .failure(let row): set("$\(index)", row.bytes)
        case .success(let name):
            if let deleteWhen, record.document.withTapeReader({ deleteWhen.keeps(record.index, in: $0) }) {
                remove(name)
            } else {
                set(name, record)
            }
        }
    }

    /// An error row as its bytes (from a line that was not valid JSON, or a record without a key).
    private mutating func apply(_ errorRow: JSON, index: Int) {
        var out = [UInt8]()
        errorRow.write(to: &out, style: .compact, depth: 0)
        set("$\(index)", out)
    }

    /// The record's key, or the bytes of its error row.
    private func keyOf(_ record: JSONNode, index: Int) -> Result<String, ErrorRowBytes> {
        switch key.value(of: record) {
        case .value(.string(let s)) where !s.isEmpty: .success(s)
        case .value(.number(let n)): .success(n.text)
        case .value(.string): .failure(errorRow(index, "--key \(key.text) gives an empty string"))
        case .value(let other): .failure(errorRow(index, "--key \(key.text) gives \(other.serializedString()), not a string or a number"))
        case .empty: .failure(errorRow(index, "--key \(key.text) gives no value"))
        case .error(let message): .failure(errorRow(index, "--key \(key.text): \(message)"))
        }
    }

    private mutating func set(_ name: String, _ record: JSONNode) {
        let range = record.byteRange
        record.document.bytes.withUnsafeBufferPointer { all in set(name, UnsafeBufferPointer(rebasing: all[range])) }
    }

    private mutating func set(_ name: String, _ bytes: some Collection<UInt8>) {
        if unusedBytes > 64 << 10 && unusedBytes > arena.count / 3 { compact() }
        // A document's offsets are 32-bit: a table of 4 GB is beyond one anyway.
        precondition(arena.count + bytes.count < Int(UInt32.max), "a keyed fold's table reached 4 GB")
        let slot = Slot(start: UInt32(arena.count), count: Int32(bytes.count))
        if let i = slotOfKey[name] {
            unusedBytes += max(0, Int(slots[Int(i)].count))
            slots[Int(i)] = slot
        } else {
            slotOfKey[name] = Int32(slots.count)
            slots.append(slot)
        }
        arena.append(contentsOf: bytes)
    }

    private mutating func remove(_ name: String) {
        guard let i = slotOfKey.removeValue(forKey: name) else { return }
        unusedBytes += Int(slots[Int(i)].count)
        slots[Int(i)].count = -1
        removedSlots += 1
    }

    /// Moves each child's latest record down over the bytes of replaced ones, in place (a copy
    /// would hold the arena twice for a moment), and drops removed children's slots.
    private mutating func compact() {
        var moved = slots
        slots = []
        let live = moved.indices.filter { moved[$0].count >= 0 }.sorted { moved[$0].start < moved[$1].start }
        var end = 0
        arena.withUnsafeMutableBufferPointer { bytes in
            guard let base = bytes.baseAddress else { return }
            for i in live {
                let start = Int(moved[i].start), count = Int(moved[i].count)
                // copyMemory moves overlapping bytes as memmove does.
                if start != end { UnsafeMutableRawPointer(base + end).copyMemory(from: base + start, byteCount: count) }
                moved[i].start = UInt32(end)
                end += count
            }
        }
        slots = moved
        arena.removeLast(arena.count - end)
        unusedBytes = 0
        guard removedSlots > slots.count / 2 else { return }
        // Removed children's slots go too, once they are most of them; the order is kept.
        var newIndex = [Int32](repeating: -1, count: slots.count)
        var kept = [Slot]()
        kept.reserveCapacity(slots.count - removedSlots)
        for (i, slot) in slots.enumerated() where slot.count >= 0 {
            newIndex[i] = Int32(kept.count)
            kept.append(slot)
        }
        slotOfKey = slotOfKey.mapValues { newIndex[Int($0)] }
        slots = kept
        removedSlots = 0
    }

    private func errorRow(_ index: Int, _ message: String) -> ErrorRowBytes {
        var out = [UInt8]()
        JSON.object(JSONObject([(key: JSONLinesBuilder.errorMember, value: .object(JSONObject([
            (key: "record", value: .number(JSONNumber(index))), (key: "message", value: .string(message)),
        ])))])).write(to: &out, style: .compact, depth: 0)
        return ErrorRowBytes(bytes: out)
    }

    /// An invalid line's error row, its line moved on by the lines before the piece it was read in.
    private func movedErrorRow(_ error: JSON, lines: Int) -> JSON {
        guard var object = error.objectValue, let line = object["line"]?.doubleValue else {
            return .object(JSONObject([(key: JSONLinesBuilder.errorMember, value: error)]))
        }
        object["line"] = .number(JSONNumber(Int(line) + lines))
        return .object(JSONObject([(key: JSONLinesBuilder.errorMember, value: .object(object))]))
    }
}

/// An error row's bytes, as a `Result`'s failure.
private struct ErrorRowBytes: Error {
    let bytes: [UInt8]
}
