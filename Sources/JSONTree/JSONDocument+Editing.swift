// Minimal edits: applying writes to a parsed document by splicing only the bytes of the
// values that change. Key order, indentation, spacing, number spelling and every other
// member stay byte-identical.
//
// Rules (those of the Realtime Database, adapted to a file):
// - Writing null, `{}` or `[]` removes; null members inside written objects are dropped.
// - A container left with no children (only null ones) by a removal is removed too, up to
//   the root. The root is never removed: it becomes `{}` when set to null, or an empty
//   container of its kind when its last child is removed.
// - Missing intermediate objects are created; a null on the way counts as missing.
// - Writing below a number, string or boolean replaces it with an object holding the written
//   children; removing below one does nothing.
// - Array elements are addressed by index keys ("0", "1", …). Removing an element writes
//   `null` in its place so the others keep their indexes (null elements are not children);
//   removing the last element also drops the nulls before it. Writing past the end pads
//   with nulls (at most `maximumArrayPadding`). Other keys in an array are an error.
// - Setting an object over an object (or an array over an array) edits only the members
//   that differ; equal values keep their bytes (`1.0` stays `1.0` when set to 1).
// - With duplicate keys, the effective (last) member is edited; removing a key removes
//   every duplicate, so an earlier one cannot reappear.
// - New members go at the end of their object, laid out like its other members (or like
//   the nearest enclosing container when it is empty).
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension JSONDocument {
    /// Applies `writes` as one edit and returns the edited document (`self` when nothing changes).
    ///
    /// Server values (`{".sv": "timestamp"}`, `{".sv": {"increment": n}}`) are resolved
    /// against this document, with `serverTime` as the timestamp (milliseconds since 1970).
    /// - Throws: `JSONEditError`; nothing is changed then.
    /// - Complexity: O(document size) for the result; the edit itself is proportional to the
    ///   members of the containers on the written paths plus the written values.
    public func applying(_ writes: [JSONWrite], serverTime: Int64? = nil) throws(JSONEditError) -> JSONDocument {
        guard let edit = try edit(writes, serverTime: serverTime) else { return self }
        return try edit.editedDocument()
    }

    /// The splices that applying `writes` makes to this document's bytes (see `applying`),
    /// without making the edited bytes or document: nil when nothing changes.
    /// - Throws: `JSONEditError`.
    /// - Complexity: proportional to the members of the containers on the written paths plus
    ///   the written values.
    public func edit(_ writes: [JSONWrite], serverTime: Int64? = nil) throws(JSONEditError) -> JSONEdit? {
        var resolved = [JSONWrite]()
        resolved.reserveCapacity(writes.count)
        let index = ChildIndex()
        for w in writes {
            let write = JSONWrite(w.path, try w.value.resolvingServerValues(at: w.path, in: self, serverTime: serverTime, index: index))
            try write.validate()
            resolved.append(write)
        }
        let tree = try EditTree(resolved)
        let editor = DocumentEditor(document: self)
        switch try editor.edit(root, tree, path: .root, ancestors: []) {
        case .unchanged:
            return nil
        case .edited(let splices):
            let edit = try JSONEdit(base: self, splices: splices)
            return edit.splices.isEmpty ? nil : edit
        case .removed:
            var empty: [UInt8] = Array("{}".utf8)
            if case .children = tree, root.kind == .array { empty = Array("[]".utf8) }
            if root.rawBytes.elementsEqual(empty) { return nil }
            return try JSONEdit(base: self, splices: [Splice(range: root.byteRange, bytes: empty)])
        }
    }
}

/// An edit of a document as byte ranges replaced: the edited file is the base's bytes with the
/// splices made. A writer can write it piece by piece (`forEachPiece`) straight from the base's
/// bytes, never holding a second copy of the file.
public struct JSONEdit: Sendable {
    /// The document edited.
    public let base: JSONDocument
    /// Sorted, not overlapping.
    let splices: [Splice]
    /// The size of the edited bytes.
    public let count: Int

