// A revision record as JSON lines (`synctable history`): one line per child it changed.
#if canImport(Glibc)
import Glibc
#endif
import JSONTree

extension RevisionRecord {
    /// One JSON line per child the revision changed, in the record's order:
    ///
    ///     {"revision":R,"time":"2026-11-27T14:02:11.352Z","writer":W,"event":"added","key":K,"index":I,"new":V}
    ///     {"revision":R,…,"event":"removed","key":K,"fromIndex":F,"old":V}
    ///     {"revision":R,…,"event":"moved","key":K,"fromIndex":F,"index":I}
    ///     {"revision":R,…,"event":"changed","key":K,"fromIndex":F,"index":I,"fields":[{"path":"score","old":1,"new":2}]}
    ///
    /// A field missing before or after has no `old` or `new`. Keys, paths and strings are escaped
    /// wherever a terminal would act on them (`JSONEscaping.invisibles`).
    public func jsonLines() -> [UInt8] {
        var out = [UInt8]()
        for i in changes.indices { appendLine(i, to: &out) }
        return out
    }

    /// The line of `changes[index]` alone.
    public func jsonLine(_ index: Int) -> [UInt8] {
        var out = [UInt8]()
        appendLine(index, to: &out)
        return out
    }

    private func appendLine(_ index: Int, to out: inout [UInt8]) {
        let change = changes[index]
        out.append(contentsOf: #"{"revision":\#(revision),"time":"\#(isoTime(time))","writer":"\#(writer.rawValue)","event":"#.utf8)
        writeJSONString(change.kind.rawValue, to: &out)
        out.append(contentsOf: #","key":"#.utf8)
        writeJSONString(change.key, to: &out, escaping: .invisibles)
        if let i = change.oldIndex, change.kind != .added { out.append(contentsOf: #","fromIndex":\#(i)"#.utf8) }
        if let j = change.newIndex, change.kind != .removed { out.append(contentsOf: #","index":\#(j)"#.utf8) }
        switch change.kind {
        case .added: value("new", change.value, &out)
        case .removed: value("old", change.value, &out)
        case .moved: break
        case .changed:
            out.append(contentsOf: #","fields":["#.utf8)
            for (n, field) in change.fields.enumerated() {
                out.append(contentsOf: (n == 0 ? #"{"path":"# : #",{"path":"#).utf8)
                writeJSONString(field.pathText, to: &out, escaping: .invisibles)
                value("old", field.old, &out)
                value("new", field.new, &out)
                out.append(UInt8(ascii: "}"))
            }
            out.append(UInt8(ascii: "]"))
        }
        out.append(contentsOf: "}\n".utf8)
    }
}

/// `,"NAME":VALUE` with the value compacted onto one line, or nothing when missing.
private func value(_ name: String, _ bytes: [UInt8]?, _ out: inout [UInt8]) {
    guard let bytes, let json = parsedJSON(bytes) else { return }
    out.append(contentsOf: ",\"\(name)\":".utf8)
    json.write(to: &out, style: .compact, depth: 0, escaping: .invisibles)
}

/// UTC time as ISO 8601 to the millisecond: `2026-11-27T14:02:11.352Z`.
func isoTime(_ seconds: Double) -> String {
    var t = time_t(seconds.rounded(.down))
    var parts = tm()
    gmtime_r(&t, &parts)
    let ms = Int((seconds - seconds.rounded(.down)) * 1000)
    func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
    let msText = ms < 10 ? "00\(ms)" : ms < 100 ? "0\(ms)" : "\(ms)"
    return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)).\(msText)Z"
}
