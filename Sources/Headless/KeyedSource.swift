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
    do { return try KeyedStore(log: store, fold: fold) } catch { throw CommandError("\(store.name): \(error)") }
}
