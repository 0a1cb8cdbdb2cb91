// `E`: the table written to a file — its rows in order, the columns shown — by the file's extension.
#if canImport(Glibc)
import Glibc
#endif
import JSONTree
import LiveQuery

extension ChildrenSheet {
    /// `E`: a prompt for the file to write.
    func startExport() {
        mode = .prompt(Prompt(purpose: .export, label: "write the table to (.records.json as shown; .json, .jsonl key and value; .csv, .tsv): ", text: ""))
    }

    /// Writes to the file named, asking first when it exists.
    func acceptExport(_ text: String) {
        let file = text.trimmingSpaces
        guard !file.isEmpty else {
            message = Message(text: "nothing written", isError: false)
            return
        }
        guard let format = ExportFormat(fileName: file) else {
            message = Message(text: "\(file): the name must end in .records.json, .json, .jsonl, .csv or .tsv", isError: true)
            return
        }
        if access(file, F_OK) == 0 {
            mode = .confirm(Confirmation(question: "\(file) exists: replace it? (y/n)", action: .overwrite(file: file, format: format)))
            return
        }
        export(to: file, format: format)
    }

    /// Writes every row the query and filters select (not only the pages loaded), in the order
    /// shown, with the columns shown, atomically.
    func export(to file: String, format: ExportFormat) {
        guard let revision = store.currentRevision, var built = try? query.makeQuery() else {
            message = Message(text: "nothing to write yet", isError: true)
            return
        }
        if query.isPaged { built = built.withoutLimit }
        let window = Window(query: built, path: location, document: revision.document)
        let columns = rows.columnSet.specs.compactMap { spec -> ExportColumn? in
            switch spec {
            case .key: nil
            case .value: ExportColumn(title: "value") { $0.isNull ? nil : $0.json }
            case .member(let path): .member(path)
            case .computed(let column): .computed(column)
            // A trend is the viewer's picture of the history, not the child's data.
            case .spark: nil
            }
        }
        let export = RowExport(format: format, columns: columns)
        let reversed = query.displayReversed
        let ordered = (0..<window.count).lazy.map { i in
            let row = window[reversed ? window.count - 1 - i : i]
            return (key: row.key, value: row.value)
        }
        do {
            try writeAtomically(to: file) { out, drain in export.write(ordered, to: &out, drain: drain) }
            message = Message(text: "wrote \(window.count) \(window.count == 1 ? "row" : "rows") to \(file)", isError: false)
        } catch {
            message = Message(text: "not written: \(file): \(error)", isError: true)
        }
    }
}

/// A file that could not be written, with the call that failed and its `errno` text.
struct ExportError: Error, CustomStringConvertible {
    let description: String
    init(_ call: String) { description = "\(call): \(String(cString: strerror(errno)))" }
}

/// Writes what `produce` appends (handing over each full buffer to `drain`) to a temporary file
/// beside `path`, syncs it and renames it over `path`: a reader sees the old file or the whole
/// new one, never a part.
func writeAtomically(to path: String, _ produce: (inout [UInt8], (inout [UInt8]) -> Void) -> Void) throws(ExportError) {
    let slash = path.lastIndex(of: "/")
    let folder = slash.map { String(path[...$0]) } ?? ""
    let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
    var template = Array("\(folder).\(name).XXXXXX".utf8CString)
    let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
    guard fd >= 0 else { throw ExportError("mkstemp") }
    // No command the viewer runs is to hold it (Glibc's module map leaves out `mkostemp`).
    _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
    let temporary = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    var failure: ExportError?
    func flush(_ bytes: inout [UInt8]) {
        var offset = 0
        while failure == nil && offset < bytes.count {
            let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if n < 0 {
                if errno != EINTR { failure = ExportError("write") }
                continue
            }
            offset += n
        }
        bytes.removeAll(keepingCapacity: true)
    }
    var out = [UInt8]()
    produce(&out, flush)
    flush(&out)
    if failure == nil && fchmod(fd, 0o644) != 0 { failure = ExportError("fchmod") }
    if failure == nil && fsync(fd) != 0 { failure = ExportError("fsync") }
    close(fd)
    if failure == nil && rename(temporary, path) != 0 { failure = ExportError("rename") }
    if let failure {
        unlink(temporary)
        throw failure
    }
}
