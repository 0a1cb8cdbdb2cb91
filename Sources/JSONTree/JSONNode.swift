// A node of a parsed document: a cheap handle (document + tape index) with accessors.

/// One value inside a `JSONDocument`.
///
/// Copying a node copies a reference and an index. Strings and numbers are decoded
/// when read.
public struct JSONNode: Sendable {
    public let document: JSONDocument
    /// The node's position on the document's tape.
    public let index: Int

    @inlinable
    public init(document: JSONDocument, index: Int) {
        self.document = document
        self.index = index
    }

    @usableFromInline var entry: TapeEntry { document.tape[index] }
    @usableFromInline var firstByte: UInt8 { document.bytes[Int(entry.start)] }

    public var kind: JSONKind { JSONKind(firstByte: firstByte) }

    public var isContainer: Bool { entry.isContainer }

    /// The bytes this node was parsed from (strings include their quotes).
    public var byteRange: Range<Int> {
        let index = index
        return document.withTapeReader { $0.start(index)..<$0.end(index) }
    }

    /// The raw bytes of this node as written in the document.
    public var rawBytes: Slice<DocumentBytes> { document.bytes[byteRange] }

    /// Index of the first tape entry after this node's subtree.
    @usableFromInline var nextIndex: Int { document.tape.next(index) }

    /// Number of members (object, without overridden duplicates) or elements (array); 0 for scalars.
    /// - Complexity: O(count): the tape links siblings, it does not store counts.
    public var count: Int {
        switch kind {
        case .object: return members.reduce(0) { n, _ in n + 1 }
        case .array: return elements.reduce(0) { n, _ in n + 1 }
        default: return 0
        }
    }

    public var isNull: Bool { firstByte == UInt8(ascii: "n") }
    public var boolValue: Bool? {
        switch firstByte {
        case UInt8(ascii: "t"): true
        case UInt8(ascii: "f"): false
        default: nil
        }
    }

    /// The number's value; nil when the node is not a number.
    public var doubleValue: Double? {
        guard kind == .number else { return nil }
        let index = index
        return document.withTapeReader { $0.number(index) }
    }

    /// The number as written (`1.0`, `1e3`); nil when the node is not a number.
    public var numberText: String? {
        guard kind == .number else { return nil }
        let index = index
        return document.withTapeReader { t in t.withBytes(t.start(index)..<t.end(index)) { String(decoding: $0, as: UTF8.self) } }
    }

    /// Whether this string node contains escapes (its decoded bytes differ from its raw bytes).
    public var hasEscapes: Bool { entry.word & Tape.escaped != 0 }

    /// The decoded string; nil when the node is not a string.
    public var stringValue: String? {
        guard firstByte == UInt8(ascii: "\"") else { return nil }
        return withStringBytes { String(decoding: $0, as: UTF8.self) }
    }

    /// Calls `body` with the decoded UTF-8 bytes of this string node (no copy when it has no escapes).
    /// - Precondition: the node is a string.
    @inlinable
    public func withStringBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        let index = index
        return try document.withTapeReader { try $0.withStringBytes(index, body) }
    }

    /// True when both nodes were parsed from identical bytes (and so hold equal values).
    /// - Complexity: O(length).
    public func hasSameBytes(as other: JSONNode) -> Bool {
        let a = byteRange, b = other.byteRange
        guard a.count == b.count else { return false }
        if document === other.document && a == b { return true }
        return document.withTapeReader { ta in other.document.withTapeReader { tb in ta.sameBytes(a, as: tb, from: b.lowerBound) } }
    }
}

@inline(__always) @usableFromInline
func memcmpEqual(_ a: UnsafeRawPointer, _ b: UnsafeRawPointer, _ n: Int) -> Bool {
    var i = 0
    while i + 8 <= n {
        if a.loadUnaligned(fromByteOffset: i, as: UInt64.self) != b.loadUnaligned(fromByteOffset: i, as: UInt64.self) {
            return false
        }
        i += 8
    }
    while i < n {
        if a.load(fromByteOffset: i, as: UInt8.self) != b.load(fromByteOffset: i, as: UInt8.self) { return false }
        i += 1
    }
    return true
}

// MARK: - Children

extension JSONNode {
    /// The members of an object in file order (a duplicated key appears once, at its last place);
    /// empty for other kinds.
    public var members: Members { Members(node: self) }

    /// The elements of an array in order; empty for other kinds.
    public var elements: Elements { Elements(node: self) }

    /// Where a container's children lie on the tape: empty when the node is not of the kind asked.
    struct ChildSpan: Sendable {
        let document: JSONDocument
        var position: Int
        let end: Int
        init(_ node: JSONNode, ifKind kind: JSONKind) {
            document = node.document
            (position, end) = node.kind == kind ? (node.index + 2, node.nextIndex) : (0, 0)
        }
        var node: JSONNode { JSONNode(document: document, index: position) }
    }

