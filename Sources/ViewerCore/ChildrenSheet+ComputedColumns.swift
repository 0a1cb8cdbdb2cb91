// `=`: columns computed from each row by a jq expression, shown, sorted and filtered like the others.
import JSONTree

extension ChildrenSheet {
    /// `=`: a prompt for a computed column's definition (`ratio = .score / .level`, or an
    /// expression); ↑ and ↓ recall earlier ones.
    func startComputedColumn() {
        let after = table.state.selectedColumn ?? 0
        mode = .prompt(Prompt(purpose: .computedColumn(after: after), label: "computed column (name = jq expression): ", text: "",
                              history: computedHistory))
    }

    /// Adds the typed column after column `after`, the cursor on it; a bad expression is named at
    /// its place and nothing changes.
    func acceptComputedColumn(_ text: String, after: Int) {
        guard !text.trimmingSpaces.isEmpty else {
            message = Message(text: "no column added", isError: false)
            return
        }
        Self.remember(text, in: &computedHistory)
        let column: ComputedColumn
        do {
            column = try ComputedColumn(definition: text)
        } catch {
            message = Message(text: "not a computed column: \(error)", isError: true)
            return
        }
        var set = rows.columnSet
        guard set.addComputed(column, at: after + 1) else {
            setColumns(set, cursorOn: .computed(column))
            message = Message(text: "\(column.title) is already a column", isError: false)
            return
        }
        set.recomputeNumeric(rows.rows ?? [])
        setColumns(set, cursorOn: .computed(column))
        // Which evaluator computes it: libjq costs more per row than the native subset.
        message = Message(text: "added \(column.definition), run \(column.expression.evaluator.rawValue) (s sorts by it, f filters it, x hides it)",
                          isError: false)
    }
}
