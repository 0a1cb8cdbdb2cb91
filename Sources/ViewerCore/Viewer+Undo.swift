// Read-only (the default, without `--edit`), and `u` / `U`: undoing and redoing the viewer's own writes, each as a compare-and-swap.
#if canImport(Glibc)
import Glibc
#endif
import StoreInterface
import JSONTree

/// Why the viewer's keys do not write.
enum ReadOnlyReason: Equatable {
    /// Started without `--edit`: a guest, as every viewer is by default.
    case guest
    /// The file's permission bits forbid writing (the file's name); the status bar says
    /// READ-ONLY, as the user did not choose it.
    case unwritable(String)
}

/// One write the viewer made, to undo.
struct UndoStep {
    let path: Path
    /// The value before the write and after it (nil: missing).
    let before: JSON?
    let after: JSON?
    /// The first revision (number and time) in which the value was no longer `after`.
    var changedIn: (number: Int, time: String)?
}

extension Viewer {
    /// The most writes `u` can undo.
    static let undoLimit = 100

    /// Why the viewer does not write, or nil when it does. A file the user cannot write is
    /// named first: `--edit` would not help there.
    static func readOnlyReason(options: ViewerOptions) -> ReadOnlyReason? {
        if !fileIsWritable(options.file) { return .unwritable(baseName(options.file)) }
        return options.edit ? nil : .guest
    }

    /// Says why a write key does nothing when read-only; true when it may go on.
    /// - Parameter changes: the key changes what is there (e, d, +, -, u), which a JSON Lines
    ///   file, only ever appended to, refuses at once (before a prompt or a question).
    func mayWrite(_ what: String, changes: Bool = true) -> Bool {
        if let refusal = children.historyRefusal("writing (\(what))") {
            message = Message(text: refusal, isError: true)
            return false
        }
        switch readOnlyReason {
        case .guest?:
            message = Message(text: "read-only: \(what) does not write — start with --edit to change the file", isError: true)
            return false
        case .unwritable(let name)?:
            message = Message(text: "read-only (\(name) is not writable): \(what) does not write", isError: true)
            return false
        case nil: break
        }
        if let connection = storeStatus.connection, !connection.isOnline {
            // Refused rather than queued: a queued edit would land later on values the user no
            // longer sees, and a compare-and-swap needs the server's current value.
            message = Message(text: "not connected: \(what) does not write until the server is reached again (edits are not queued)",
                              isError: true)
            return false
        }
        if changes && store.isAppendOnly {
            let add = keyLabel(of: .add).map { " (\($0) adds a line)" } ?? ""
            message = Message(text: "\(baseName(options.file)) is a log, only appended to: \(what) cannot change a line\(add)",
                              isError: true)
            return false
        }
        return true
    }

    /// The first key bound to `action`, as the help screen writes it (nil: unbound).
    func keyLabel(of action: ViewerAction) -> String? {
        options.keyBindings.first { $0.action == action && !$0.keys.isEmpty }
            .map { $0.label.split(separator: " ").first.map(String.init) ?? $0.label }
    }

    /// Writes off the loop thread (a write may wait for another writer's lock) and, once it is
    /// done, remembers the step for `u` and says what happened with `describe` (the values
    /// before and after), or why nothing was written.
    /// With `expected`, only while the value at `path` is still that (a compare-and-swap).
    func recordedWrite(_ writes: [JSONWrite], at path: Path, ifStill expected: JSON?? = nil,
                       describe: @escaping (JSON?, JSON?) -> String) {
        store.startWrite(writes, watching: path, ifStill: expected) { [weak self] result in
            guard let self else { return }
            switch result {
            case .success(let done) where !done.applied:
                message = Message(text: "not written: \(path) changed to \(shown(done.after)) just before Enter (e shows it)",
                                  isError: true)
            case .success(let done):
                undoSteps.append(UndoStep(path: path, before: done.before, after: done.after))
                if undoSteps.count > Self.undoLimit { undoSteps.removeFirst() }
                redoSteps.removeAll()
                message = Message(text: describe(done.before, done.after), isError: false)
            case .failure(let error):
                message = Message(text: "not written: \(error)", isError: true)
            }
        }
    }

