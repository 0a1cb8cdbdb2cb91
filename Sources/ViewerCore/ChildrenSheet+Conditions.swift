// `w`: expression filters typed in the viewer, stacked; `Esc` takes them off one at a time.
import Expressions
import JSONTree

extension ChildrenSheet {
    /// At most this many expressions are remembered for ↑ and ↓.
    static let conditionHistoryLimit = 100

    /// Puts `text` last in a prompt's recalled answers (once), the oldest dropped past the limit.
    static func remember(_ text: String, in history: inout [String]) {
        history.removeAll { $0.utf8.elementsEqual(text.utf8) }
        history.append(text)
        if history.count > conditionHistoryLimit { history.removeFirst() }
    }

    /// `w`: a prompt for a jq expression that rows must be true for; ↑ and ↓ recall earlier ones.
    func startCondition() {
        let n = query.conditions.count
        let narrows = n == 0 ? "" : " (narrows the \(n == 1 ? "filter" : "\(n) filters") in force; Esc removes the last)"
        mode = .prompt(Prompt(purpose: .condition, label: "where (jq)\(narrows): ", text: "", history: conditionHistory))
    }

    /// Adds the typed expression to the filters in force; a bad one is named at its place.
    func acceptCondition(_ text: String) {
        guard !text.trimmingSpaces.isEmpty else {
            message = Message(text: "no filter added", isError: false)
            return
        }
        Self.remember(text, in: &conditionHistory)
        do {
            let condition = try Expression(text)
            var next = query
            next.conditions.append(condition)
            replaceQuery(next)
            message = Message(text: "where \(condition.wordsAndEvaluator)", isError: false)
        } catch {
            message = Message(text: "not a filter: \(error)", isError: true)
        }
    }

    /// Esc: the last expression filter off.
    func dropCondition() {
        var next = query
        let dropped = next.conditions.removeLast()
        replaceQuery(next)
        message = Message(text: "no longer where \(dropped.words)", isError: false)
    }
}
