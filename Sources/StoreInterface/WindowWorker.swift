// Evaluating a query's first window off the loop thread, for a location with many children.
import Dispatch
import JSONTree
import LiveQuery
import Synchronization

/// A group's first window, evaluated on the worker for a revision.
struct EvaluatedWindow: Sendable {
    let group: Int
    let revision: Int
    let window: Window
}

/// Evaluates first windows on a serial queue and signals `wake` when one is ready.
///
/// A store that also reads off the loop thread runs its reads on the same `queue` (one worker
/// thread per store): an evaluation then sees the revisions read before it.
package final class WindowWorker: Sendable {
    /// The store's one worker queue.
    package let queue: DispatchQueue
    package let wake: WakeSignal
    private let evaluated = Mutex<[EvaluatedWindow]>([])
    /// Groups whose queued evaluation is still wanted; one no longer here is skipped.
    private let wantedEvaluations = Mutex<Set<Int>>([])

    package init(wake: WakeSignal, label: String) {
        self.wake = wake
        queue = DispatchQueue(label: label, qos: .userInitiated)
    }

    /// Evaluates `query` at `path` of `revision` after the work already queued, unless
    /// `keepEvaluations` drops the group first (reads then do not wait for it).
    func evaluate(group: Int, query: Query, path: Path, revision: Revision) {
        wantedEvaluations.withLock { _ = $0.insert(group) }
        queue.async { [self] in
            guard wantedEvaluations.withLock({ $0.contains(group) }) else { return }
            let window = Window(query: query, path: path, document: revision.document)
            wantedEvaluations.withLock { _ = $0.remove(group) }
            evaluated.withLock { $0.append(EvaluatedWindow(group: group, revision: revision.number, window: window)) }
            wake.signal()
        }
    }

    /// Drops the queued evaluations of groups other than `groups` (removed, or given a window).
    func keepEvaluations(for groups: Set<Int>) {
        wantedEvaluations.withLock { $0.formIntersection(groups) }
    }

    func takeEvaluatedWindows() -> [EvaluatedWindow] {
        evaluated.withLock { windows in
            defer { windows.removeAll() }
            return windows
        }
    }
}
