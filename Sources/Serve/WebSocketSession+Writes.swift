// A WebSocket session's writes: made now through the store, or left for when the connection ends.
import JSONTree
import StoreInterface

extension WebSocketSession {
    typealias WriteKind = ClientRequest.WriteKind

    static func plan(_ kind: WriteKind, path: Path, data: JSON, hash: String?) throws(WireError) -> WritePlan {
        do {
            switch kind {
            case .put:
                if data.isNull { return try WritePlan(method: .delete, path: path, content: .null, ifMatch: nil, ifHash: hash) }
                return try WritePlan(method: .put, path: path, content: data, ifMatch: nil, ifHash: hash)
            case .merge:
                return try WritePlan(method: .patch, path: path, content: data, ifMatch: nil, ifHash: hash)
            }
        } catch {
            throw WireError(error.message)
        }
    }

    func write(_ kind: WriteKind, path: Path, data: JSON, hash: String?, as requester: Requester) async -> Answer {
        let checkedPlan: WritePlan
        do throws(WireError) {
            checkedPlan = try Self.plan(kind, path: path, data: data, hash: hash).decided(by: access, for: requester)
        } catch {
            return Answer(status: "error", data: .string(error.message))
        }
        let outcome: WritePlan.Outcome
        do {
            outcome = try await store.apply(checkedPlan)
        } catch {
            return Answer(status: "unavailable", data: .string(error.description))
        }
        switch outcome {
        case .written, .appended:
            // The store has published the write's revision: the client's listens hear of it
            // before the `ok` (the SDK drops its own pending write on the `ok`, and would show
            // the old value in between).
            if let latest = feed.latest { follow(latest) }
            return Answer()
        case .preconditionFailed:
            await catchUp(path: path, from: hash)
            return Answer(status: "datastale", data: "the value changed")
        case .failed(let error) where error.status == .unauthorized: return Self.denied
        case .failed(let error): return Answer(status: "error", data: .string(error.message))
        }
    }

    /// A transaction's put found another value than the client's: the client reruns it on the
    /// value its listen holds, so that value must reach it before the `datastale` (else it
    /// retries on the same stale value and gives up after 25 tries). The value the write saw is
    /// on disk; the store publishes it shortly, if another process wrote it: the session waits
    /// for the revision that holds it (a second at most).
    private func catchUp(path: Path, from hash: String?) async {
        let deadline = ContinuousClock.now + .seconds(1)
        while let hash, var latest = feed.latest,
              NodeHash.of(ServedValue.value(at: path, in: latest.document, export: true)) == hash {
            guard let newer = await feed.revision(after: latest.number, until: deadline) else { break }
            latest = newer
        }
        if let latest = feed.latest { follow(latest) }
    }

    /// `o`, `om`: the write is checked now and kept as text (which costs its bytes, charged),
    /// parsed again when the connection ends.
    func leave(_ kind: WriteKind, path: Path, data: JSON, as requester: Requester) -> Answer {
        do throws(WireError) {
            _ = try Self.plan(kind, path: path, data: data, hash: nil)
        } catch {
            return Answer(status: "error", data: .string(error.message))
        }
        let text = data.serialized(.compact)
        guard left.writes.count < options.maxListensPerConnection, left.bytes + text.count <= options.maxBodyBytes else {
            return Answer(status: "too_big", data: .string("a connection's onDisconnect writes are at most \(options.maxListensPerConnection), of \(options.maxBodyBytes) bytes in all"))
        }
        if let refusal = account.charge(text.count) { return Answer(status: "too_big", data: .string(refusal)) }
        left.writes.append(LeftWrites.Write(path: path, kind: kind, text: text, requester: requester))
        left.bytes += text.count
        return Answer()
    }

    /// `oc`: the writes left at or below `path` are cancelled, their bytes given back.
    func cancelLeft(at path: Path) {
        left.writes.removeAll { $0.path.keys.starts(with: path.keys) }
        let kept = left.writes.reduce(0) { $0 + $1.text.count }
        account.release(left.bytes - kept)
        left.bytes = kept
    }

    /// The connection ended: the writes it left for that moment are made, in order, each as
    /// the user who asked for it.
    func disconnected() async {
        for write in left.writes {
            let plan = (try? JSONDocument(parsing: write.text).root.json).flatMap { try? Self.plan(write.kind, path: write.path, data: $0, hash: nil) }
            guard let plan = plan?.decided(by: access, for: write.requester) else { continue }
            _ = try? await store.apply(plan)
        }
        left = LeftWrites()
    }
}

/// The onDisconnect writes a connection left, as the compact text of their data.
struct LeftWrites {
    struct Write {
        let path: Path
        let kind: ClientRequest.WriteKind
        let text: [UInt8]
        let requester: Requester
    }

    var writes: [Write] = []
    /// The bytes of their data, charged to the connection.
    var bytes = 0
}
