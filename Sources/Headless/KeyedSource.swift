// `--key` and `--delete-when`: a log folded into one child per key.
import Expressions
import JSONTree
import KeyedStore
import StoreInterface

/// The fold `--key` and `--delete-when` ask for; nil without `--key`.
/// - Throws: `CommandError` (exit status 2) naming the flag of an expression that does not parse,
///   or `--delete-when` without `--key`.
public func keyedFold(key: String?, deleteWhen: String?) throws(CommandError) -> KeyedFold? {
    guard let key else {
        if deleteWhen != nil { throw CommandError("--delete-when needs --key: which child a record removes is its key's") }
        return nil
    }
    func parsed(_ text: String, _ flag: String) throws(CommandError) -> Expression {
        do { return try Expression(text, context: flag) } catch {
            throw CommandError("\(flag) \(JSON.string(text).serializedString()): \(error)")
        }
    }
    return KeyedFold(key: try parsed(key, "--key"), deleteWhen: try deleteWhen.map { text throws(CommandError) in try parsed(text, "--delete-when") })
}

/// `store` seen through `fold` when there is one (see `KeyedStore`).
func keyed(_ store: any LiveStore, by fold: KeyedFold?) throws(CommandError) -> any LiveStore {
    guard let fold else { return store }
    let keyed: KeyedStore
    do { keyed = try KeyedStore(log: store, fold: fold) } catch { throw CommandError("\(store.name): \(error)") }
    // A journal's revisions wait while the fold's first window is evaluated (they would be missed).
    replayedJournal(store)?.waits { [unowned keyed] in keyed.hub.isEvaluatingFirstWindows }
    return keyed
}

/// The records of the JSON Lines file `file` folded by `fold` as they are read, a piece at a
/// time and a line at a time: only each key's latest record is held, never the log, so
/// `list --key` of a long log costs about its table. Nil when the file cannot be opened and read
/// as a regular file (the caller then reads it the usual way and reports why).
public func foldedRecords(_ file: String, by fold: KeyedFold) -> KeyedFold? {
    var fold = fold
    // A line cut by a piece's end waits for the next piece.
    var unfinished = [UInt8]()
    let read = readPieces(file, size: 64 << 10) { piece, _ in
        guard let last = piece.lastIndex(of: UInt8(ascii: "\n")) else { return unfinished.append(contentsOf: piece) }
        var whole = piece[..<(last + 1)]
        if !unfinished.isEmpty, let first = piece.firstIndex(of: UInt8(ascii: "\n")) {
            unfinished.append(contentsOf: piece[...first])
            unfinished.withUnsafeBufferPointer { fold.foldLines($0) }
            unfinished.removeAll(keepingCapacity: true)
            whole = piece[(first + 1)..<(last + 1)]
        }
        fold.foldLines(UnsafeBufferPointer(rebasing: whole))
        unfinished.append(contentsOf: piece[(last + 1)...])
    }
    guard read else { return nil }
    if !unfinished.isEmpty { unfinished.withUnsafeBufferPointer { fold.foldLines($0) } }
    return fold
}
