// The edit keys: writes through the store (atomic, minimal, re-applied if the file changed),
// off the loop thread (see `recordedWrite`).
import StoreInterface
import JSONTree
import LiveQuery

extension ChildrenSheet {
    /// The path of the selected cell's value, or nil (with a message) when it cannot be written.
    private func selectedCellPath() -> (path: Path, node: JSONNode?)? {
        guard let (key, child) = selectedChild else {
            message = Message(text: "no row selected", isError: true)
            return nil
        }
        let childPath = location.child(key)
        switch cursorSpec {
        case .key:
            message = Message(text: "a key cannot be edited: move the column cursor (← →) to a value", isError: true)
            return nil
        case .value: return (childPath, child)
        case .member(let path): return (childPath.appending(path), child.node(at: path))
        case .spark:
            message = Message(text: "a trend column shows the history: move the column cursor (← →) to a value", isError: true)
            return nil
        case .computed(let column):
            message = Message(text: "\(column.title) is computed from the row (\(column.expressionText)): edit the values it reads", isError: true)
            return nil
        }
    }

    /// `e`: a prompt prefilled with the cell's value.
    func startEdit() {
        guard mayWrite("e"), let (path, node) = selectedCellPath() else { return }
        let basis = node.flatMap { $0.isNull ? nil : $0.json }
        mode = .prompt(Prompt(purpose: .edit(path: path, basis: basis), label: "\(path) = ", text: editableText(node)))
    }

    /// The value at `path` in the current revision (nil: missing).
    private func currentValue(at path: Path) -> JSON? {
        store.currentRevision?.root.node(at: path).flatMap { $0.isNull ? nil : $0.json }
    }

    /// Before each frame: an edit prompt whose value another writer changed says so, and its
    /// write is then based on the value it showed (Enter overwrites what the user saw).
    func notePromptChanges() {
        guard case .prompt(var prompt) = mode, case .edit(let path, let basis) = prompt.purpose,
            store.currentRevision != nil, case let now = currentValue(at: path), now != basis
        else { return }
        prompt = Prompt(purpose: .edit(path: path, basis: now), label: prompt.label, text: prompt.text,
                        note: "\(path) is now \(shown(now)) — Enter overwrites, Ctrl-R reloads")
        mode = .prompt(prompt)
    }

    /// Ctrl-R in an edit prompt: its text becomes the value now there.
    func reloaded(_ prompt: Prompt) -> Prompt {
        guard case .edit(let path, _) = prompt.purpose else { return prompt }
        let now = currentValue(at: path)
        return Prompt(purpose: .edit(path: path, basis: now), label: prompt.label,
                      text: editableText(store.currentRevision?.root.node(at: path)))
    }

    /// `+` / `-`: a server increment, so a concurrent change by another process is not lost.
    func increment(by delta: Int) {
        guard mayWrite(delta > 0 ? "+" : "-"), let (path, node) = selectedCellPath() else { return }
        if let node, !node.isNull, node.kind != .number {
            message = Message(text: "\(path) is not a number", isError: true)
            return
        }
        let increment: JSON = [".sv": ["increment": .number(JSONNumber(delta))]]
        recordedWrite(JSONWrite.set(path, increment), at: path) { before, after in
            "\(path) \(delta > 0 ? "+" : "-")1: \(shown(before)) → \(shown(after))"
        }
    }

    /// `d`: asks before deleting the selected child.
    func askToDelete() {
        guard mayWrite("d"), let (key, _) = selectedChild else { return }
        let path = location.child(key)
        mode = .confirm(Confirmation(question: "delete \(path)? (y/n)", action: .delete(path)))
    }

    func remove(_ path: Path) {
        recordedWrite(JSONWrite.remove(path), at: path) { _, _ in "deleted \(path) (u undoes)" }
    }

    /// `a`: a prompt for a new child's value, prefilled with an object of the table's columns;
    /// it goes at an array's next index, else under a push id.
    func startAdd() {
        guard mayWrite("a", changes: false) else { return }
        var members: [(key: String, value: JSON)] = []
        for spec in rows.columnSet.specs {
            guard case .member(let path) = spec, path.keys.count == 1, path.keys[0] != JSONLinesBuilder.errorMember else { continue }
            members.append((path.keys[0], emptyValue(like: spec)))
        }
        let template = members.isEmpty ? "" : JSON.object(JSONObject(members)).serializedString()
        mode = .prompt(Prompt(purpose: .add, label: "new child of \(location) = ", text: template))
    }

