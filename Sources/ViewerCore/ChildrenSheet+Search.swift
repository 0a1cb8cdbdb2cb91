// `/` search with n/N: a text in any key or cell of the location's children, over all of them
// (not only the rows loaded), evaluated off the loop thread for a large location.
import Dispatch
import StoreInterface
import JSONTree
import LiveQuery
import TableUI

/// The search in force and its latest matches.
struct SearchState {
    var pattern: SearchPattern?
    var context: SearchContext?
    var matches: [SearchMatch] = []
    /// Texts the regular expression took too long on, in the last search.
    var skipped = 0
    /// A search running on another thread, and where to go when it ends.
    var job: SearchJob?
    var pendingStep: SearchStep = .first
    /// A search asked for while a large log's older lines were still being read: it runs once
    /// they are (a search over the newest lines alone would miss the older matches).
    var waitsForEveryLine = false
    /// The match last landed on (its index in `matches`).
    var current: Int?
}

/// Where a search lands: from the selected row on, or the next / previous match.
enum SearchStep {
    case first, next, previous
}

/// A search on another thread; the loop thread collects its matches on a tick.
final class SearchJob: @unchecked Sendable {
    private let lock = DispatchSemaphore(value: 1)
    private var outcome: Result<SearchFindings, SearchCancelled>?
    let context: SearchContext
    /// Cancels it (Esc, Ctrl-C) and bounds a regular expression's time per text.
    let control = SearchControl()

    init(context: SearchContext) { self.context = context }

    /// The matches or why there are none, once it has ended (read on the loop thread).
    var result: Result<SearchFindings, SearchCancelled>? {
        lock.wait()
        defer { lock.signal() }
        return outcome
    }

    func finish(_ result: Result<SearchFindings, SearchCancelled>) {
        lock.wait()
        outcome = result
        lock.signal()
    }
}

extension ChildrenSheet {
    /// Over more children than this, a search runs on another thread (as a large first window does).
    static let inlineSearchLimit = 50_000

    /// `/`: a prompt for the text to find.
    func startSearch() {
        // Over all the children: a large log's older lines are read while the text is typed.
        needEveryRecord()
        let now = search.pattern.map { " (now \($0.description))" } ?? ""
        mode = .prompt(Prompt(purpose: .search, label: "search\(now), \\v for a regex, lower case ignores case, empty clears: ", text: ""))
    }

    /// The prompt's text: a new search from the selected row on.
    func acceptSearch(_ typed: String) {
        // A search still running is for the pattern this one replaces.
        search.job?.control.cancel()
        guard !typed.isEmpty else {
            // An empty search ends the one in force: no more highlights, n says there is none.
            search = SearchState()
            rows.highlight = nil
            message = Message(text: "search cleared", isError: false)
            return
        }
        let pattern: SearchPattern
        do {
            pattern = try SearchPattern(parsing: typed)
        } catch {
            message = Message(text: "\(error)", isError: true)
            return
        }
        search = SearchState(pattern: pattern)
        rows.highlight = pattern.matcher()
        runSearch(then: .first)
    }

    /// `n` / `N`: the next or previous match (wrapping), searching again when the file, the
    /// query or the columns changed since.
    func stepSearch(_ step: SearchStep) {
        guard search.pattern != nil else {
            message = Message(text: "no search yet: / finds a text", isError: false)
            return
        }
        if search.job != nil || search.waitsForEveryLine {
            search.pendingStep = step
            return
        }
        if search.context != searchContext() {
            runSearch(then: step)
        } else {
            land(step)
        }
    }

    /// What a search now would run on (nil before the first revision, or on a bad query).
    func searchContext() -> SearchContext? {
        guard let revision = store.currentRevision, var built = try? query.makeQuery() else { return nil }
        if query.isPaged { built = built.withoutLimit }
        return SearchContext(revision: revision.number, location: location, query: built, reversed: query.fromEnd,
                             columns: rows.columnSet.specs)
    }

