// A query ordered by a member no child has: said on standard error.
import JSONTree
import LiveQuery

/// A warning on standard error when no child of `window` has the path it is ordered by
/// (`--order-by-child vists`: every child sorts as missing), naming the members they have.
public func warnOfUnknownOrder(_ window: Window) {
    guard case .child(let path) = window.query.ordering, !window.isEmpty,
        !window.contains(where: { $0.value.node(at: path) != nil })
    else { return }
    var names: [String] = []
    for row in window.prefix(100) {
        for (key, _) in row.value.members {
            guard let name = key.stringValue, !names.contains(name) else { continue }
            names.append(name)
        }
    }
    let had = names.isEmpty ? "no members" : names.prefix(20).map { JSON.string($0).serializedString() }.joined(separator: ", ")
    printError("warning: no child has \(JSON.string(path.keys.joined(separator: "/")).serializedString()) (--order-by-child): "
        + "all sort as missing, by key; the children have \(had)")
}