    /// Splices that would write the bytes already there are left out.
    init(base: JSONDocument, splices: [Splice]) throws(JSONEditError) {
        let sorted = splices.filter { !$0.writesWhatIsIn(base.bytes) }.sorted {
            ($0.range.lowerBound, $0.range.upperBound) < ($1.range.lowerBound, $1.range.upperBound)
        }
        var at = 0, count = base.bytes.count
        for s in sorted {
            guard s.range.lowerBound >= at else {
                throw JSONEditError(.internalError("overlapping edits at byte \(s.range.lowerBound)"))
            }
            at = s.range.upperBound
            count += s.bytes.count - s.range.count
        }
        self.base = base
        self.splices = sorted
        self.count = count
    }

    /// Calls `body` with the edited bytes in order, as pieces of the base's bytes and of the
    /// bytes written (empty pieces left out); stops when `body` returns false.
    /// - Returns: whether every piece was given.
    @discardableResult
    public func forEachPiece(_ body: (UnsafeRawBufferPointer) throws -> Bool) rethrows -> Bool {
        try base.bytes.withUnsafeBytes { old in
            var at = 0
            for s in splices {
                if s.range.lowerBound > at, try !body(UnsafeRawBufferPointer(rebasing: old[at..<s.range.lowerBound])) { return false }
                if !s.bytes.isEmpty, try !s.bytes.withUnsafeBytes(body) { return false }
                at = s.range.upperBound
            }
            return at == old.count ? true : try body(UnsafeRawBufferPointer(rebasing: old[at...]))
        }
    }

    /// Where the first byte it changes is in the base's bytes; nil when it changes none.
    public var firstChange: Int? { splices.first?.range.lowerBound }

    /// Whether the edit is exactly one replacement: `range` of the base's bytes by `bytes`.
    public func isOnly(replacing range: Range<Int>, with bytes: [UInt8]) -> Bool {
        splices.count == 1 && splices[0].range == range && splices[0].bytes == bytes
    }

    /// The edited bytes.
    public func editedBytes() -> [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(count)
        forEachPiece { piece in
            out.append(contentsOf: piece)
            return true
        }
        return out
    }

    /// The edited document, re-parsed from the base (see `JSONDocument.reparsing`).
    /// - Throws: `.internalError` when the edited bytes do not parse (an editor bug).
    public func editedDocument() throws(JSONEditError) -> JSONDocument {
        do {
            return try base.reparsing(editedBytes())
        } catch {
            throw JSONEditError(.internalError("the edited document does not parse: \(error)"))
        }
    }
}

/// Whether `node` and `value` are numbers spelled as integers (`-?[0-9]+`) that differ.
private func differentIntegers(_ node: JSONNode, _ value: JSON) -> Bool {
    guard case .number(let n) = value, let text = node.numberText else { return false }
    guard let zero = decimalIntegerSum(text, "0"), let other = decimalIntegerSum(n.text, "0") else { return false }
    return zero != other
}

/// Replace `range` of the old bytes with `bytes`.
struct Splice: Sendable {
    var range: Range<Int>
    var bytes: [UInt8]

    /// Whether these bytes are already at `range` of `base` (compared as memory, not element by
    /// element: a large value written again would otherwise cost a generic loop per byte).
    func writesWhatIsIn(_ base: DocumentBytes) -> Bool {
        guard range.count == bytes.count else { return false }
        return base.withUnsafeBytes { old in
            bytes.withUnsafeBytes { new in
                range.isEmpty || memcmp(old.baseAddress! + range.lowerBound, new.baseAddress!, range.count) == 0
            }
        }
    }
}

/// What editing one node does to it.
enum EditOutcome {
    case unchanged
    /// The node goes (set to null, or left empty); its parent removes it.
    case removed
    /// Bytes inside the node's range change.
    case edited([Splice])
}

/// One member of an object as written, duplicates included: tape index and byte ranges
/// (no `JSONNode`), read from the tape when asked.
private struct RawMember {
    /// The key's tape index; the value's is one more.
    let key: Int
    let keyRange: Range<Int>
    let valueRange: Range<Int>
    let valueIsNull: Bool
    /// Overridden by a later member with the same key.
    let shadowed: Bool
}