    /// Finds the matches of the current pattern, here or (over a large location) on another
    /// thread, then lands per `step`.
    func runSearch(then step: SearchStep) {
        guard let pattern = search.pattern, let context = searchContext(), let revision = store.currentRevision else {
            message = Message(text: "nothing to search yet", isError: false)
            return
        }
        search.pendingStep = step
        if olderLinesPending {
            search.waitsForEveryLine = true
            needEveryRecord()
            message = Message(text: "searching for \(pattern.description) once every line is read…", isError: false)
            return
        }
        let children = revision.root.node(at: location).map { $0.count } ?? 0
        // A substring costs its text; a regular expression may cost far more (backtracking), so
        // it always runs off the loop thread, where Esc or Ctrl-C stops it.
        if children <= Self.inlineSearchLimit && !pattern.isRegex, let found = try? findMatches(pattern, in: revision.document, context) {
            search.context = context
            search.matches = found.matches
            search.skipped = found.skipped
            land(step)
            return
        }
        let job = SearchJob(context: context)
        search.job = job
        let document = revision.document
        DispatchQueue.global().async {
            job.finish(Result { () throws(SearchCancelled) in try findMatches(pattern, in: document, context, control: job.control) })
        }
        message = Message(text: "searching \(children) children for \(pattern.description)… (Esc stops)", isError: false)
    }

    /// Esc or Ctrl-C: stops a search that is running. Returns whether there was one.
    @discardableResult
    func interrupt() -> Bool {
        guard let job = search.job else { return false }
        job.control.cancel()
        search.job = nil
        message = Message(text: "search stopped", isError: false)
        return true
    }

    /// Whether a large log's older lines are not all read yet.
    private var olderLinesPending: Bool {
        guard let lines = storeStatus.lines else { return false }
        return lines.olderUnread || lines.olderRequested || lines.isPartial
    }

    /// On a tick: takes a finished search's matches and lands, or starts a search that waited
    /// for every line.
    func collectSearch() {
        if search.waitsForEveryLine && !olderLinesPending {
            search.waitsForEveryLine = false
            runSearch(then: search.pendingStep)
        }
        guard let job = search.job, let result = job.result else { return }
        search.job = nil
        guard case .success(let found) = result else { return }
        // The user went to another location or changed the query meanwhile: n searches afresh.
        guard let now = searchContext(), now.location == job.context.location, now.query == job.context.query,
            now.reversed == job.context.reversed
        else { return }
        search.context = job.context
        search.matches = found.matches
        search.skipped = found.skipped
        land(search.pendingStep)
    }

    /// While a search runs, the loop wakes soon to collect it.
    var searchDeadline: Double? {
        search.job == nil && !search.waitsForEveryLine ? nil : environment.clock.now() + 0.02
    }

    /// Selects the match `step` asks for, relative to the selected row, wrapping at the ends.
    private func land(_ step: SearchStep) {
        guard let pattern = search.pattern else { return }
        let matches = search.matches
        // Texts a regular expression took too long on are not known to match: say how many.
        let skipped = search.skipped == 0 ? "" : search.skipped == 1
            ? " (1 text skipped: the expression took more than \(SearchControl.defaultSecondsPerText) s on it)"
            : " (\(search.skipped) texts skipped: the expression took more than \(SearchControl.defaultSecondsPerText) s on each)"
        guard !matches.isEmpty else {
            search.current = nil
            message = Message(text: "no match for \(pattern.description)\(skipped)", isError: true)
            return
        }
        let selected = table.state.selection ?? 0
        var index: Int
        var wrapped = false
        switch step {
        case .first:
            index = matches.firstIndex { $0.row >= selected } ?? 0
            wrapped = matches[index].row < selected
        case .next:
            index = matches.firstIndex { $0.row > selected } ?? 0
            wrapped = matches[index].row <= selected
        case .previous:
            index = matches.lastIndex { $0.row < selected } ?? matches.count - 1
            wrapped = matches[index].row >= selected
        }
        search.current = index
        let match = matches[index]
        go(to: match)
        let note = wrapped ? (step == .previous ? " (wrapped to the bottom)" : " (wrapped to the top)") : ""
        message = Message(text: "match \(index + 1) of \(matches.count) for \(pattern.description)\(note)\(skipped)", isError: false)
    }

    /// Selects the match's row, loading the pages up to it when it is not loaded yet, and puts
    /// the column cursor on its column (the columns scroll to show it).
    private func go(to match: SearchMatch) {
        table.selectColumn(match.column)
        if let row = rows.tableRow(ofKey: match.key) {
            table.select(row: row)
            return
        }
        guard case .paged(let size, _) = query.limit, let array else { return }
        let pages = match.row / max(1, size) + 1
        query.limit = .paged(size: size, pages: pages)
        pendingSelection = match.key
        ownUpdateRequested(array) { array.showPages(pages) }
    }
}
