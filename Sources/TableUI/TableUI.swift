// TableUI: a terminal table widget driven by batch updates, knowing nothing about JSON.
//
// The parts, each in its folder:
// - Text/      `displayWidth` (cells per grapheme, from Unicode data), `sanitize` (untrusted
//              text made safe: controls and bidi overrides as visible escapes, bad UTF-8 as
//              U+FFFD), `fit` (pad, align, cut with …).
// - Canvas/    the `Canvas` protocol the table draws into: `NcursesCanvas` (a terminal) and
//              `MemoryCanvas` (a grid of styled cells for tests and benchmarks).
// - Terminal/  `Terminal` owns ncurses for the program (locale, modes, colours, mouse,
//              restore on exit, signals and crashes) and reads `Key`s without blocking.
// - Table/     `TableView` with its `TableDataSource`, `TableState` (a value: scroll,
//              selection, animations), `TableBatch` (deletes/inserts/moves/reloads, read
//              like a list view's batch update), `TableSettings` and `TableTheme`.
//
// A program wires them like this (see `TableView` for the run loop):
//
//     final class People: TableDataSource {
//         var rows: [Person] = []
//         let columns = [TableColumn("name", maxWidth: 24), TableColumn("age", numeric: true)]
//         var numberOfRows: Int { rows.count }
//         func cells(ofRow row: Int) -> [String] { [rows[row].name, String(rows[row].age)] }
//     }
//
//     let terminal = try Terminal()                    // throws TerminalError: no TERM, not a tty…
//     defer { terminal.restore() }
//     let table = TableView(dataSource: people, settings: TableSettings(theme: terminal.theme))
//     people.rows = newRows                            // change the data source first,
//     try table.performBatchUpdates(TableBatch(oldCount: 10, deletes: [3], inserts: [0]))  // then say how
//     table.render(into: terminal.canvas)              // draws only the lines that changed
//     terminal.canvas.flush()