/// An object's members in file order, duplicates included: the key's tape index (4 bytes) per
/// member, the rest read from the tape when asked, so that editing a large object holds far
/// less than its tape.
private struct RawMembers: RandomAccessCollection {
    let document: JSONDocument
    let keys: [Int32]
    var startIndex: Int { 0 }
    var endIndex: Int { keys.count }

    subscript(m: Int) -> RawMember {
        let position = Int(keys[m])
        return document.withTapeReader { tape in
            RawMember(
                key: position, keyRange: tape.start(position)..<tape.end(position),
                valueRange: tape.start(position + 1)..<tape.end(position + 1),
                valueIsNull: tape.firstByte(position + 1) == UInt8(ascii: "n"), shadowed: tape.isShadowed(position))
        }
    }
}

/// What editing an array needs of its elements, from one pass over its tape that keeps
/// nothing per element: an array of millions of numbers is edited in place of its tape alone.
private struct ElementScan {
    var count = 0
    /// The tape index of each element asked for, by element index.
    var positions: [Int: Int] = [:]
    /// Where the last element ends in the file.
    var lastEnd = 0
}

private enum ElementState: Equatable { case removed, edited }

/// Turns an `EditTree` into splices of one document.
struct DocumentEditor {
    let document: JSONDocument
    let reader: LayoutReader

    init(document: JSONDocument) {
        self.document = document
        self.reader = LayoutReader(document: document)
    }

    /// Edits `node` (at `path`, inside `ancestors`, root first).
    func edit(_ node: JSONNode, _ tree: EditTree, path: Path, ancestors: [JSONNode]) throws(JSONEditError) -> EditOutcome {
        switch tree {
        case .set(nil):
            return .removed
        case .set(let value?):
            switch (node.kind, value) {
            case (.object, .object(let object)):
                var newKeys = Set<JSONKey>(minimumCapacity: object.count)
                for m in object.members { newKeys.insert(JSONKey(m.key)) }
                var list = [(key: String, tree: EditTree)]()
                for m in node.members {
                    let key = m.key.stringValue!
                    if !newKeys.contains(JSONKey(key)) { list.append((key, .set(nil))) }
                }
                for m in object.members { list.append((m.key, .set(m.value))) }
                return try editObject(node, list, path: path, ancestors: ancestors)
            case (.array, .array(let array)):
                let list = (0..<max(node.count, array.count)).map { i in
                    (key: String(i), tree: EditTree.set((i < array.count ? array[i] : JSON.null).normalized))
                }
                // Elements past the new end go even when null, so the array ends where the value does.
                return try editArray(node, list, path: path, ancestors: ancestors, truncatingAt: array.count)
            default:
                // Equal values keep their spelling (`1.0` set to 1), but integers too large for
                // a double are compared digit for digit: 2^53 + 1 is not 2^53.
                if node.valueEquals(value) && !differentIntegers(node, value) { return .unchanged }
                return .edited([Splice(range: node.byteRange, bytes: serialize(value, replacing: node, ancestors))])
            }
        case .children(let list):
            switch node.kind {
            case .object:
                return try editObject(node, list, path: path, ancestors: ancestors)
            case .array:
                return try editArray(node, list, path: path, ancestors: ancestors)
            case .null, .bool, .number, .string:
                // A leaf written below is replaced by an object holding the written children,
                // as the database does; removing below a leaf changes nothing.
                guard let value = tree.materialized else { return .unchanged }
                return .edited([Splice(range: node.byteRange, bytes: serialize(value, replacing: node, ancestors))])
            }
        }
    }

    /// `value` laid out to replace `node`.
    private func serialize(_ value: JSON, replacing node: JSONNode, _ ancestors: [JSONNode]) -> [UInt8] {
        var out = [UInt8]()
        if value.isScalar {
            value.write(to: &out, style: .compact, depth: 0)
        } else {
            let layout = reader.layout(chain: [node] + ancestors.reversed())
            layout.write(value, indent: reader.lineIndent(at: node.byteRange.lowerBound), to: &out)
        }
        return out
    }

