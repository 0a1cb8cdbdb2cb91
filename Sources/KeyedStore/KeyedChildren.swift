// The children of a keyed fold: each key's latest record as bytes, found by the key's bytes.
#if canImport(Glibc)
import Glibc
#endif
import JSONTree

/// Each key's latest record, as its bytes, in the order the keys were (last) added: a key removed
/// and added again moves to the end, as in jq's objects. Keys are compared as bytes (as jq
/// compares them), found through a table of their own, so a record costs no `String`.
///
/// A key and its record lie together in `arena`, with room for a record a little longer: the
/// next record of a key is written over the last where it fits (records of one key tend to keep
/// their length), and only one that does not leaves bytes unused, which `compact()` gives back.
struct KeyedChildren: Sendable {
    private var arena = RecordArena()
    /// Where each child is in `arena`, in the children's order; removed ones until compacted.
    private var slots: [Slot] = []
    /// Open addressing: the slot of each live key (-1: empty), at its hash's place or after.
    private var table = [Int32](repeating: -1, count: 16)
    /// Live children.
    private(set) var count = 0
    private var unusedBytes = 0
    private var removedSlots = 0

    /// A child: its key's bytes from `start`, then its record's `count` bytes (-1: removed), in
    /// `room` bytes. 16 bytes, beside about the table's own bytes in `arena`.
    private struct Slot: Sendable {
        var start: UInt32
        var keyCount: UInt32
        var count: Int32
        var room: UInt32
    }

    /// Makes `record` the value of the child `key`: an upsert, which keeps the child's place.
    mutating func set(_ key: UnsafeBufferPointer<UInt8>, _ record: UnsafeBufferPointer<UInt8>) {
        makeUnique()
        // Unused bytes go back before they are a quarter of the arena (and worth a move), and
        // before any slot is looked up: compacting may renumber the slots.
        if unusedBytes > 16 << 10 && unusedBytes * 4 > arena.count { compact() }
        let hash = Self.hash(key)
        let (place, found) = find(key, hash)
        let slot = Slot(start: 0, keyCount: UInt32(key.count), count: Int32(record.count), room: UInt32(Self.room(record.count)))
        if let i = found {
            if record.count <= Int(slots[i].room) {
                write(record, at: Int(slots[i].start) + key.count)
                slots[i].count = Int32(record.count)
            } else {
                unusedBytes += key.count + Int(slots[i].room)
                let start = append(key, record)
                slots[i] = slot
                slots[i].start = start
            }
            return
        }
        let start = append(key, record)
        slots.append(slot)
        slots[slots.count - 1].start = start
        table[place] = Int32(slots.count - 1)
        count += 1
        if count * 4 > table.count * 3 { rebuildTable(capacity: table.count * 2) }
    }

    /// Removes the child `key`, if there is one.
    mutating func remove(_ key: UnsafeBufferPointer<UInt8>) {
        let (place, found) = find(key, Self.hash(key))
        guard let i = found else { return }
        makeUnique()
        unusedBytes += key.count + Int(slots[i].room)
        slots[i].count = -1
        removedSlots += 1
        count -= 1
        removeFromTable(at: place)
    }

    /// The children as an object's bytes (each record's as it was read).
    var bytes: [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(arena.count - unusedBytes + count * 4 + 2)
        out.append(UInt8(ascii: "{"))
        for slot in slots where slot.count >= 0 {
            if out.count > 1 { out.append(UInt8(ascii: ",")) }
            let start = arena.base + Int(slot.start)
            writeJSONString(String(decoding: UnsafeBufferPointer(start: start, count: Int(slot.keyCount)), as: UTF8.self), to: &out)
            out.append(UInt8(ascii: ":"))
            out.append(contentsOf: UnsafeBufferPointer(start: start + Int(slot.keyCount), count: Int(slot.count)))
        }
        out.append(UInt8(ascii: "}"))
        return out
    }

    // MARK: - The arena

    /// Room for a record of `n` bytes: a few more, for a next record a little longer.
    private static func room(_ n: Int) -> Int { (n + 7) & ~7 }

    /// Appends a child's key and record with room after it; where it starts.
    private mutating func append(_ key: UnsafeBufferPointer<UInt8>, _ record: UnsafeBufferPointer<UInt8>) -> UInt32 {
        let size = key.count + Self.room(record.count)
        // Offsets are 32-bit: a table of 4 GB is beyond a document anyway.
        precondition(arena.count + size < Int(UInt32.max), "a keyed fold's table reached 4 GB")
        let start = arena.count
        arena.grow(by: size)
        write(key, at: start)
        write(record, at: start + key.count)
        return UInt32(start)
    }