    /// On each revision: notes the first one in which a value the viewer wrote changed.
    func noteUndoChanges(_ revision: Revision, time: String) {
        for i in undoSteps.indices {
            let node = revision.root.node(at: undoSteps[i].path)
            let now: JSON? = node.flatMap { $0.isNull ? nil : $0.json }
            // Changed back (a later step undone) is unchanged again.
            if now == undoSteps[i].after {
                undoSteps[i].changedIn = nil
            } else if undoSteps[i].changedIn == nil {
                undoSteps[i].changedIn = (revision.number, time)
            }
        }
    }

    /// `u`: puts back the value before the viewer's last write, only if the value is still the
    /// one it wrote; otherwise says who changed it (the revision and time) and leaves the file.
    func undo() {
        guard mayWrite("u") else { return }
        guard let step = undoSteps.popLast() else {
            message = Message(text: "nothing to undo (u undoes this viewer's own writes)", isError: false)
            return
        }
        let writes = step.before.map { JSONWrite.set(step.path, $0) } ?? JSONWrite.remove(step.path)
        store.startWrite(writes, watching: step.path, ifStill: .some(step.after)) { [weak self] result in
            guard let self else { return }
            switch result {
            case .success(let done) where done.applied:
                redoSteps.append(step)
                message = Message(text: "undone: \(step.path) back to \(shown(step.before)) (\(undoSteps.count) more to undo)",
                                  isError: false)
            case .success(let done):
                let when = step.changedIn.map { " in rev \($0.number) at \($0.time)" } ?? ""
                message = Message(text: "not undone: \(step.path) changed\(when) by another writer (now \(shown(done.after)))",
                                  isError: true)
            case .failure(let error):
                undoSteps.append(step)
                message = Message(text: "not undone: \(error)", isError: true)
            }
        }
    }

    /// `U`: writes again what `u` undid, only if the value is still the one `u` put back.
    func redo() {
        guard mayWrite("U") else { return }
        guard let step = redoSteps.popLast() else {
            message = Message(text: "nothing to redo (U redoes what u undid)", isError: false)
            return
        }
        let writes = step.after.map { JSONWrite.set(step.path, $0) } ?? JSONWrite.remove(step.path)
        store.startWrite(writes, watching: step.path, ifStill: .some(step.before)) { [weak self] result in
            guard let self else { return }
            switch result {
            case .success(let done) where done.applied:
                undoSteps.append(UndoStep(path: step.path, before: step.before, after: step.after))
                message = Message(text: "redone: \(step.path) is \(shown(step.after)) again (\(redoSteps.count) more to redo)",
                                  isError: false)
            case .success(let done):
                message = Message(text: "not redone: \(step.path) changed since u by another writer (now \(shown(done.after)))",
                                  isError: true)
            case .failure(let error):
                redoSteps.append(step)
                message = Message(text: "not redone: \(error)", isError: true)
            }
        }
    }
}

/// A value for the message line: a scalar as compact JSON (a long string shortened), an
/// object or array in words (`an object of 3 fields`, `a list of 5`), or `missing`.
func shown(_ value: JSON?) -> String {
    switch value {
    case nil: return "missing"
    case .object(let o)?: return o.count == 0 ? "an empty object" : "an object of \(o.count) \(o.count == 1 ? "field" : "fields")"
    case .array(let a)?: return a.count == 0 ? "an empty list" : "a list of \(a.count)"
    case .string(let s)? where s.count > 40: return JSON.string(String(s.prefix(39)) + "…").serializedString()
    case let scalar?: return scalar.serializedString()
    }
}

/// Whether the user may write `path`, by its permission bits rather than access(2): root may
/// write any file, but a file its owner made read-only (0444) is opened read-only for root too.
/// A file that does not exist yet is writable (it may appear); a read-only file system is not.
func fileIsWritable(_ path: String) -> Bool {
    var info = stat()
    guard stat(path, &info) == 0 else { return true }
    let mode = info.st_mode
    let uid = geteuid()
    let writable: Bool
    if uid == 0 {
        writable = mode & (S_IWUSR | S_IWGRP | S_IWOTH) != 0
    } else if info.st_uid == uid {
        writable = mode & S_IWUSR != 0
    } else if info.st_gid == getegid() {
        writable = mode & S_IWGRP != 0
    } else {
        writable = mode & S_IWOTH != 0
    }
    // access(2) still refuses a read-only mount and supplementary groups the bits above miss.
    return writable && access(path, W_OK) == 0
}
