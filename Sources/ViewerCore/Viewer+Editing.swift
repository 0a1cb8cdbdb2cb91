// The edit keys: writes through the store (atomic, minimal, re-applied if the file changed).
import FileStore
import JSONTree
import LiveQuery

extension Viewer {
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
        }
    }

    /// `e`: a prompt prefilled with the cell's value.
    func startEdit() {
        guard let (path, node) = selectedCellPath() else { return }
        mode = .prompt(Prompt(purpose: .edit(path: path), label: "\(path) = ", text: editableText(node)))
    }

    /// `+` / `-`: a server increment, so a concurrent change by another process is not lost.
    func increment(by delta: Int) {
        guard let (path, node) = selectedCellPath() else { return }
        if let node, !node.isNull, node.kind != .number {
            message = Message(text: "\(path) is not a number", isError: true)
            return
        }
        let increment: JSON = [".sv": ["increment": .number(JSONNumber(delta))]]
        write(JSONWrite.set(path, increment), done: "\(path) \(delta > 0 ? "+" : "-")1")
    }

    /// `d`: asks before deleting the selected child.
    func askToDelete() {
        guard let (key, _) = selectedChild else { return }
        let path = location.child(key)
        mode = .confirm(Confirmation(question: "delete \(path)? (y/n)", path: path))
    }

    func remove(_ path: Path) {
        write(JSONWrite.remove(path), done: "deleted \(path)")
    }

    /// `a`: a prompt for a new child's value, prefilled with an object of the table's columns.
    func startAdd() {
        var members: [(key: String, value: JSON)] = []
        for spec in rows.columnSet.specs {
            guard case .member(let path) = spec, path.keys.count == 1 else { continue }
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
        case .filter(_, let ordering):
            var next = query
            if prompt.text.isEmpty {
                next.clearFilter()
            } else if prompt.text.count > 1, prompt.text.hasSuffix("*") {
                next.setFilter(.prefix(String(prompt.text.dropLast())), ordering: ordering)
            } else {
                next.setFilter(.equal(typedValue(prompt.text), text: prompt.text), ordering: ordering)
            }
            replaceQuery(next)
        case .edit(let path):
            write(JSONWrite.set(path, typedValue(prompt.text)), done: "set \(path)")
        case .add:
            guard !prompt.text.isEmpty else {
                message = Message(text: "nothing added", isError: false)
                return
            }
            let target = location
            var key = ""
            writesInFlight += 1
            key = store.startPush(target, typedValue(prompt.text)) { [weak self] result in
                guard let self else { return }
                writesInFlight -= 1
                switch result {
                case .success:
                    if let row = rows.tableRow(ofKey: key) { table.select(row: row) } else { pendingSelection = key }
                    message = Message(text: "added \(target.child(key))", isError: false)
                case .failure(let error):
                    message = Message(text: "not added: \(error)", isError: true)
                }
            }
        }
    }

    /// Writes off the loop thread (a write may wait for another writer's lock), saying what
    /// happened in the message line when it has.
    private func write(_ writes: [JSONWrite], done: String) {
        writesInFlight += 1
        store.startWrite(writes) { [weak self] result in
            self?.writesInFlight -= 1
            switch result {
            case .success: self?.message = Message(text: done, isError: false)
            case .failure(let error): self?.message = Message(text: "not written: \(error)", isError: true)
            }
        }
    }
}