    /// The object's members in file order, duplicates included.
    /// - Complexity: O(members).
    private func rawMembers(_ node: JSONNode) -> RawMembers {
        let tape = document.tape
        var keys = [Int32]()
        var position = node.index + 2
        let end = tape.next(node.index)
        while position < end {
            keys.append(Int32(truncatingIfNeeded: position))
            position = tape.next(position + 1)
        }
        return RawMembers(document: document, keys: keys)
    }

    /// Calls `body` with each element's index and tape index, in order.
    /// - Complexity: O(elements).
    private func forEachElement(of node: JSONNode, _ body: (_ index: Int, _ position: Int) -> Void) {
        let tape = document.tape
        var position = node.index + 2
        let end = tape.next(node.index)
        var i = 0
        while position < end {
            body(i, position)
            i += 1
            position = tape.next(position)
        }
    }

    /// The array's element count, the tape indexes of the elements `wanted`, and its end.
    private func scanElements(_ node: JSONNode, wanted: Set<Int>) -> ElementScan {
        var scan = ElementScan()
        forEachElement(of: node) { i, position in
            if wanted.contains(i) { scan.positions[i] = position }
            scan.count = i + 1
            scan.lastEnd = range(ofEntry: position).upperBound
        }
        return scan
    }

    /// Whether tape entry `i` is `null`.
    private func isNullEntry(_ i: Int) -> Bool { document.bytes[Int(document.tape[i].start)] == UInt8(ascii: "n") }

    /// The byte range of tape entry `i`.
    private func range(ofEntry i: Int) -> Range<Int> { document.withTapeReader { $0.start(i)..<$0.end(i) } }

    /// For each of `keys`, the members of `raw` with that key, in file order.
    /// - Complexity: O(total bytes of the members' keys + keys), with no allocation per member.
    private func occurrences(of keys: [String], in raw: RawMembers) -> [[Int]] {
        var result = [[Int]](repeating: [], count: keys.count)
        // A few keys (one, for a write of one value): compared by length, then bytes, which
        // costs less than hashing each of a million members' keys.
        if keys.count <= 4 {
            let wanted = keys.map { Array($0.utf8) }
            document.withTapeReader { tape in
                for (m, position) in raw.keys.enumerated() {
                    let p = Int(position)
                    if tape.hasEscapes(p) {
                        let key = tape.withStringBytes(p) { Array($0) }
                        for i in wanted.indices where wanted[i] == key { result[i].append(m) }
                        continue
                    }
                    let start = tape.start(p), count = tape.end(p) - start - 2
                    for i in wanted.indices where wanted[i].count == count {
                        let same = count == 0 || wanted[i].withUnsafeBytes { memcmpEqual($0.baseAddress!, tape.address(of: start + 1), count) }
                        if same { result[i].append(m) }
                    }
                }
            }
            return result
        }
        var wanted = [UInt64: [Int]](minimumCapacity: keys.count)
        // A bit per hash value's low 16 bits: most members are ruled out without a lookup.
        var filter = [UInt64](repeating: 0, count: 1024)
        for (i, key) in keys.enumerated() {
            var k = key
            let hash = k.withUTF8 { contentHash($0) }
            wanted[hash, default: []].append(i)
            filter[Int(hash >> 6) & 1023] |= 1 << (hash & 63)
        }
        func match(_ memberKey: UnsafeBufferPointer<UInt8>, _ m: Int) {
            let hash = contentHash(memberKey)
            guard filter[Int(hash >> 6) & 1023] & (1 << (hash & 63)) != 0, let candidates = wanted[hash] else { return }
            for i in candidates {
                var k = keys[i]
                let same = k.withUTF8 {
                    $0.count == memberKey.count && ($0.isEmpty || memcmpEqual($0.baseAddress!, memberKey.baseAddress!, $0.count))
                }
                if same { result[i].append(m) }
            }
        }
        // Straight from the tape: a key's bytes are all a member needs here (a million members
        // of a large object are read in milliseconds).
        document.withTapeReader { tape in
            for (m, position) in raw.keys.enumerated() {
                tape.withStringBytes(Int(position)) { match($0, m) }
            }
        }
        return result
    }

