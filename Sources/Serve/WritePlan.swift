// A write request as the store's writes, chosen against the file's content at the moment of writing.
import FileStore
import Hummingbird
import JSONTree

/// PUT, PATCH, POST or DELETE at a location, with an optional `if-match` ETag.
///
/// Runs on the store thread through the store's compare-and-swap writer: the ETag is checked,
/// and a push key chosen, against the very content the writes replace.
struct WritePlan: Sendable {
    enum Outcome: Sendable {
        /// The response's body, and the location's value after the write (for its ETag).
        case written(answer: JSON, value: JSON)
        /// `if-match` named another ETag; the location's current value.
        case preconditionFailed(current: JSON)
        case failed(RequestError)
    }

    let method: HTTPRequest.Method
    let path: Path
    let content: JSON
    let ifMatch: String?
    /// The client SDKs' transactions: the hash (`NodeHash`) the location's value must have.
    let ifHash: String?

    init(method: HTTPRequest.Method, path: Path, content: JSON, ifMatch: String?, ifHash: String? = nil) throws(RequestError) {
        self.method = method
        self.path = path
        self.content = content
        self.ifMatch = ifMatch
        self.ifHash = ifHash
        if method == .patch {
            guard case .object(let members) = content, members.count > 0 else {
                throw RequestError(.badRequest, "a PATCH body must be a non-empty object of paths and values")
            }
            for key in members.keys { _ = try DatabasePath.relative(key) }
        }
        if method == .patch, case .object(let members) = content {
            // A PATCH's top-level keys are paths, checked above; below them, keys.
            for m in members.members { try Self.checkKeys(m.value) }
        } else {
            try Self.checkKeys(content)
        }
    }

    /// Keys in written values follow the database's rules too (`.sv`, `.priority`, `.value` aside).
    private static func checkKeys(_ value: JSON) throws(RequestError) {
        guard case .object(let o) = value else {
            if case .array(let a) = value { for e in a { try checkKeys(e) } }
            return
        }
        for m in o.members {
            if m.key == ".sv" || m.key == ".priority" || m.key == ".value" { continue }
            do { try DatabasePath.check(m.key) } catch {
                throw RequestError(.badRequest, "the body has an invalid key: \(error.message)")
            }
            try checkKeys(m.value)
        }
    }

    /// The writes for `document`; nil when `if-match` does not match its current value.
    private func writes(for document: JSONDocument, pushKey: inout String) throws(RequestError) -> [JSONWrite]? {
        if let ifMatch, ServedValue.etag(ServedValue.value(at: path, in: document, export: false)) != ifMatch {
            return nil
        }
        if let ifHash, NodeHash.of(ServedValue.value(at: path, in: document, export: true)) != ifHash {
            return nil
        }
        switch method {
        case .put: return JSONWrite.set(path, content)
        case .delete: return JSONWrite.remove(path)
        case .post:
            pushKey = FileStore.pushKey(under: path, in: document)
            return JSONWrite.set(path.child(pushKey), content)
        default:
            guard case .object(let members) = content else { return [] }
            var values = [(path: Path, value: JSON)]()
            for m in members.members { values.append((try DatabasePath.relative(m.key), m.value)) }
            return JSONWrite.update(path, values)
        }
    }

    /// Applies the plan to the store (on its thread).
    func apply(to store: FileStore) -> Outcome {
        var pushKey = ""
        var mismatch: JSON?
        var planError: RequestError?
        let result: WriteResult
        do throws(WriteError) {
            result = try store.write { document throws(WriteError) in
                mismatch = nil
                do throws(RequestError) {
                    guard let writes = try writes(for: document, pushKey: &pushKey) else {
                        mismatch = ServedValue.value(at: path, in: document, export: false)
                        return []
                    }
                    return writes
                } catch {
                    planError = error
                    return []
                }
            }
        } catch {
            if case .edit(let edit) = error { return .failed(RequestError(.badRequest, edit.description)) }
            return .failed(RequestError(.internalServerError, error.description))
        }
        if let planError { return .failed(planError) }
        if let mismatch { return .preconditionFailed(current: mismatch) }
        let document = result.document
        let value = ServedValue.value(at: path, in: document, export: false)
        switch method {
        case .post:
            return .written(answer: .object(JSONObject([("name", .string(pushKey))])), value: value)
        case .patch:
            guard case .object(let members) = content else { return .written(answer: value, value: value) }
            var answer = [(key: String, value: JSON)]()
            for m in members.members {
                let written = (try? DatabasePath.relative(m.key)).map { path.appending($0) }
                answer.append((m.key, written.map { ServedValue.value(at: $0, in: document, export: false) } ?? .null))
            }
            return .written(answer: .object(JSONObject(answer)), value: value)
        default:
            return .written(answer: value, value: value)
        }
    }
}
