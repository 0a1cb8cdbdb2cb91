// libFuzzer entry over the parser and validate's error path. Built by scripts/fuzz.sh
// together with Sources/JSONTree (not a SwiftPM target: those cannot link libFuzzer).
//
// For every input: parsing never crashes or hangs; an error's position lies inside the
// input and its diagnostic names it; an accepted document serializes and parses back
// to an equal value, and every node's byte range re-parses to the same value.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzParser(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    do {
        let doc = try JSONDocument(parsing: bytes)
        let value = doc.root.json
        for style in [JSONStyle.compact, .pretty] {
            let again = try JSONDocument(parsing: value.serialized(style))
            guard again.root.json == value, again.root.valueEquals(doc.root) else { fatalError("round trip changed the value") }
        }
        checkRanges(doc.root, bytes)
    } catch {
        guard error.offset >= 0, error.offset <= size, error.line >= 1, error.column >= 1,
            !error.message.isEmpty, error.diagnostic(file: "f").hasPrefix("f:\(error.line):\(error.column): error: ")
        else { fatalError("bad error position: \(error)") }
    }
    return 0
}

private func checkRanges(_ node: JSONNode, _ bytes: [UInt8]) {
    let slice = Array(bytes[node.byteRange])
    guard let alone = try? JSONDocument(parsing: slice), alone.root.valueEquals(node) else {
        fatalError("byte range \(node.byteRange) does not hold the node")
    }
    for m in node.members { checkRanges(m.value, bytes) }
    for e in node.elements { checkRanges(e, bytes) }
}
