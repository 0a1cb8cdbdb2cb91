// A run's output as the document of a revision.
import JSONTree

/// `bytes` as a document: one JSON value is the document itself; several (JSON Lines, or values
/// separated by any whitespace) are a log, as standard input (`-`) is read: records keyed `0`,
/// `1`, `2`…, an invalid one an error row.
/// - Parameter previous: the last good run's document: the new one is parsed from it
///   (`reparsing`), which tells the queries the bytes the two share at each end, measured here
///   once instead of by each of them.
/// - Returns: the parse error of the one value when there is not a log of several.
func document(ofOutput bytes: [UInt8], previous: JSONDocument? = nil) -> Result<JSONDocument, JSONParseError> {
    do {
        if let previous { return .success(try previous.reparsing(bytes)) }
        return .success(try JSONDocument(parsing: bytes))
    } catch {
        var builder = JSONLinesBuilder(mode: .values)
        _ = builder.append(bytes)
        builder.finish()
        // One value (or none) that is not valid JSON: the run failed, at this line and column.
        guard builder.count >= 2, builder.errors.count < builder.count else { return .failure(error) }
        return .success(builder.finishedList())
    }
}
