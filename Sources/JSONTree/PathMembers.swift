// What a writer's parse (`JSONDocument(parsing:keeping:)`) found in each object on its path,
// so that an edit there need not look through a large object's members again.

/// For each object on a pruned parse's path, by its tape index: the members whose key is the
/// path's next key, and its last member.
struct PathMembers: Sendable {
    struct Object: Sendable {
        /// The path's key in this object.
        var key: [UInt8]
        /// The tape indexes of the keys of the members named `key`, in file order.
        var matches: [Int] = []
        /// The tape index of its last member's key; -1 when it has none.
        var lastKey = -1
    }

    var objects: [Int: Object] = [:]
}
