// libFuzzer entry over the parser and validate's error path. Built by scripts/fuzz.sh
// together with Sources/JSONTree (not a SwiftPM target: those cannot link libFuzzer).
//
// For every input: parsing never crashes or hangs; an error's position lies inside the
// input and its diagnostic names it; an accepted document serializes and parses back
// to an equal value, and every node's byte range re-parses to the same value; re-parsing
// the input with one byte changed from it gives exactly what a full parse of that gives.

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
        checkReparsing(doc, bytes)
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

/// One byte of `bytes` changed (where and to what, chosen from the input itself), re-parsed
/// from `doc`, must give the same tape or error as a full parse.
private func checkReparsing(_ doc: JSONDocument, _ bytes: [UInt8]) {
    guard bytes.count > 2 else { return }
    var changed = bytes
    let at = Int(bytes[bytes.count / 2]) * 31 % bytes.count
    changed[at] = bytes[at] == UInt8(ascii: "1") ? UInt8(ascii: "[") : UInt8(ascii: "1")
    func outcome(_ parse: () throws(JSONParseError) -> JSONDocument) -> [UInt32] {
        do {
            let d = try parse()
            return (0..<d.tape.count).flatMap { [d.tape[$0].start, d.tape[$0].word] }
                + [UInt32(d.tape.rootNext), UInt32(d.tape.rootEnd)]
        } catch {
            return [UInt32.max, UInt32(error.offset)]
        }
    }
    let full = outcome { () throws(JSONParseError) in try JSONDocument(parsing: changed) }
    let again = outcome { () throws(JSONParseError) in try doc.reparsing(changed) }
    guard full == again else { fatalError("re-parsing differs from a full parse at byte \(at)") }
}
