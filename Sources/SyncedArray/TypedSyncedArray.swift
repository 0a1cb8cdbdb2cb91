// A synced array whose rows are decoded into a Swift type, row errors kept beside the rows.
import StoreInterface
import JSONTree
import LiveQuery

/// One row of a `TypedSyncedArray`: the child's key and its decoded value, or why it did not decode.
public struct TypedRow<Row> {
    public let key: String
    public let result: Result<Row, RowDecodingError>

    /// The decoded value; nil when the row did not decode.
    public var value: Row? { try? result.get() }
    /// Why the row did not decode; nil when it did.
    public var error: RowDecodingError? {
        if case .failure(let e) = result { e } else { nil }
    }
}

extension TypedRow: Sendable where Row: Sendable {}

/// A `SyncedArray` whose rows are decoded into `Row` with `JSONNodeDecoder`, straight from
/// the parsed tree.
///
/// A child that does not decode stays in the array as an error entry (`TypedRow.error`: key and
/// message), so the typed rows and the untyped ones have the same indexes and every batch or
/// event of `array` applies to both; `onRowErrors` hears of new failures, and the array goes on.
/// Only inserted and changed rows are decoded, so an update costs what it changed.
///
/// ```swift
/// struct Player: Decodable { var name: String; var score: Int }
/// let players = TypedSyncedArray<Player>(try store.reference(Path("/players")).orderByChild(Path("score")))
/// players.array.batchDelegate = table        // the same batches, for the typed rows too
/// players.onRowErrors = { errors in status.show("\(errors.count) rows did not decode") }
/// players.array.startSync()
/// let top = players[players.count - 1].value  // Player?
/// ```
public final class TypedSyncedArray<Row: Decodable>: RowMirror {
    /// The untyped array: set its delegates, start and stop it, replace its query, page it.
    public let array: SyncedArray
    public let decoder: JSONNodeDecoder
    /// The decoded rows, index for index with `array`.
    public private(set) var rows: [TypedRow<Row>]
    /// Called after each update that found rows that do not decode, with those rows' errors.
    public var onRowErrors: (([RowDecodingError]) -> Void)?
    /// How many rows are error entries.
    public private(set) var errorCount = 0
    private var newErrors: [RowDecodingError] = []

    /// A typed view of `array`, decoding its current rows now and its changes from now on.
    public init(_ array: SyncedArray, decoder: JSONNodeDecoder = JSONNodeDecoder()) {
        self.array = array
        self.decoder = decoder
        rows = []
        rows = array.rows.map(decode)
        errorCount = rows.reduce(0) { $0 + ($1.error == nil ? 0 : 1) }
        newErrors = []
        array.addMirror(self)
    }

    /// A typed array on a new `SyncedArray` (see its initialiser).
    public convenience init(
        _ reference: StoreReference, paging: Paging? = nil, cache: FirstPageCache? = nil,
        decoder: JSONNodeDecoder = JSONNodeDecoder()
    ) {
        self.init(SyncedArray(reference, paging: paging, cache: cache), decoder: decoder)
    }

    /// The row whose key has exactly these code units, or nil.
    public func index(ofKey key: String) -> Int? { array.index(ofKey: key) }

    /// The rows that did not decode, in row order.
    /// - Complexity: O(rows).
    public var rowErrors: [RowDecodingError] { rows.compactMap(\.error) }

    private func decode(_ row: SyncedRow) -> TypedRow<Row> {
        do {
            return TypedRow(key: row.key, result: .success(try decoder.decode(Row.self, from: row.value)))
        } catch {
            let failure = RowDecodingError(key: row.key, message: JSONNodeDecoder.describe(error))
            newErrors.append(failure)
            return TypedRow(key: row.key, result: .failure(failure))
        }
    }

    private func tally(_ row: TypedRow<Row>, _ sign: Int) {
        if row.error != nil { errorCount += sign }
    }

    // MARK: RowMirror

    func remove(at index: Int) { tally(rows.remove(at: index), -1) }

    func move(from: Int, to: Int) { rows.insert(rows.remove(at: from), at: to) }

    func insert(_ row: SyncedRow, at index: Int) {
        let typed = decode(row)
        tally(typed, 1)
        rows.insert(typed, at: index)
    }

    func change(_ row: SyncedRow, at index: Int) {
        tally(rows[index], -1)
        rows[index] = decode(row)
        tally(rows[index], 1)
    }

    func apply(_ batch: BatchDiff, _ newRows: [SyncedRow]) {
        rows = batch.apply(to: rows) { decode(newRows[$0]) }
        errorCount = rows.reduce(0) { $0 + ($1.error == nil ? 0 : 1) }
    }

    func finishUpdate() {
        guard !newErrors.isEmpty else { return }
        let errors = newErrors
        newErrors = []
        onRowErrors?(errors)
    }
}

extension TypedSyncedArray: RandomAccessCollection {
    public var startIndex: Int { 0 }
    public var endIndex: Int { rows.count }
    public subscript(i: Int) -> TypedRow<Row> { rows[i] }
}
