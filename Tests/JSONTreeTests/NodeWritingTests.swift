import JSONTree
import Testing
import TestSupport

/// `JSONNode.writeCompact` writes exactly what `node.json.write(…, style: .compact, …)` writes.
@Suite struct NodeWritingTests {
    /// Every node of random documents in random layouts, both escapings, drained at random sizes.
    @Test func matchesTheValueSerializerOnRandomDocuments() throws {
        for seed in UInt64(1)...300 {
            var r = SplitMix64(seed: seed)
            // Text of every kind (Gen) in the serializer's layouts; trees in random layouts.
            let text = seed % 2 == 0
                ? Gen.value(&r).serialized(r.next(2) == 0 ? .compact : .pretty)
                : StyledWriter.random(&r).write(randomTree(&r, depth: 0))
            let doc = try JSONDocument(parsing: text)
            for index in doc.nodeIndexes {
                let node = JSONNode(document: doc, index: index)
                for escaping in [JSONEscaping.required, .invisibles] {
                    let limit = [1, 5, 64, Int.max][Int(r.next(4))]
                    #expect(written(node, escaping, limit: limit) == node.json.serialized(.compact, escaping: escaping),
                            "seed \(seed), node \(index), \(escaping)")
                }
            }
        }
    }

    /// Escapes in the file, lone surrogates, invisible controls, duplicate keys (the last wins).
    @Test func matchesTheValueSerializerOnHostileText() throws {
        let texts = [
            #"{"a":1,"b":[true,false,null,-0.50e+3],"a":{"x":"\u00e9\u0085\u202e\u007f\/"}}"#,
            #"["\ud83d\ude00x\ud800\udc00","tab\there\u0000\u001f","q\"b\\"]"#,
            #"{"k\u0001":"v","":{},"e\u0301":[[],{}]}"#,
            "[\"é\u{85}\u{2028}中😀\u{7F}~\"]",
        ]
        for text in texts {
            let doc = try JSONDocument(parsing: text)
            for index in doc.nodeIndexes {
                let node = JSONNode(document: doc, index: index)
                for escaping in [JSONEscaping.required, .invisibles] {
                    #expect(written(node, escaping, limit: 3) == node.json.serialized(.compact, escaping: escaping), "\(text) node \(index)")
                }
            }
        }
    }

    /// One long string is written in pieces: the buffer is drained inside it, and the pieces
    /// joined are the string's serialization.
    @Test func drainsInsideOneLongString() throws {
        var r = SplitMix64(seed: 99)
        let pieces = ["abc", "é", "\u{85}", "\n", "\u{1}", "😀", "\"", "中", "\u{202E}", String(repeating: "x", count: 50)]
        var text = ""
        for _ in 0..<40_000 { text += pieces[Int(r.next(UInt64(pieces.count)))] }
        let doc = try JSONDocument(parsing: JSON.string(text).serialized())
        for escaping in [JSONEscaping.required, .invisibles] {
            var out = [UInt8](), all = [UInt8](), drains = 0, largest = 0
            doc.root.writeCompact(to: &out, escaping: escaping, drainingAt: 4096) { buffer in
                largest = max(largest, buffer.count)
                all += buffer
                buffer.removeAll()
                drains += 1
            }
            all += out
            #expect(all == JSON.string(text).serialized(.compact, escaping: escaping))
            #expect(drains >= 2)
            // A piece of at most 64 KiB (and a scalar's continuation bytes), each byte escaped
            // to at most 6 bytes, past the limit.
            #expect(largest <= 4096 + 6 * ((1 << 16) + 3))
        }
    }
}

/// What `writeCompact` writes, with everything drained joined.
private func written(_ node: JSONNode, _ escaping: JSONEscaping, limit: Int) -> [UInt8] {
    var out = [UInt8](), all = [UInt8]()
    node.writeCompact(to: &out, escaping: escaping, drainingAt: limit) { buffer in
        all += buffer
        buffer.removeAll()
    }
    return all + out
}