    /// - Complexity: O(members + edits + size of the new values).
    private func editObject(
        _ node: JSONNode, _ list: [(key: String, tree: EditTree)], path: Path, ancestors: [JSONNode]
    ) throws(JSONEditError) -> EditOutcome {
        if list.count == 1, let along = document.pathMembers?.objects[node.index], along.key.elementsEqual(list[0].key.utf8) {
            return try editObject(node, along, list[0], path: path, ancestors: ancestors)
        }
        if list.count == 1, let outcome = try editInPlace(node, list[0], path: path, ancestors: ancestors) {
            return outcome
        }
        let raw = rawMembers(node)
        let found = occurrences(of: list.map(\.key), in: raw)
        var removed = [Bool](repeating: false, count: raw.count)
        var edited = [Bool](repeating: false, count: raw.count)
        var splices = [Splice]()
        var additions = [(key: String, value: JSON)]()
        let inner = ancestors + [node]
        for ((key, tree), occurrences) in zip(list, found) {
            if let effective = occurrences.last {
                let value = JSONNode(document: document, index: raw[effective].key + 1)
                switch try edit(value, tree, path: path.child(key), ancestors: inner) {
                case .unchanged: break
                case .removed: for i in occurrences { removed[i] = true }
                case .edited(let s):
                    edited[effective] = true
                    splices += s
                }
            } else if let value = tree.materialized {
                additions.append((key, value))
            }
        }
        let anyRemoved = removed.contains(true)
        if !anyRemoved && additions.isEmpty { return splices.isEmpty ? .unchanged : .edited(splices) }
        if additions.isEmpty && raw.indices.allSatisfy({ removed[$0] || (!edited[$0] && (raw[$0].shadowed || raw[$0].valueIsNull)) }) {
            return .removed
        }
        if raw.isEmpty { return .edited([emptyObject(node, with: additions, ancestors: ancestors)]) }
        guard let lastKept = raw.indices.last(where: { !removed[$0] }) else {
            // Every member goes and new ones take their place, inside the same brackets.
            let out = newMembers(additions, in: node, ancestors: ancestors, leadingComma: false)
            return .edited([Splice(range: raw.first!.keyRange.lowerBound..<raw.last!.valueRange.upperBound, bytes: out)])
        }
        // Each run of removed members goes with the separator after it, or before it at the end.
        var i = 0
        while i < raw.count {
            guard removed[i] else {
                i += 1
                continue
            }
            var j = i
            while j + 1 < raw.count && removed[j + 1] { j += 1 }
            let range = j + 1 < raw.count
                ? raw[i].keyRange.lowerBound..<raw[j + 1].keyRange.lowerBound
                : raw[i - 1].valueRange.upperBound..<raw[j].valueRange.upperBound
            splices.append(Splice(range: range, bytes: []))
            i = j + 1
        }
        if !additions.isEmpty {
            let at = raw[lastKept].valueRange.upperBound
            splices.append(Splice(range: at..<at, bytes: newMembers(additions, in: node, ancestors: ancestors, leadingComma: true)))
        }
        return .edited(splices)
    }

    /// `editObject` of the one member `key` when it is there and stays (a write below each child
    /// of a collection): found in one pass over the members, with nothing kept per member; nil
    /// when the member is missing or goes, which the whole `editObject` then does.
    private func editInPlace(
        _ node: JSONNode, _ member: (key: String, tree: EditTree), path: Path, ancestors: [JSONNode]
    ) throws(JSONEditError) -> EditOutcome? {
        var key = member.key
        // The last member with the key is the effective one.
        let effective = key.withUTF8 { wanted in
            document.withTapeReader { tape -> Int? in
                var found: Int?
                var position = node.index + 2
                let end = tape.nextIndex(node.index)
                while position < end {
                    if tape.hasEscapes(position) {
                        if tape.withStringBytes(position, { $0.elementsEqual(wanted) }) { found = position }
                    } else {
                        let start = tape.start(position)
                        if tape.end(position) - start - 2 == wanted.count
                            && (wanted.isEmpty || memcmpEqual(wanted.baseAddress!, tape.address(of: start + 1), wanted.count)) {
                            found = position
                        }
                    }
                    position = tape.nextIndex(position + 1)
                }
                return found
            }
        }
        guard let effective else { return nil }
        let value = JSONNode(document: document, index: effective + 1)
        switch try edit(value, member.tree, path: path.child(member.key), ancestors: ancestors + [node]) {
        case .unchanged: return .unchanged
        case .edited(let splices): return splices.isEmpty ? .unchanged : .edited(splices)
        case .removed: return nil
        }
    }