    /// An empty value of the kind the rows hold in column `spec` (the first row that has one):
    /// `0`, `false`, `{}`, `[]`, or `""`.
    private func emptyValue(like spec: ColumnSpec) -> JSON {
        let node = (rows.rows ?? []).lazy.compactMap { spec.node(in: $0.value) }.first { !$0.isNull }
        switch node?.kind {
        case .number?: return 0
        case .bool?: return false
        case .object?: return .object(JSONObject())
        case .array?: return .array([])
        default: return ""
        }
    }

    /// An accepted prompt.
    func accept(_ prompt: Prompt) {
        switch prompt.purpose {
        case .filter(let spec, let ordering):
            var next = query
            let filter = ViewQuery.Filter(typed: prompt.text)
            if let filter {
                next.setFilter(filter, ordering: ordering)
            } else {
                next.clearFilter()
            }
            let strings = filter.flatMap { stringsHint($0, column: spec) }
            if replaceQuery(next), let strings { message = Message(text: strings, isError: false) }
        case .search:
            acceptSearch(prompt.text)
        case .condition:
            acceptCondition(prompt.text)
        case .computedColumn(let after):
            acceptComputedColumn(prompt.text, after: after)
        case .export:
            acceptExport(prompt.text)
        case .answer(let take):
            take(prompt.text)
        case .numberFormat(let spec):
            acceptNumberFormat(prompt.text, for: spec)
        case .showColumn(let hidden):
            acceptShowColumn(prompt.text, hidden: hidden)
        case .edit(let path, let basis):
            recordedWrite(JSONWrite.set(path, typedValue(prompt.text)), at: path, ifStill: .some(basis)) { before, after in
                "set \(path): \(shown(before)) → \(shown(after))"
            }
        case .add:
            guard !prompt.text.isEmpty else {
                message = Message(text: "nothing added", isError: false)
                return
            }
            if store.isAppendOnly {
                let value = typedValue(prompt.text)
                // Read back, a record with the marker would read as a bad line.
                if case .object(let members) = value, members[JSONLinesBuilder.errorMember] != nil {
                    message = Message(text: "not added: \(JSONLinesBuilder.errorMember) marks a line that is not JSON, so no record holds it",
                                      isError: true)
                    return
                }
                // A log takes a new line with one append, which never waits for a lock.
                do {
                    let key = try store.append(value, under: location)
                    pendingSelection = key
                    message = Message(text: "added \(location.child(key))", isError: false)
                } catch {
                    message = Message(text: "not added: \(error)", isError: true)
                }
                return
            }
            // As `synctable push`: an array's next index (an array takes no other key), else a
            // push id. Written only while the key is free, so that an element another writer
            // appended meanwhile is not replaced.
            let key = store.currentRevision?.document.pushKey(under: location) ?? PushIDGenerator.shared.next()
            let path = location.child(key)
            recordedWrite(JSONWrite.set(path, typedValue(prompt.text)), at: path, ifStill: .some(nil)) { [weak self] _, _ in
                if let self {
                    if let row = rows.tableRow(ofKey: key) { table.select(row: row) } else { pendingSelection = key }
                }
                return "added \(path)"
            }
        }
    }

    /// When a filter's value is a number (or true, false) and the column holds strings, which
    /// it cannot match (the database's equalTo compares the type first): says so and gives the
    /// quoted form.
    private func stringsHint(_ filter: ViewQuery.Filter, column spec: ColumnSpec) -> String? {
        guard case .equal(let value, let text) = filter, spec != .key else { return nil }
        switch value {
        case .number, .bool: break
        default: return nil
        }
        let values = (rows.rows ?? []).lazy.compactMap { spec.node(in: $0.value) }.filter { !$0.isNull }
        guard !values.isEmpty, values.allSatisfy({ $0.kind == .string }) else { return nil }
        let quoted = JSON.string(text.trimmingSpaces).serializedString()
        return "\(spec.title) holds strings, and \(text.trimmingSpaces) is not one (values of another type never match): f \(quoted) finds the string"
    }
}