    /// An object's members: `(key, value)`, where `key` is a string node.
    public struct Members: Sequence, Sendable {
        let node: JSONNode
        public var underestimatedCount: Int { node.kind == .object ? node.count : 0 }
        public func makeIterator() -> Iterator { Iterator(span: ChildSpan(node, ifKind: .object)) }
        public struct Iterator: IteratorProtocol {
            var span: ChildSpan
            public mutating func next() -> (key: JSONNode, value: JSONNode)? {
                while span.position < span.end {
                    let key = span.node
                    let value = JSONNode(document: span.document, index: span.position + 1)
                    span.position = value.nextIndex
                    if key.entry.word & Tape.shadowed == 0 { return (key, value) }
                }
                return nil
            }
        }
    }

    public struct Elements: Sequence, Sendable {
        let node: JSONNode
        public var underestimatedCount: Int { node.kind == .array ? node.count : 0 }
        public func makeIterator() -> Iterator { Iterator(span: ChildSpan(node, ifKind: .array)) }
        public struct Iterator: IteratorProtocol {
            var span: ChildSpan
            public mutating func next() -> JSONNode? {
                guard span.position < span.end else { return nil }
                let node = span.node
                span.position = node.nextIndex
                return node
            }
        }
    }

    /// Whether this string node's decoded bytes equal `key`'s UTF-8.
    public func stringEquals(_ key: String) -> Bool {
        var key = key
        return key.withUTF8 { k in
            withStringBytes { s in s.count == k.count && (k.isEmpty || memcmpEqual(s.baseAddress!, k.baseAddress!, k.count)) }
        }
    }

    /// The member named `key` (code-unit comparison).
    /// - Complexity: O(members).
    public subscript(key key: String) -> JSONNode? {
        for m in members where m.key.stringEquals(key) { return m.value }
        return nil
    }

    /// The element at `index` of an array.
    /// - Complexity: O(index).
    public subscript(index index: Int) -> JSONNode? {
        guard index >= 0 else { return nil }
        var i = 0
        for e in elements {
            if i == index { return e }
            i += 1
        }
        return nil
    }

    /// The child named `key`: an object member, or an array element for keys `"0"`, `"1"`, ….
    public func child(_ key: String) -> JSONNode? {
        switch kind {
        case .object: return self[key: key]
        case .array: return arrayIndex(key).flatMap { self[index: $0] }
        default: return nil
        }
    }

    /// The node at `path` below this one, or nil where the path does not exist.
    public func node(at path: Path) -> JSONNode? {
        var node = self
        for key in path.keys {
            guard let next = node.child(key) else { return nil }
            node = next
        }
        return node
    }

    /// This node as a `JSON` value.
    /// - Complexity: O(size of the subtree).
    public var json: JSON {
        switch kind {
        case .null: return .null
        case .bool: return .bool(boolValue!)
        case .number: return .number(JSONNumber(validText: numberText!, double: doubleValue!))
        case .string: return .string(stringValue!)
        case .array: return .array(elements.map { $0.json })
        case .object:
            return .object(JSONObject(uniqueMembers: members.map { (key: $0.key.stringValue!, value: $0.value.json) }))
        }
    }
}


// MARK: - Equality by value

extension JSONNode {
    /// JSON value equality (numbers as Double, strings by code units, objects in any order).
    /// Identical bytes are recognised without decoding.
    public func valueEquals(_ other: JSONNode) -> Bool {
        if hasSameBytes(as: other) { return true }
        let k = kind
        guard k == other.kind else { return false }
        switch k {
        case .null: return true
        case .bool: return boolValue == other.boolValue
        case .number: return doubleValue == other.doubleValue
        case .string:
            return withStringBytes { a in other.withStringBytes { b in
                a.count == b.count && (a.isEmpty || memcmpEqual(a.baseAddress!, b.baseAddress!, a.count))
            } }
        case .array:
            guard count == other.count else { return false }
            return zip(elements, other.elements).allSatisfy { $0.valueEquals($1) }
        case .object:
            guard count == other.count else { return false }
            for m in members {
                guard let v = m.key.withStringBytes({ other.member(named: $0) }), m.value.valueEquals(v) else {
                    return false
                }
            }
            return true
        }
    }

    /// The member whose key has these decoded bytes.
    public func member(named key: UnsafeBufferPointer<UInt8>) -> JSONNode? {
        for m in members {
            let equal = m.key.withStringBytes { s in
                s.count == key.count && (key.isEmpty || memcmpEqual(s.baseAddress!, key.baseAddress!, key.count))
            }
            if equal { return m.value }
        }
        return nil
    }

    /// JSON value equality with a constructed value.
    public func valueEquals(_ other: JSON) -> Bool {
        switch (kind, other) {
        case (.null, .null): return true
        case (.bool, .bool(let b)): return boolValue == b
        case (.number, .number(let n)): return doubleValue == n.double
        case (.string, .string(let s)): return stringEquals(s)
        case (.array, .array(let a)):
            return count == a.count && zip(elements, a).allSatisfy { $0.valueEquals($1) }
        case (.object, .object(let o)):
            guard count == o.count else { return false }
            return o.members.allSatisfy { m in self[key: m.key].map { $0.valueEquals(m.value) } ?? false }
        default: return false
        }
    }
}
