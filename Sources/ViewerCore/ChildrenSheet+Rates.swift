// `R`: a rate column of the numeric column under the cursor, added by the store of rates.
import JSONTree
import RateStore

extension ChildrenSheet {
    /// Asks the store of rates (`RateStore`) for the per-second rate of the column under the cursor
    /// between revisions, and shows it after that column.
    func addRateColumn() {
        guard case .member(let path) = cursorSpec, path.keys.first != rateMember else {
            message = Message(text: "a rate is of a number: move the column cursor (← →) to a numeric column", isError: true)
            return
        }
        guard let rates = store as? RateStore else {
            message = Message(text: "rates of a file or a database: start with --rate \(path.keys.joined(separator: "/"))", isError: true)
            return
        }
        let column = RateColumn(location: location, column: path)
        rates.add(column)
        var set = rows.columnSet
        set.addMember(column.ratePath, at: (table.state.selectedColumn ?? 0) + 1)
        setColumns(set, cursorOn: .member(column.ratePath))
        message = Message(text: "\(column.ratePath.keys.joined(separator: "/")): per second between the last two revisions (reset: it went down)", isError: false)
    }
}
