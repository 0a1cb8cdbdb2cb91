// A write request as the store's writes, chosen against the file's content at the moment of writing.
#if canImport(Glibc)
import Glibc
#endif
import StoreInterface
import Hummingbird
import JSONTree

/// PUT, PATCH, POST or DELETE at a location, with an optional `if-match` ETag.
///
/// Runs on the store thread through the store's compare-and-swap writer: the ETag is checked,
/// and a push key chosen, against the very content the writes replace.
struct WritePlan: Sendable {
    enum Outcome: Sendable {
        /// The document the write made (the answer is read from it off the store's thread).
        case written(JSONDocument, pushKey: String)
        /// A record appended to a log under `key`; it reaches readers with the store's next read.
        case appended(key: String)
        /// `if-match` (or a transaction's hash) named another value; the location's current
        /// value, or nil when the requester may not read it.
        case preconditionFailed(current: JSON?)
        case failed(RequestError)
    }

    let method: HTTPRequest.Method
    let path: Path
    let content: JSON
    let ifMatch: String?
    /// The client SDKs' transactions: the hash (`NodeHash`) the location's value must have.
    let ifHash: String?
    /// A PATCH's relative paths and values, each path parsed once (they are used three times).
    private let updates: [(path: Path, value: JSON)]
    /// The writes as the rules let them be made to a document (server values resolved), or nil
    /// when they are denied; run against the very content they replace.
    var permitted: @Sendable (JSONDocument, [JSONWrite]) throws(JSONEditError) -> [JSONWrite]? = { _, writes in writes }
    /// Whether the requester may read the location (and so be told its value when a
    /// precondition fails).
    var readable: @Sendable (JSONDocument) -> Bool = { _ in true }

    /// The plan with its writes decided by `access` for `requester` (the Security Rules, when
    /// there are some), against the very content they replace.
    func decided(by access: Access, for requester: Requester) -> WritePlan {
        var plan = self
        plan.permitted = { document, writes throws(JSONEditError) in
            try access.permittedWrites(requester, writes, to: document, now: Access.now())
        }
        plan.readable = { [path] document in access.mayRead(requester, path, query: .null, in: document, now: Access.now()) }
        return plan
    }