    private func write(_ bytes: UnsafeBufferPointer<UInt8>, at offset: Int) {
        guard let from = bytes.baseAddress else { return }
        (arena.base + offset).update(from: from, count: bytes.count)
    }

    /// Moves each child down over the bytes of replaced and removed ones, in arena order and in
    /// place (a copy would hold the arena twice for a moment); drops removed children's slots
    /// once they are most of them.
    private mutating func compact() {
        let live = slots.indices.filter { slots[$0].count >= 0 }.sorted { slots[$0].start < slots[$1].start }
        var end = 0
        for i in live {
            let slot = slots[i], room = Self.room(Int(slot.count))
            // memmove: the ranges may overlap.
            if Int(slot.start) != end { memmove(arena.base + end, arena.base + Int(slot.start), Int(slot.keyCount) + Int(slot.count)) }
            slots[i].start = UInt32(end)
            slots[i].room = UInt32(room)
            end += Int(slot.keyCount) + room
        }
        arena.count = end
        unusedBytes = 0
        guard removedSlots > slots.count / 2 else { return }
        slots.removeAll { $0.count < 0 }
        removedSlots = 0
        rebuildTable(capacity: table.count)
    }

    private mutating func makeUnique() {
        if !isKnownUniquelyReferenced(&arena) { arena = arena.copy() }
    }

    // MARK: - The table of keys

    private static func hash(_ key: UnsafeBufferPointer<UInt8>) -> Int {
        var hasher = Hasher()
        hasher.combine(bytes: UnsafeRawBufferPointer(key))
        return hasher.finalize()
    }

    /// The table's place for `key`: where its slot is (`found`), or the empty place where it goes.
    private func find(_ key: UnsafeBufferPointer<UInt8>, _ hash: Int) -> (place: Int, found: Int?) {
        let mask = table.count - 1
        var place = hash & mask
        while true {
            let i = Int(table[place])
            if i < 0 { return (place, nil) }
            let slot = slots[i]
            if Int(slot.keyCount) == key.count && (key.isEmpty || memcmp(arena.base + Int(slot.start), key.baseAddress!, key.count) == 0) {
                return (place, i)
            }
            place = (place + 1) & mask
        }
    }

    /// The key of slot `i`.
    private func key(_ i: Int) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(start: arena.base + Int(slots[i].start), count: Int(slots[i].keyCount))
    }

    /// Empties `place`, moving back later keys of the same run that belong at or before it (so
    /// that every key stays reachable from its hash's place without markers of removal).
    private mutating func removeFromTable(at place: Int) {
        let mask = table.count - 1
        var hole = place, next = place
        table[hole] = -1
        while true {
            next = (next + 1) & mask
            let i = Int(table[next])
            if i < 0 { return }
            let home = Self.hash(key(i)) & mask
            // Whether `home` lies cyclically after the hole and up to `next`: the key stays.
            let stays = hole <= next ? (hole < home && home <= next) : (hole < home || home <= next)
            if !stays {
                table[hole] = table[next]
                table[next] = -1
                hole = next
            }
        }
    }

    private mutating func rebuildTable(capacity: Int) {
        var size = 16
        while size < capacity || count * 4 > size * 3 { size *= 2 }
        table = [Int32](repeating: -1, count: size)
        for i in slots.indices where slots[i].count >= 0 {
            table[find(key(i), Self.hash(key(i))).place] = Int32(i)
        }
    }
}

/// Bytes in one malloc'd block grown by `realloc`: a large block is a mapping, which grows by
/// moving its pages, so growing never holds the old bytes and a copy of them at once (as an
/// array's growth does, which made a fold's peak twice its table). Copied on write by its owner.
final class RecordArena: @unchecked Sendable {
    private(set) var base: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    /// Bytes in use, from `base`.
    var count = 0

    init(capacity: Int = 4096) {
        self.capacity = max(1, capacity)
        base = malloc(self.capacity)!.assumingMemoryBound(to: UInt8.self)
    }

    deinit { free(base) }

    /// Makes `n` more bytes in use (uninitialized).
    func grow(by n: Int) {
        if count + n > capacity {
            capacity = max(count + n, capacity * 2)
            base = realloc(base, capacity)!.assumingMemoryBound(to: UInt8.self)
        }
        count += n
    }

    func copy() -> RecordArena {
        let other = RecordArena(capacity: count)
        other.base.update(from: base, count: count)
        other.count = count
        return other
    }
}
