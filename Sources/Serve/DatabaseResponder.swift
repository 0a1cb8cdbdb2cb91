// The REST protocol: one request in, one response out (streams in `EventStream`).
import StoreInterface
import HTTPTypes
import Hummingbird
import JSONTree
import LiveQuery
import Rules


/// Answers the Realtime Database's REST requests from the feed (reads) and the store thread
/// (writes).
struct DatabaseResponder: HTTPResponder {
    typealias Context = ServeContext

    let feed: RevisionFeed
    let store: StoreThread
    let options: ServeOptions
    let access: Access
    /// Read answers of the newest revision.
    let reads: RevisionCache<CachedRead>
    /// Stream events of the newest revision.
    let events: RevisionCache<EventBytes>

    func respond(to request: Request, context: Context) async throws -> Response {
        do {
            return try await answer(request, context)
        } catch {
            return Self.response(error)
        }
    }

    private func answer(_ request: Request, _ context: Context) async throws(RequestError) -> Response {
        if request.uri.path == "/.settings/rules.json" { return try await rulesSettings(request) }
        let parameters = try RequestParameters(urlQuery: request.uri.query)
        let requester = try access.requester(
            credential: credential(request, parameters.auth), override: parameters.authOverride, now: Access.now())
        let method = try effectiveMethod(request)
        let path = try DatabasePath.location(fromURLPath: request.uri.path)
        switch method {
        case .get:
            if request.headers[.accept]?.contains("text/event-stream") == true {
                return try EventStream.response(
                    path: path, parameters: parameters, feed: feed, events: events, channel: context.channel, options: options,
                    access: access, requester: requester)
            }
            return try await read(request, path, parameters, requester)
        case .put, .patch, .post, .delete:
            if options.readOnly {
                throw RequestError(.unauthorized, "the database is served read-only")
            }
            let body = method == .delete ? [] : try await collectBody(request)
            return try await write(method, path, body, parameters, request.headers, requester)
        default:
            throw RequestError(.methodNotAllowed, "\(method.rawValue) is not a database method (GET, PUT, PATCH, POST, DELETE)")
        }
    }

    // MARK: - Access

    /// The request's credential: `Authorization: Bearer T`, else `?auth=T` (who it names is
    /// `Access`'s to decide).
    private func credential(_ request: Request, _ fromQuery: String?) -> String? {
        if let header = request.headers[.authorization], header.hasPrefix("Bearer ") {
            return String(header.dropFirst(7))
        }
        return fromQuery
    }

