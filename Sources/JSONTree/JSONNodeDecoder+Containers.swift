// The decoder's three containers: an object's members, an array's elements, a single value.

/// The members of an object, found by key (code units): a linear scan for small objects, a
/// table built once for large ones.
struct ObjectContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: NodeDecoder
    let node: JSONNode
    let codingPath: [any CodingKey]
    private let members: [(key: JSONNode, value: JSONNode)]
    private let table: [JSONKey: Int]?

    init(decoder: NodeDecoder, node: JSONNode, codingPath: [any CodingKey]) {
        self.decoder = decoder
        self.node = node
        self.codingPath = codingPath
        members = Array(node.members)
        if members.count > 12 {
            var table = [JSONKey: Int](minimumCapacity: members.count)
            for (i, m) in members.enumerated() { table[JSONKey(m.key.stringValue ?? "")] = i }
            self.table = table
        } else {
            table = nil
        }
    }

    /// Children only: not null, key not starting with `.`.
    var allKeys: [Key] {
        members.compactMap { m in
            guard !m.value.isNull, m.key.withStringBytes({ $0.first != UInt8(ascii: ".") }) else { return nil }
            return m.key.stringValue.flatMap { Key(stringValue: $0) }
        }
    }

    func contains(_ key: Key) -> Bool { value(key) != nil }

    private func value(_ key: Key) -> JSONNode? { value(named: key.stringValue) }

    private func value(named name: String) -> JSONNode? {
        if let table { return table[JSONKey(name)].map { members[$0].value } }
        for m in members where m.key.stringEquals(name) { return m.value }
        return nil
    }

    private func require(_ key: Key) throws -> JSONNode {
        guard let v = value(key) else {
            throw DecodingError.keyNotFound(key, DecodingError.Context(
                codingPath: codingPath, debugDescription: "no member \(JSONNodeDecoder.quoted(key.stringValue))"))
        }
        return v
    }

    func decodeNil(forKey key: Key) throws -> Bool { try require(key).isNull }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        let v = try require(key)
        if let scalar = try decodeScalar(type, v, codingPath + [key]) { return scalar }
        return try T(from: decoder.child(v, key, path: codingPath))
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        try decoder.child(try require(key), key, path: codingPath).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try decoder.child(try require(key), key, path: codingPath).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        let key = NameKey("super")
        guard let v = value(named: key.stringValue) else {
            throw DecodingError.keyNotFound(key, DecodingError.Context(codingPath: codingPath, debugDescription: "no member \"super\""))
        }
        return decoder.child(v, key, path: codingPath)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        decoder.child(try require(key), key, path: codingPath)
    }
}

/// The elements of an array, read in order.
struct ArrayContainer: UnkeyedDecodingContainer {
    let decoder: NodeDecoder
    let codingPath: [any CodingKey]
    private let elements: [JSONNode]
    private(set) var currentIndex = 0

    init(decoder: NodeDecoder, node: JSONNode, codingPath: [any CodingKey]) {
        self.decoder = decoder
        self.codingPath = codingPath
        elements = Array(node.elements)
    }

    var count: Int? { elements.count }
    var isAtEnd: Bool { currentIndex >= elements.count }

    private func current(_ type: Any.Type) throws -> JSONNode {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(type, DecodingError.Context(
                codingPath: codingPath + [IndexKey(currentIndex)],
                debugDescription: "expected \(type), found the end of the array (\(elements.count) elements)"))
        }
        return elements[currentIndex]
    }

    mutating func decodeNil() throws -> Bool {
        guard try current(Never.self).isNull else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let v = try current(type)
        let key = IndexKey(currentIndex)
        let result: T
        if let scalar = try decodeScalar(type, v, codingPath + [key]) {
            result = scalar
        } else {
            result = try T(from: decoder.child(v, key, path: codingPath))
        }
        currentIndex += 1
        return result
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        let c = try decoder.child(try current([String: Any].self), IndexKey(currentIndex), path: codingPath).container(keyedBy: type)
        currentIndex += 1
        return c
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let c = try decoder.child(try current([Any].self), IndexKey(currentIndex), path: codingPath).unkeyedContainer()
        currentIndex += 1
        return c
    }

    mutating func superDecoder() throws -> any Decoder {
        let d = decoder.child(try current(Any.self), IndexKey(currentIndex), path: codingPath)
        currentIndex += 1
        return d
    }
}

/// A single value: a scalar, or any type decoded from the node as a whole.
struct ValueContainer: SingleValueDecodingContainer {
    let decoder: NodeDecoder
    let node: JSONNode
    let codingPath: [any CodingKey]

    func decodeNil() -> Bool { node.isNull }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        if let scalar = try decodeScalar(type, node, codingPath) { return scalar }
        return try T(from: decoder)
    }
}
