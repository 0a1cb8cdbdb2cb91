// What the command store's tests share: a command that prints prepared documents in turn, and
// how events are compared.
import JSONTree
import LiveQuery
import StoreInterface
import TestSupport

/// `sh -c …` printing `folder/doc1.json`, then `doc2.json`, … one a run, then the last one again.
func commandPrintingInTurn(_ folder: ScratchFolder, count: Int) -> [String] {
    ["/bin/sh", "-c", #"i=$(cat "$0/next" 2>/dev/null || echo 1); [ "$i" -gt "$1" ] && i=$1; echo $((i + 1)) > "$0/next"; cat "$0/doc$i.json""#,
     folder.path, String(count)]
}

/// A revision's events as text: each child event with its value, then the value event's keys.
func signature(_ change: WindowChange) -> [String] {
    change.events.map { event in
        switch event {
        case .child(let e): "\(e) = \(e.value.json.serializedString())"
        case .value(let window): "value \(window.keys)"
        }
    }
}
