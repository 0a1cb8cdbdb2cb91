// A value being replayed: objects indexed by key, so that a change costs its path, not the
// members before it (a table of 10,000 rows changes 100 of them a revision).
import JSONTree

/// A JSON value that journal changes are applied to, then written out as a document.
public struct ReplayTree: Sendable {
    indirect enum Node: Sendable {
        case scalar(JSON)
        case object(Members)
        case array([Node])
    }

    /// An object's members in order, with each key's place.
    struct Members: Sendable {
        var keys: [String] = []
        var values: [Node] = []
        var places: [JSONKey: Int] = [:]

        mutating func set(_ key: String, _ value: Node) {
            if let i = places[JSONKey(key)] { values[i] = value } else {
                places[JSONKey(key)] = keys.count
                keys.append(key)
                values.append(value)
            }
        }

        mutating func remove(_ key: String) -> Bool {
            guard let i = places.removeValue(forKey: JSONKey(key)) else { return false }
            keys.remove(at: i)
            values.remove(at: i)
            for j in i..<keys.count { places[JSONKey(keys[j])] = j }
            return true
        }
    }

    var root: Node

    public init(_ value: JSON) { root = Node(value) }

    /// The value as `JSON`.
    public var json: JSON { root.json }

    /// The value as a document (written compactly, then parsed).
    public func document() -> JSONDocument { root.document() }

    /// The value at `path` (members by key, elements by index), nil where there is none.
    func node(at path: ArraySlice<String>) -> Node? {
        var node = root
        for key in path {
            guard let child = node.child(key) else { return nil }
            node = child
        }
        return node
    }

    /// Applies `change` in place.
    /// - Throws: `JournalApplyError` for a pointer through a scalar, a missing member removed, or
    ///   an element beyond an array's end.
    public mutating func apply(_ change: JournalChange) throws(JournalApplyError) {
        try root.apply(change.value.map(Node.init), at: change.pointer[...], whole: change.pointer)
    }
}

extension ReplayTree.Node {
    init(_ value: JSON) {
        switch value {
        case .object(let object):
            var members = ReplayTree.Members()
            for m in object.members { members.set(m.key, ReplayTree.Node(m.value)) }
            self = .object(members)
        case .array(let elements): self = .array(elements.map(ReplayTree.Node.init))
        default: self = .scalar(value)
        }
    }

    var json: JSON {
        switch self {
        case .scalar(let value): value
        case .object(let members): .object(JSONObject(zip(members.keys, members.values).map { ($0, $1.json) }))
        case .array(let elements): .array(elements.map(\.json))
        }
    }

    /// This value as a document (written compactly, then parsed).
    func document() -> JSONDocument {
        var out = [UInt8]()
        write(to: &out)
        // Written from valid values: it parses.
        return try! JSONDocument(parsing: out)
    }

    /// The member `key` of an object, or the element at index `key` of an array.
    func child(_ key: String) -> ReplayTree.Node? {
        switch self {
        case .object(let members): return members.places[JSONKey(key)].map { members.values[$0] }
        case .array(let elements): return arrayIndex(key).flatMap { elements.indices.contains($0) ? elements[$0] : nil }
        case .scalar: return nil
        }
    }

    /// Whether a child with this value stays where it was in key and priority order when it
    /// changes to another such value: it is there (not null, not empty) and has no priority.
    var keepsItsPlace: Bool {
        switch self {
        case .object(let members): return !members.keys.isEmpty && members.places[JSONKey(".priority")] == nil
        case .array(let elements): return !elements.isEmpty
        case .scalar(let value): return value != .null
        }
    }

    func write(to out: inout [UInt8]) {
        switch self {
        case .scalar(let value): value.write(to: &out, style: .compact, depth: 0)
        case .object(let members):
            out.append(UInt8(ascii: "{"))
            for i in members.keys.indices {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                writeJSONString(members.keys[i], to: &out)
                out.append(UInt8(ascii: ":"))
                members.values[i].write(to: &out)
            }
            out.append(UInt8(ascii: "}"))
        case .array(let elements):
            out.append(UInt8(ascii: "["))
            for (i, element) in elements.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                element.write(to: &out)
            }
            out.append(UInt8(ascii: "]"))
        }
    }

    mutating func apply(_ value: ReplayTree.Node?, at pointer: ArraySlice<String>, whole: [String]) throws(JournalApplyError) {
        guard let key = pointer.first else {
            guard let value else { throw JournalApplyError(pointer: "", reason: "the whole value cannot be removed") }
            self = value
            return
        }
        let rest = pointer.dropFirst()
        func failure(_ reason: String) -> JournalApplyError { JournalApplyError(pointer: jsonPointer(whole), reason: reason) }
        if var members = takeMembers() {
            defer { self = .object(members) }
            if rest.isEmpty {
                if let value { members.set(key, value) } else if !members.remove(key) { throw failure("no such member to remove") }
            } else {
                guard let i = members.places[JSONKey(key)] else { throw failure("no member \(key) on the way") }
                try members.values[i].apply(value, at: rest, whole: whole)
            }
        } else if var elements = takeElements() {
            defer { self = .array(elements) }
            guard let i = arrayIndex(key), i <= elements.count, !(rest.isEmpty ? value == nil && i == elements.count : i == elements.count) else {
                throw failure("no element \(key) there")
            }
            if !rest.isEmpty {
                try elements[i].apply(value, at: rest, whole: whole)
            } else if let value {
                if i == elements.count { elements.append(value) } else { elements[i] = value }
            } else {
                elements.remove(at: i)
            }
        } else if case .scalar(let scalar) = self {
            throw failure("a \(scalar.kind) has no members")
        }
    }

    // An object's members (an array's elements) taken out of the node, left null meanwhile, so
    // that they are referenced once while they change: bound by a `switch self`, they were
    // referenced twice, and every change copied the whole object (10,000 rows, per change).
    private mutating func takeMembers() -> ReplayTree.Members? {
        guard case .object(let members) = self else { return nil }
        self = .scalar(.null)
        return members
    }

    private mutating func takeElements() -> [ReplayTree.Node]? {
        guard case .array(let elements) = self else { return nil }
        self = .scalar(.null)
        return elements
    }
}