    /// `/.settings/rules.json`, the admin's only: `GET` the rules in force (`format=strict`:
    /// without comments), `PUT` new ones (checked first; in force for the next request and
    /// every open stream, and written to the `--rules` file).
    private func rulesSettings(_ request: Request) async throws(RequestError) -> Response {
        var strict = false
        var auth: String?
        for item in (request.uri.query ?? "").split(separator: "&", omittingEmptySubsequences: true) {
            let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = percentDecoded(parts[0]), value = percentDecoded(parts.count > 1 ? parts[1] : "")
            switch name ?? "" {
            case "format":
                guard value == "strict" else { throw RequestError(.badRequest, "format must be strict, not '\(value ?? "")'") }
                strict = true
            case "auth": auth = value
            case "ns", "auth_variable_override": break
            default: throw RequestError(.badRequest, "unknown query parameter '\(name ?? String(parts[0]))'")
            }
        }
        guard access.isAdmin(credential(request, auth)) else { throw Access.permissionDenied }
        switch try effectiveMethod(request) {
        case .get:
            let rules = access.rules
            var bytes = rules.map { strict ? $0.json.serialized(.pretty) : $0.source }
                ?? (["rules": [".read": true, ".write": true]] as JSON).serialized(.pretty)
            bytes.append(0x0A)
            var fields = HTTPFields()
            fields[.contentType] = "application/json; charset=utf-8"
            return Response(status: .ok, headers: fields, body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
        case .put:
            let body = try await collectBody(request)
            let rules: SecurityRules
            do { rules = try SecurityRules(parsing: body) } catch {
                throw RequestError(.badRequest, error.description)
            }
            do { try access.replaceRules(rules, writingTo: options.rulesFile) } catch {
                throw RequestError(.internalServerError, error.description)
            }
            feed.recheckStreams()
            return Self.json(["status": "ok"], .compact, status: .ok, headers: [:])
        default:
            throw RequestError(.methodNotAllowed, "the rules are read with GET and replaced with PUT")
        }
    }

    /// The method, or for a POST the one `X-HTTP-Method-Override` names.
    private func effectiveMethod(_ request: Request) throws(RequestError) -> HTTPRequest.Method {
        guard let override = request.headers[HTTPField.Name("X-HTTP-Method-Override")!] else { return request.method }
        guard request.method == .post else {
            throw RequestError(.badRequest, "X-HTTP-Method-Override is only honoured on a POST")
        }
        switch override.uppercased() {
        case "PUT": return .put
        case "PATCH": return .patch
        case "DELETE": return .delete
        case "GET": return .get
        default: throw RequestError(.badRequest, "X-HTTP-Method-Override must be PUT, PATCH, DELETE or GET, not '\(override)'")
        }
    }

    /// The request's body, refused past the size limit without reading more of it.
    private func collectBody(_ request: Request) async throws(RequestError) -> [UInt8] {
        let limit = options.maxBodyBytes
        if let length = request.headers[.contentLength].flatMap({ Int($0) }), length > limit {
            throw RequestError(.contentTooLarge, "the body is \(length) bytes; the limit is \(limit)")
        }
        var bytes = [UInt8]()
        do {
            for try await buffer in request.body {
                guard bytes.count + buffer.readableBytes <= limit else {
                    throw RequestError(.contentTooLarge, "the body is larger than the limit of \(limit) bytes")
                }
                bytes.append(contentsOf: buffer.readableBytesView)
            }
        } catch let error as RequestError {
            throw error
        } catch {
            throw RequestError(.badRequest, "the body could not be read: \(error)")
        }
        return bytes
    }

    // MARK: - Reads

    private func read(
        _ request: Request, _ path: Path, _ parameters: RequestParameters, _ requester: Requester
    ) async throws(RequestError) -> Response {
        guard let revision = feed.latest else {
            throw RequestError(.serviceUnavailable, "the file has not been read yet")
        }
        try access.checkRead(requester, path, parameters, in: revision.document, now: Access.now())
        let headers = request.headers
        let wantsETag = headers[HTTPField.Name("X-Firebase-ETag")!] == "true"
        let ifNoneMatch = headers[.ifNoneMatch]
        if (wantsETag || ifNoneMatch != nil) && (parameters.query != nil || parameters.shallow) {
            throw RequestError(.badRequest, "ETags are not given for queries or shallow reads")
        }
        let needsETag = wantsETag || ifNoneMatch != nil
        let key: [UInt8] = [needsETag ? 0x45 : 0x2D] + Array(path.keys.joined(separator: "/").utf8) + [0] + parameters.answerKey
        let answer = await reads.answer(revision: revision.number, key: key) {
            let document = revision.document
            let value: JSON
            if let query = parameters.query {
                value = ServedValue.object(Window(query: query, path: path, document: document), export: parameters.export)
            } else if parameters.shallow {
                value = ServedValue.shallow(at: path, in: document)
            } else {
                value = ServedValue.value(at: path, in: document, export: parameters.export)
            }
            return CachedRead(body: Self.body(value, parameters.print), etag: needsETag ? ServedValue.etag(value) : nil)
        }
        var fields = HTTPFields()
        if let etag = answer.etag {
            fields[.eTag] = etag
            if ifNoneMatch == etag { return Response(status: .notModified, headers: fields) }
        }
        guard let body = answer.body else { return Response(status: .noContent, headers: fields) }
        fields[.contentType] = "application/json; charset=utf-8"
        return Response(status: .ok, headers: fields, body: ResponseBody(byteBuffer: body))
    }

    // MARK: - Writes

    private func write(
        _ method: HTTPRequest.Method, _ path: Path, _ body: [UInt8], _ parameters: RequestParameters, _ headers: HTTPFields,
        _ requester: Requester
    ) async throws(RequestError) -> Response {
        let content: JSON
        if method == .delete {
            content = .null
        } else {
            do {
                content = try JSONDocument(parsing: body).root.json
            } catch {
                throw RequestError(.badRequest, "the body is not valid JSON: \(error)")
            }
        }
        let plan = try WritePlan(method: method, path: path, content: content, ifMatch: headers[.ifMatch])
        let checkedPlan = plan.decided(by: access, for: requester)
        let outcome: WritePlan.Outcome
        do {
            outcome = try await store.apply(checkedPlan)
        } catch {
            throw RequestError(.internalServerError, error.description)
        }
        switch outcome {
        case .failed(let error):
            throw error
        case .preconditionFailed(let current):
            var error = RequestError(.preconditionFailed, "the value changed: its ETag is no longer the one given in if-match")
            // The current value and its ETag only to a requester the rules let read it.
            if let current {
                error.headers[.eTag] = ServedValue.etag(current)
                error.body = current.serialized(.compact)
            }
            throw error
        case .appended(let key):
            // No ETag: the log's value with the record is known only once the store reads it.
            if parameters.print == .silent { return Response(status: .noContent) }
            return Self.json(.object(JSONObject([("name", .string(key))])), parameters.print, status: .ok, headers: [:])
        case .written(let document, let pushKey):
            var fields = HTTPFields()
            if headers[.ifMatch] != nil || headers[HTTPField.Name("X-Firebase-ETag")!] == "true" {
                fields[.eTag] = ServedValue.etag(plan.value(in: document))
            }
            // A silent answer has no body: a large PATCH's written values are not gathered.
            if parameters.print == .silent { return Response(status: .noContent, headers: fields) }
            return Self.json(plan.answer(in: document, pushKey: pushKey), parameters.print, status: .ok, headers: fields)
        }
    }

    // MARK: - Responses

    static func json(_ value: JSON, _ print: RequestParameters.Print, status: HTTPResponse.Status, headers: HTTPFields) -> Response {
        var fields = headers
        guard let body = body(value, print) else { return Response(status: .noContent, headers: fields) }
        fields[.contentType] = "application/json; charset=utf-8"
        return Response(status: status, headers: fields, body: ResponseBody(byteBuffer: body))
    }

    /// The JSON text of a response, one line (or pretty), ending in a newline; nil when silent.
    static func body(_ value: JSON, _ print: RequestParameters.Print) -> ByteBuffer? {
        if print == .silent { return nil }
        var bytes = value.serialized(print == .pretty ? .pretty : .compact)
        bytes.append(0x0A)
        return ByteBuffer(bytes: bytes)
    }

    static func response(_ error: RequestError) -> Response {
        var fields = error.headers
        fields[.contentType] = "application/json; charset=utf-8"
        var bytes = error.body ?? JSON.object(JSONObject([("error", .string(error.message))])).serialized(.compact)
        bytes.append(0x0A)
        return Response(status: error.status, headers: fields, body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }
}

/// Compares two secrets in time that depends only on their lengths.
func constantTimeEquals(_ a: [UInt8], _ b: [UInt8]) -> Bool {
    guard a.count == b.count else { return false }
    var difference: UInt8 = 0
    for i in a.indices { difference |= a[i] ^ b[i] }
    return difference == 0
}