    init(method: HTTPRequest.Method, path: Path, content: JSON, ifMatch: String?, ifHash: String? = nil) throws(RequestError) {
        self.method = method
        self.path = path
        self.content = content
        self.ifMatch = ifMatch
        self.ifHash = ifHash
        guard method == .patch else {
            updates = []
            try Self.checkKeys(content)
            return
        }
        guard case .object(let members) = content, members.count > 0 else {
            throw RequestError(.badRequest, "a PATCH body must be a non-empty object of paths and values")
        }
        // A PATCH's top-level keys are paths; below them, keys.
        var updates = [(path: Path, value: JSON)]()
        updates.reserveCapacity(members.count)
        for m in members.members { updates.append((try DatabasePath.relative(m.key), m.value)) }
        for m in members.members { try Self.checkKeys(m.value) }
        self.updates = updates
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

    /// Whether the location's value in `document` is the one `if-match` (or a transaction's
    /// hash) names.
    private func preconditionHolds(in document: JSONDocument) -> Bool {
        if let ifMatch, ServedValue.etag(ServedValue.value(at: path, in: document, export: false)) != ifMatch {
            return false
        }
        if let ifHash, NodeHash.of(ServedValue.value(at: path, in: document, export: true)) != ifHash {
            return false
        }
        return true
    }

    /// The writes for `document`, whatever its current value.
    private func writes(for document: JSONDocument, pushKey: inout String) throws(RequestError) -> [JSONWrite] {
        switch method {
        case .put: return JSONWrite.set(path, content)
        case .delete: return JSONWrite.remove(path)
        case .post:
            pushKey = document.pushKey(under: path)
            return JSONWrite.set(path.child(pushKey), content)
        default:
            return JSONWrite.update(path, updates)
        }
    }

    /// Applies the plan to the store (on its thread): any write to a `DocumentStore`, a push
    /// to the root of a store that is only appended to; nothing to another store.
    func apply(to store: any LiveStore) -> Outcome {
        if !store.isAppendOnly, let documents = store as? any DocumentStore { return apply(to: documents) }
        guard store.isAppendOnly else { return .failed(RequestError(.methodNotAllowed, "this source cannot be written")) }
        guard method == .post, path.isRoot, ifMatch == nil, ifHash == nil else {
            return .failed(RequestError(.methodNotAllowed, "this source is a log, only appended to: POST to its root adds a "
                + "record; PUT, PATCH and DELETE would rewrite records that other programs append after"))
        }
        // The rules judge the record as the log's next child among the records read so far (a
        // line another program appends meanwhile takes that key first, and this record the next).
        let document = store.currentRevision?.document ?? JSONDocument(.object(JSONObject([])))
        let recordPath = path.child(String(document.root.count))
        let record: JSON
        do throws(JSONEditError) {
            record = try content.resolvingServerValues(at: recordPath, in: document, serverTime: Access.now())
            guard try permitted(document, JSONWrite.set(recordPath, record)) != nil else { return .failed(Access.permissionDenied) }
        } catch {
            return .failed(RequestError(.badRequest, error.description))
        }
        do throws(WriteError) {
            return .appended(key: try store.append(record, under: path))
        } catch {
            if case .appendOnly(_, let why) = error { return .failed(RequestError(.methodNotAllowed, why)) }
            if case .unfinishedLine = error { return .failed(RequestError(.serviceUnavailable, error.message)) }
            return .failed(RequestError(.internalServerError, error.clientMessage))
        }
    }

    /// What the plan does to `document`: its writes (the rules have judged them and the
    /// precondition holds), or why it writes nothing.
    private enum Step {
        case writes([JSONWrite], pushKey: String)
        case mismatch(current: JSON?)
        case failed(RequestError)

        var writes: [JSONWrite] {
            if case .writes(let writes, _) = self { return writes }
            return []
        }
    }

    private func step(_ document: JSONDocument) -> Step {
        var pushKey = ""
        do throws(RequestError) {
            let writes = try writes(for: document, pushKey: &pushKey)
            // The rules judge the request before anything about the data is said (a failed
            // precondition would tell whether the value is the one named). A denied write
            // writes nothing: the file stays byte-identical.
            let allowed: [JSONWrite]?
            do throws(JSONEditError) { allowed = try permitted(document, writes) } catch {
                throw RequestError(.badRequest, error.description)
            }
            guard let allowed else { throw Access.permissionDenied }
            guard preconditionHolds(in: document) else {
                // (`JSON` takes `nil` for null: the optional is spelled out.)
                return .mismatch(current: readable(document) ? ServedValue.value(at: path, in: document, export: false) : Optional.none)
            }
            return .writes(allowed, pushKey: pushKey)
        } catch {
            return .failed(error)
        }
    }

    private func apply(to store: any DocumentStore) -> Outcome {
        var step = Step.writes([], pushKey: "")
        let result: WriteResult
        do throws(WriteError) {
            result = try store.write { document throws(WriteError) in
                step = self.step(document)
                return step.writes
            }
        } catch {
            return .failed(Self.requestError(error))
        }
        switch step {
        case .writes(_, let pushKey): return .written(result.document, pushKey: pushKey)
        case .mismatch(let current): return .preconditionFailed(current: current)
        case .failed(let error): return .failed(error)
        }
    }

    private static func requestError(_ error: WriteError) -> RequestError {
        if case .edit(let edit) = error { return RequestError(.badRequest, edit.description) }
        return RequestError(.internalServerError, error.clientMessage)
    }

    /// Applies `plans`, queued together, in order: each judged on the document the ones before
    /// it made, as few writes of the store as can be (one save and one `fsync`, one revision,
    /// which every listener has before any plan is answered). A burst of writes — a test
    /// suite's hundred increments at once — then costs one save, not a hundred.
    static func apply(_ plans: [WritePlan], to store: any LiveStore) -> [Outcome] {
        guard plans.count > 1, !store.isAppendOnly, let documents = store as? any DocumentStore else {
            return plans.map { $0.apply(to: store) }
        }
        var outcomes = [Outcome]()
        while outcomes.count < plans.count {
            outcomes += applyTogether(plans[outcomes.count...], to: documents)
        }
        return outcomes
    }

    /// The documents a group of plans may hold at once (each plan's answer is read from the
    /// document it made).
    static let batchBytes = 16 << 20

    /// Applies the first plans of `plans`, up to `batchBytes` of documents made, as one write
    /// of the store; their outcomes. When that write fails, each is made alone (one plan's
    /// error is not the others').
    private static func applyTogether(_ plans: ArraySlice<WritePlan>, to store: any DocumentStore) -> [Outcome] {
        var outcomes = [Outcome]()
        do throws(WriteError) {
            try store.write { document throws(WriteError) in
                outcomes = []
                var current = document, written = [Path](), held = 0
                for plan in plans where held <= batchBytes {
                    switch plan.step(current) {
                    case .failed(let error): outcomes.append(.failed(error))
                    case .mismatch(let value): outcomes.append(.preconditionFailed(current: value))
                    case .writes(let writes, let pushKey):
                        do throws(JSONEditError) {
                            current = try current.applying(writes, serverTime: Access.now())
                            written += writes.map(\.path)
                            held += current.bytes.count
                            outcomes.append(.written(current, pushKey: pushKey))
                        } catch {
                            outcomes.append(.failed(RequestError(.badRequest, error.description)))
                        }
                    }
                }
                return finalWrites(written, in: current)
            }
        } catch {
            return plans.prefix(max(outcomes.count, 1)).map { $0.apply(to: store) }
        }
        return outcomes
    }

    /// The writes that take a document to `final` where `paths` were written: each outermost
    /// written location set to its final value as stored (priorities included; null where it
    /// is gone). Setting a container over a container edits only the members that differ, so
    /// the save splices what changed.
    private static func finalWrites(_ paths: [Path], in final: JSONDocument) -> [JSONWrite] {
        let unique = Set(paths)
        let outermost = unique.filter { path in
            !(0..<path.keys.count).contains { unique.contains(Path(keys: Array(path.keys.prefix($0)))) }
        }
        return outermost.sorted { $0.description < $1.description }.map { path in
            JSONWrite(path, final.root.node(at: path)?.json ?? .null)
        }
    }

    /// The response's body for the document the write made: the name of a pushed child, each
    /// written location's value for a PATCH, the location's value otherwise.
    /// - Complexity: for a PATCH, linear in its paths and the children of the locations they name.
    func answer(in document: JSONDocument, pushKey: String) -> JSON {
        switch method {
        case .post:
            return .object(JSONObject([("name", .string(pushKey))]))
        case .patch:
            guard case .object(let members) = content else { return value(in: document) }
            let index = ChildIndex()
            var answer = [(key: String, value: JSON)]()
            answer.reserveCapacity(members.count)
            for (m, update) in zip(members.members, updates) {
                let node = index.node(at: path.appending(update.path), in: document.root)
                answer.append((m.key, node.map { ServedValue.value($0, export: false) } ?? .null))
            }
            return .object(JSONObject(answer))
        default:
            return value(in: document)
        }
    }

    /// The location's value in `document` (for its ETag).
    func value(in document: JSONDocument) -> JSON {
        ServedValue.value(at: path, in: document, export: false)
    }
}

extension WriteError {
    /// What a client is told: why, in database paths, never the file's path on this machine.
    var clientMessage: String {
        switch self {
        case .edit(let error): error.description
        case .missing: "the file is missing"
        case .unreadable, .notAFile: "the file cannot be read"
        case .system(_, _, let code): "the file cannot be written: \(String(cString: strerror(code)))"
        case .invalidJSON, .readOnly, .conflict, .lockTimeout: message
        case .appendOnly, .remote, .unfinishedLine: "the file cannot be written"
        }
    }
}