    /// `editObject` of the one member `key` of an object on a writer's path, from what the
    /// parse found there (`PathMembers`): the members of a large object are not gone through,
    /// except to find the one before members removed at its end.
    private func editObject(
        _ node: JSONNode, _ along: PathMembers.Object, _ member: (key: String, tree: EditTree), path: Path, ancestors: [JSONNode]
    ) throws(JSONEditError) -> EditOutcome {
        let tape = document.tape
        let end = tape.next(node.index)
        guard let effective = along.matches.last else {
            guard let value = member.tree.materialized else { return .unchanged }
            return .edited([addition(member.key, value, to: node, after: along.lastKey, ancestors: ancestors)])
        }
        let value = JSONNode(document: document, index: effective + 1)
        switch try edit(value, member.tree, path: path.child(member.key), ancestors: ancestors + [node]) {
        case .unchanged: return .unchanged
        case .edited(let splices): return .edited(splices)
        case .removed: break
        }
        // Every member of that key goes. The object goes too when no other member is left with
        // a value (shadowed and null members do not count).
        let removed = Set(along.matches)
        var kept = false
        document.withTapeReader { reader in
            var m = node.index + 2
            while m < end && !kept {
                kept = !removed.contains(m) && !reader.isShadowed(m) && reader.firstByte(m + 1) != UInt8(ascii: "n")
                m = tape.next(m + 1)
            }
        }
        if !kept { return .removed }
        // Each run of removed members goes with the separator after it, or before it at the end.
        var splices = [Splice]()
        var k = 0
        while k < along.matches.count {
            let first = along.matches[k]
            var after = tape.next(along.matches[k] + 1)
            while k + 1 < along.matches.count && along.matches[k + 1] == after {
                k += 1
                after = tape.next(after + 1)
            }
            let last = along.matches[k]
            if after < end {
                splices.append(Splice(range: range(ofEntry: first).lowerBound..<range(ofEntry: after).lowerBound, bytes: []))
            } else {
                // The member before the run: something is kept, so there is one.
                var before = node.index + 2
                while tape.next(before + 1) != first { before = tape.next(before + 1) }
                splices.append(Splice(range: range(ofEntry: before + 1).upperBound..<range(ofEntry: last + 1).upperBound, bytes: []))
            }
            k += 1
        }
        return .edited(splices)
    }

    /// A new member `key: value` added at the end of the object `node`, after the member whose
    /// key is at `lastKey` (-1: the object is empty).
    private func addition(_ key: String, _ value: JSON, to node: JSONNode, after lastKey: Int, ancestors: [JSONNode]) -> Splice {
        guard lastKey >= 0 else { return emptyObject(node, with: [(key, value)], ancestors: ancestors) }
        let at = range(ofEntry: lastKey + 1).upperBound
        return Splice(range: at..<at, bytes: newMembers([(key, value)], in: node, ancestors: ancestors, leadingComma: true))
    }

    /// The empty object `node` written anew with `members`, in the style of its surroundings.
    private func emptyObject(_ node: JSONNode, with members: [(key: String, value: JSON)], ancestors: [JSONNode]) -> Splice {
        let layout = reader.layout(chain: ancestors.reversed())
        var out = [UInt8]()
        layout.write(.object(JSONObject(uniqueMembers: members)), indent: reader.lineIndent(at: node.byteRange.lowerBound), to: &out)
        return Splice(range: node.byteRange, bytes: out)
    }

