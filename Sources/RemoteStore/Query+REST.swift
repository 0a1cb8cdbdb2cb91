// A query as the REST API's parameters, so that a server sends only the children it selects.
import JSONTree
import LiveQuery

extension Query {
    /// The query as REST parameters (`orderBy="score"&limitToLast=50`, values JSON-encoded);
    /// empty for no query; nil when the REST API cannot say it (a bound with a key), and the
    /// whole location must be read instead.
    ///
    /// The server's answer is an object of the selected children in no order: the query is
    /// evaluated again on it for their order, which gives the same window.
    public var restParameters: [(name: String, value: String)]? {
        // A server cannot filter: it is sent the range alone, and the filters and limit apply here.
        if !filters.isEmpty { return withoutFilters.withoutLimit.restParameters }
        guard explicitOrdering != nil || start != nil || end != nil || limit != nil else { return [] }
        var parameters: [(name: String, value: String)] = []
        let order: String
        switch ordering {
        case .key: order = "$key"
        case .value: order = "$value"
        case .priority: order = "$priority"
        case .child(let path): order = path.keys.joined(separator: "/")
        // A server cannot compute the value to order by: the whole location is read.
        case .computed: return nil
        }
        parameters.append(("orderBy", JSON.string(order).serializedString()))
        func bound(_ name: String, _ b: Bound) -> Bool {
            guard b.key == nil else { return false }
            parameters.append((name, b.value.serializedString()))
            return true
        }
        if isEqualTo, let start {
            guard bound("equalTo", start.bound) else { return nil }
        } else {
            switch start {
            case .at(let b)?: guard bound("startAt", b) else { return nil }
            case .after(let b)?: guard bound("startAfter", b) else { return nil }
            case nil: break
            }
            switch end {
            case .at(let b)?: guard bound("endAt", b) else { return nil }
            case .before(let b)?: guard bound("endBefore", b) else { return nil }
            case nil: break
            }
        }
        switch limit {
        case .first(let n)?: parameters.append(("limitToFirst", String(n)))
        case .last(let n)?: parameters.append(("limitToLast", String(n)))
        case nil: break
        }
        return parameters
    }
}
