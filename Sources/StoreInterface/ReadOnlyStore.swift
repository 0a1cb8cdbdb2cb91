// A store that is only read: what a command's output or a folded log refuse to take.
import JSONTree
import LiveQuery

/// A live store whose data no write can change (a command's output, a log folded by a key):
/// every write is refused with `WriteError.readOnly`, naming the store.
public protocol ReadOnlyStore: LiveStore {}

extension ReadOnlyStore {
    public var isAppendOnly: Bool { false }
    public var hasWritesInProgress: Bool { false }

    public func startWrite(_ writes: [JSONWrite], watching path: Path, ifStill expected: JSON??,
                           done: @escaping (Result<WatchedWrite, WriteError>) -> Void) {
        done(.failure(.readOnly(path: name)))
    }

    public func append(_ value: JSON, under path: Path) throws(WriteError) -> String {
        throw .readOnly(path: name)
    }
}
