// Opening what a command names: a file, standard input, or a database URL's location.
import FileStore
import KeyedStore
import JSONTree
import LiveQuery
import RemoteStore

/// The database location `source` names, or nil when it is a file (or `-`).
/// - Throws: `CommandError` for an `http://` or `https://` argument that is not a database URL.
public func databaseURL(_ source: String) throws(CommandError) -> DatabaseURL? {
    guard DatabaseURL.looksLikeURL(source) else { return nil }
    do { return try DatabaseURL(parsing: source) } catch { throw CommandError(error.description) }
}

/// A store following `source`: a database URL's location, a journal replayed, or the file (`-`:
/// standard input); or a command's output, run every interval, when `command` is given.
/// - Parameters:
///   - firstWindow: for a URL, the query the first screen shows (see `RemoteStore.Options`).
///   - fold: a log's records folded by a key (`--key`) instead of a child each.
///   - extras: recorded (`--record`), with rates (`--rate`, at `location`), cut (`--since`, `--until`: a journal).
public func openStore(_ source: String, credential: Credential?, file options: FileStore.Options,
               firstWindow: (path: Path, query: Query)? = nil, command: CommandSource? = nil,
               keyedBy fold: KeyedFold? = nil, extras: RevisionExtras = RevisionExtras(), location: Path = .root) throws(CommandError) -> any LiveStore {
    let journal = command == nil && source != "-" && isJournalFile(source)
    if !journal && (extras.since != nil || extras.until != nil) {
        throw CommandError("--since and --until cut a journal (one written by --record): \(source) is not one")
    }
    let store: any LiveStore
    if let command {
        store = try keyed(try openCommandStore(command), by: fold)
    } else if journal {
        store = try keyed(try openJournal(source, extras: extras), by: fold)
    } else {
        store = try keyed(try openPlainStore(source, credential: credential, file: options, firstWindow: firstWindow), by: fold)
    }
    return try applying(extras, to: store, location: location)
}

/// The store of a file, standard input or a database URL.
private func openPlainStore(_ source: String, credential: Credential?, file options: FileStore.Options,
                       firstWindow: (path: Path, query: Query)?) throws(CommandError) -> any LiveStore {
    do {
        if let url = try databaseURL(source) {
            return try RemoteStore(url: url, credential: credential,
                                   options: RemoteStore.Options(firstWindow: firstWindow))
        }
        return source == "-" ? try FileStore(stream: CommandIO.current.input, options: options) : try FileStore(path: source, options: options)
    } catch let error as CommandError {
        throw error
    } catch {
        throw CommandError("\(source): \(error)")
    }
}

/// One REST request to the database at `url`, waited for; its failure as a command error
/// (exit status 1; never with the token).
public func remoteRequest<T: Sendable>(_ url: DatabaseURL, _ credential: Credential?,
                                _ request: @escaping @Sendable (RestClient) async throws -> T) throws(CommandError) -> T {
    let client = RemoteClient()
    defer { try? client.syncShutdown() }
    let rest = RestClient(client: client, url: url, credential: credential)
    do {
        return try client.blocking { try await request(rest) }
    } catch {
        throw CommandError("\(error)", exitCode: 1, at: url.display)
    }
}

/// The children `query` selects at `path` below the URL's location, read with one GET: the
/// server applies the query when the REST API can say it (the first window of a large
/// location), and the same query is applied here for the order.
public func remoteWindow(_ url: DatabaseURL, _ credential: Credential?, path: Path, query: Query) throws(CommandError) -> Window {
    let location = url.location.appending(path)
    let parameters = query.restParameters ?? []
    let value = try remoteRequest(url, credential) { rest in
        do {
            return try await rest.get(location, parameters: parameters).value
        } catch let error as RemoteError where error.status == 400 && !parameters.isEmpty {
            // A database without an index for the query refuses it: read the whole location.
            return try await rest.get(location).value
        }
    }
    // The answer as the value at `path` of a document, so that the window's paths are the query's.
    var root = value
    for key in path.keys.reversed() { root = .object(JSONObject([(key: key, value: root)])) }
    return Window(query: query, path: path, document: JSONDocument(root))
}