    /// `members` laid out like the other members of the object `node`, each after a comma and
    /// the separator between members (the first one too when `leadingComma`).
    private func newMembers(_ members: [(key: String, value: JSON)], in node: JSONNode, ancestors: [JSONNode], leadingComma: Bool) -> [UInt8] {
        let style = reader.style(of: node)!
        let layout = reader.layout(chain: [node] + ancestors.reversed())
        let separator = style.multiline ? style.newline + style.memberIndent : (style.comma ?? layout.comma)
        var out = [UInt8]()
        for (i, member) in members.enumerated() {
            if leadingComma || i > 0 {
                out.append(UInt8(ascii: ","))
                out += separator
            }
            layout.writeMember(key: member.key, value: member.value, indent: style.memberIndent, to: &out)
        }
        return out
    }

    private func editArray(
        _ node: JSONNode, _ list: [(key: String, tree: EditTree)], path: Path, ancestors: [JSONNode],
        truncatingAt truncation: Int = .max
    ) throws(JSONEditError) -> EditOutcome {
        let scan = scanElements(node, wanted: Set(list.compactMap { arrayIndex($0.key) }))
        let count = scan.count
        var state = [Int: ElementState]()
        var splices = [Splice]()
        var additions = [Int: JSON]()
        let inner = ancestors + [node]
        for (key, tree) in list {
            guard let index = arrayIndex(key) else {
                guard tree.writesSomething else { continue }
                throw JSONEditError(.notAnIndex(write: tree.firstWrite(below: path.child(key)), array: path, key: key))
            }
            if index < count {
                let position = scan.positions[index]!
                switch try edit(JSONNode(document: document, index: position), tree, path: path.child(key), ancestors: inner) {
                case .unchanged: break
                case .removed: if index >= truncation || !isNullEntry(position) { state[index] = .removed }
                case .edited(let s):
                    state[index] = .edited
                    splices += s
                }
            } else if let value = tree.materialized {
                guard index - count <= maximumArrayPadding else {
                    throw JSONEditError(.indexTooFar(write: tree.firstWrite(below: path.child(key)), array: path, index: index, count: count))
                }
                additions[index] = value
            }
        }
        let anyRemoved = state.values.contains(.removed)
        if !anyRemoved && additions.isEmpty { return splices.isEmpty ? .unchanged : .edited(splices) }
        // The last element that is not null after the edit: its index and where it ends.
        var lastKept: (index: Int, end: Int)?
        forEachElement(of: node) { i, position in
            let nullAfter = state[i] == .removed || (state[i] == nil && isNullEntry(position))
            if !nullAfter { lastKept = (i, range(ofEntry: position).upperBound) }
        }
        if additions.isEmpty && lastKept == nil { return .removed }
        if count == 0 {
            let values = (0...additions.keys.max()!).map { additions[$0] ?? .null }
            let layout = reader.layout(chain: ancestors.reversed())
            var out = [UInt8]()
            layout.write(.array(values), indent: reader.lineIndent(at: node.byteRange.lowerBound), to: &out)
            return .edited([Splice(range: node.byteRange, bytes: out)])
        }
        // Removing the last element drops the null placeholders before it too.
        var keepCount = count
        if additions.isEmpty && state[count - 1] == .removed, let lastKept { keepCount = lastKept.index + 1 }
        for (i, s) in state where s == .removed && i < keepCount {
            splices.append(Splice(range: range(ofEntry: scan.positions[i]!), bytes: Array("null".utf8)))
        }
        if keepCount < count, let lastKept {
            splices.append(Splice(range: lastKept.end..<scan.lastEnd, bytes: []))
        }
        if let last = additions.keys.max() {
            let style = reader.style(of: node)!
            let layout = reader.layout(chain: [node] + ancestors.reversed())
            let separator = style.multiline ? style.newline + style.memberIndent : (style.comma ?? layout.comma)
            var out = [UInt8]()
            for i in count...last {
                out.append(UInt8(ascii: ","))
                out += separator
                layout.write(additions[i] ?? .null, indent: style.memberIndent, to: &out)
            }
            splices.append(Splice(range: scan.lastEnd..<scan.lastEnd, bytes: out))
        }
        return .edited(splices)
    }
}

extension EditTree {
    /// The path of the first write below `path` that creates or replaces a value (for errors).
    func firstWrite(below path: Path) -> Path {
        guard case .children(let list) = self else { return path }
        for (key, tree) in list where tree.writesSomething { return tree.firstWrite(below: path.child(key)) }
        return path
    }
}
