// The whole jq language through libjq (Debian's jq 1.6): a program compiled once, run per child.
import CJQ
import JSONTree
import Synchronization

/// A jq program compiled by libjq, for the expressions outside the native subset.
///
/// A `jq_state` runs one input at a time and is not thread-safe, while a query may evaluate its
/// filter on several threads at once: the program keeps a pool of compiled states. A run takes
/// an idle one (compiling another when every one is busy, about 15 ms: jq 1.6 compiles its
/// builtins with each program) and gives it back; there are never more states than threads
/// that ran the program at the same time.
final class JQProgram: Sendable {
    let text: String
    private let idle: Mutex<[JQState]>

    /// Compiles `text`.
    /// - Throws: jq's own messages (`jq: error: syntax error, unexpected $end … at <top-level>,
    ///   line 1: .a >`), joined on one line.
    init(_ text: String) throws(JQCompileError) {
        self.text = text
        idle = Mutex([try JQState(compiling: text)])
    }

    /// Runs the program on `input` (consumed), calling `output` with each of its values in order
    /// (borrowed: copy one to keep it) until `output` returns false or the values end.
    /// - Throws: `Failure` with jq's message for an error the program raises before then.
    func run(_ input: jv, _ output: (jv) -> Bool) throws(Failure) {
        let state = idle.withLock { $0.popLast() } ?? (try? JQState(compiling: text))
        guard let state else {
            jv_free(input)
            throw Failure("jq could not compile the expression again")
        }
        // A halted state is not run again (see `JQState.isSpent`).
        defer { if !state.isSpent { idle.withLock { $0.append(state) } } }
        try state.run(input, output)
    }
}

/// jq's messages for a program it does not accept.
struct JQCompileError: Error {
    let message: String
}

/// One `jq_state` with its program, and where its messages go.
final class JQState: @unchecked Sendable {
    // Used by one thread at a time (`JQProgram` hands a state to one run).
    private var jq: OpaquePointer?
    /// The program halted (`halt`, `halt_error`): jq 1.6's `jq_reset` frees the
    /// halt's exit code and message at every later start without forgetting them, so a halted
    /// state is only torn down (which frees them once), never started again.
    private(set) var isSpent = false
    /// The messages jq reported since the last look (a jv array, owned here).
    private let messages: UnsafeMutablePointer<jv>

    init(compiling text: String) throws(JQCompileError) {
        jq = jq_init()
        messages = .allocate(capacity: 1)
        messages.initialize(to: jv_array())
        guard jq != nil else { throw JQCompileError(message: "jq: error: out of memory") }
        cjq_collect_messages(jq, messages)
        // jq_compile_args consumes its arguments: an empty object, as jq's main passes with no --arg.
        guard jq_compile_args(jq, text, jv_object()) != 0 else {
            throw JQCompileError(message: takeMessages() ?? "jq: error: the expression does not compile")
        }
        _ = takeMessages()
    }

    deinit {
        jq_teardown(&jq)
        jv_free(messages.pointee)
        messages.deallocate()
    }

    /// jq's messages since the last call, on one line each, joined; nil when there were none.
    /// jq ends a compile's messages with a count (`jq: 1 compile error`), left out here, and puts
    /// the program's line under its position, which stays, after a space.
    private func takeMessages() -> String? {
        let all = messages.pointee
        messages.pointee = jv_array()
        defer { jv_free(all) }
        var lines = [String]()
        for i in 0..<jv_array_length(jv_copy(all)) {
            let message = jv_array_get(jv_copy(all), i)
            defer { jv_free(message) }
            guard jv_get_kind(message) == JV_KIND_STRING else { continue }
            let text = String(cString: jv_string_value(message))
            if text.hasPrefix("jq: "), text.hasSuffix(" compile error") || text.hasSuffix(" compile errors") { continue }
            lines.append(text.split(separator: "\n").map(trimmed).filter { !$0.isEmpty }.joined(separator: " "))
        }
        return lines.isEmpty ? nil : lines.joined(separator: "; ")
    }

    func run(_ input: jv, _ output: (jv) -> Bool) throws(Failure) {
        // jq_start consumes the value, and resets the state of any run left unfinished.
        jq_start(jq, input, 0)
        while true {
            let result = jq_next(jq)
            guard jv_is_valid(result) != 0 else {
                if jv_invalid_has_msg(jv_copy(result)) != 0 {
                    throw Failure(jqMessage(jv_invalid_get_msg(result)) ?? "jq: error")
                }
                jv_free(result)
                // `halt_error` ends the program with a message, `halt` and the last value without.
                if jq_halted(jq) != 0 {
                    isSpent = true
                    if let message = jqMessage(jq_get_error_message(jq)) { throw Failure(message) }
                }
                return
            }
            let more = output(result)
            jv_free(result)
            guard more else { break }
        }
    }

    /// A value jq made, as `JSON` (consumes it): through jq's own printing, so numbers are jq's.
    static func json(_ value: jv) -> JSON? {
        let text = jv_dump_string(value, 0)
        defer { jv_free(text) }
        return try? JSONDocument(parsing: String(cString: jv_string_value(text))).root.json
    }

    /// An error's message as jq prints it (consumes it): a string as it is, another value as JSON
    /// after `(not a string)`, as jq's main does; nil for no message.
    private func jqMessage(_ message: jv) -> String? {
        defer { jv_free(message) }
        switch jv_get_kind(message) {
        case JV_KIND_STRING: return String(cString: jv_string_value(message))
        case JV_KIND_INVALID, JV_KIND_NULL: return nil
        default:
            let text = jv_dump_string(jv_copy(message), 0)
            defer { jv_free(text) }
            return "(not a string): " + String(cString: jv_string_value(text))
        }
    }
}

/// A line without the spaces around it (jq pads the program's line where a caret would go).
private func trimmed(_ line: Substring) -> String {
    var t = line
    while let c = t.first, c == " " || c == "\t" { t.removeFirst() }
    while let c = t.last, c == " " || c == "\t" { t.removeLast() }
    return String(t)
}
