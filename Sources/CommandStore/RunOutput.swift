// A run's output as the document of a revision.
import JSONTree

/// `bytes` as a document: one JSON value is the document itself; several (JSON Lines, or values
/// separated by any whitespace) are a log, as standard input (`-`) is read: records keyed `0`,
/// `1`, `2`…, an invalid one an error row.
/// - Returns: the parse error of the one value when there is not a log of several.
func document(ofOutput bytes: [UInt8]) -> Result<JSONDocument, JSONParseError> {
    do {
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
