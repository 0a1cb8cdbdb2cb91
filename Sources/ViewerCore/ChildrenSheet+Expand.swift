// `(` and `)`: an object column expanded into a column per member, and back.
import JSONTree

extension ChildrenSheet {
    /// `(`: the object column under the cursor becomes a column per member of the objects it
    /// holds in the rows loaded (`metrics/views`, `metrics/likes`), in order of first appearance.
    func expandColumn() {
        let index = table.state.selectedColumn ?? 0
        guard case .member(let path) = cursorSpec else {
            message = Message(text: "only a member column can be expanded", isError: true)
            return
        }
        var names = [String]()
        for row in rows.rows ?? [] {
            guard let node = row.value.node(at: path), node.kind == .object else { continue }
            for (key, _) in node.members {
                guard let name = key.stringValue, !name.hasPrefix("."),
                      !names.contains(where: { $0.utf8.elementsEqual(name.utf8) }) else { continue }
                names.append(name)
            }
        }
        guard !names.isEmpty else {
            message = Message(text: "\(cursorSpec.title) holds no object with members", isError: true)
            return
        }
        let members = names.map { ColumnSpec.member(path.child($0)) }
        let title = cursorSpec.title
        var set = rows.columnSet
        set.expand(at: index, into: members)
        set.recomputeNumeric(rows.rows ?? [])
        setColumns(set, cursorOn: members.first)
        message = Message(text: "\(title): \(members.map(\.title).joined(separator: ", "))", isError: false)
    }

    /// `)`: the member columns of the object the cursor's column is in go back into one column.
    func collapseColumn() {
        guard case .member(let path) = cursorSpec, let parent = path.parent, !parent.isRoot else {
            message = Message(text: "the column under the cursor is not a member of an expanded column", isError: true)
            return
        }
        var set = rows.columnSet
        guard set.collapse(into: parent) else { return }
        set.recomputeNumeric(rows.rows ?? [])
        setColumns(set, cursorOn: .member(parent))
        message = Message(text: "collapsed into \(ColumnSpec.member(parent).title)", isError: false)
    }
}
