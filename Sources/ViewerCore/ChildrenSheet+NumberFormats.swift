// `%`: how a column shows its numbers (digits, thousands, bytes, a time); the values stay exact.
import TableUI

extension ChildrenSheet {
    /// `%`: a prompt for the format of the column under the cursor, naming the one in force.
    func startNumberFormat() {
        let spec = cursorSpec
        guard spec != .key else {
            message = Message(text: "the key column shows keys as they are", isError: true)
            return
        }
        let now = rows.columnSet.formats[spec].map { " (now \($0.typed))" } ?? ""
        mode = .prompt(Prompt(purpose: .numberFormat(spec: spec),
                              label: "numbers of \(spec.title)\(now): 2 digits, `,` thousands, b bytes, s or ms epoch time; empty: as written: ",
                              text: ""))
    }

    /// Sets the format typed; a format not understood changes nothing and says what is.
    func acceptNumberFormat(_ text: String, for spec: ColumnSpec) {
        let typed = text.trimmingSpaces
        let format = NumberFormat(typed: typed)
        guard typed.isEmpty || format != nil else {
            message = Message(text: "not a number format: \(typed) (a digit count 0 to 15, `,`, b, s or ms)", isError: true)
            return
        }
        var set = rows.columnSet
        set.setFormat(format, of: spec)
        setColumns(set, cursorOn: spec)
        message = Message(text: "\(spec.title): numbers \(format.map(Self.words) ?? "as written") (exports keep the exact values)", isError: false)
    }

    private static func words(_ format: NumberFormat) -> String {
        switch format {
        case .decimals(let n): "with \(n) \(n == 1 ? "digit" : "digits") after the point"
        case .thousands: "in thousands (1,234,567)"
        case .bytes: "as bytes (KiB, MiB)"
        case .epochSeconds: "as times (UTC) from epoch seconds"
        case .epochMilliseconds: "as times (UTC) from epoch milliseconds"
        }
    }
}
