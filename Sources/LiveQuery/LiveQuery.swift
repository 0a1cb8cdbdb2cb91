// LiveQuery: Realtime Database queries over JSON revisions — windows, events, batches, push ids.
//
// A revision is a parsed `JSONDocument`. A `Query` orders, filters and limits the children of one
// location; a `Window` is its result over one revision; `Window.advanced(to:)` moves it to the next
// revision and returns a `WindowChange`: the database's child events (with `prevKey`, in its order,
// replaying exactly) and the same change as a `BatchDiff` for list views. Nothing here does I/O.
//
// ```swift
// import JSONTree
// import LiveQuery
//
// let query = try Query().orderByChild("score").startAt(10).limitToLast(50)
// var window = Window(query: query, path: try Path("/players"), document: try JSONDocument(parsing: bytes))
// for event in WindowChange.initial(window).events { print(event.name) }  // child_added…, value
//
// // Each new revision of the file:
// let change = window.advanced(to: try JSONDocument(parsing: newBytes))
// for case .child(let e) in change.events {
//     print(e.kind.rawValue, e.key, e.prevKey ?? "null", e.value.json)
// }
// rows = change.batch.apply(to: rows) { i in change.new[i] }   // or drive a list view's batch update
// window = change.new
//
// let key = PushIDGenerator().next()  // a new child's key, sorting after every earlier one
// ```
//
// Keys and strings are compared by code units (`nameCompare`, `utf16Compare`), never with
// `String ==` or `<`, which treat "é" and "e\u{301}" as equal.
