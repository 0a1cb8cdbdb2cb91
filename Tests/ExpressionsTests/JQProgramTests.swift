import Dispatch
import class Foundation.Thread
import JSONTree
import Synchronization
import Testing
@testable import Expressions

@Suite struct JQProgramTests {
    /// A query evaluates its filter on several threads at once: each run has a `jq_state` of its
    /// own from the program's pool, and every thread gets every answer right.
    @Test func runsOnManyThreadsAtOnce() throws {
        let e = try Expression(".tags | map(select(startswith(\"a\"))) | length")
        #expect(e.evaluator == .jq)
        let documents = try (0..<16).map { n in
            try JSONDocument(parsing: "{\"tags\": [" + (0..<n).map { _ in "\"ab\", \"b\"" }.joined(separator: ", ") + "]}")
        }
        // Threads of their own: `concurrentPerform` from a test waits for the concurrency pool's
        // threads, which the suite's other tests hold (it took minutes in a whole run).
        let work = Work(e, documents)
        let done = DispatchSemaphore(value: 0)
        for _ in 0..<8 {
            Thread {
                for _ in 0..<50 {
                    for (n, document) in work.documents.enumerated() where work.expression.value(of: document.root) != .value(JSON(integerLiteral: n)) {
                        work.wrong.add(1, ordering: .relaxed)
                    }
                }
                done.signal()
            }.start()
        }
        for _ in 0..<8 { done.wait() }
        #expect(work.wrong.load(ordering: .relaxed) == 0)
    }

    /// The expression and documents the threads share (read only), and their count of wrong answers.
    private final class Work: @unchecked Sendable {
        let expression: Expression
        let documents: [JSONDocument]
        let wrong = Atomic<Int>(0)
        init(_ expression: Expression, _ documents: [JSONDocument]) { (self.expression, self.documents) = (expression, documents) }
    }

    /// What the status bar says of an expression libjq runs: its text, on one line.
    @Test func wordsOfALibjqExpressionAreItsText() throws {
        #expect(try Expression(".a\n| map(.b)").words == ".a | map(.b)")
    }
}

@Suite struct JQValueTests {
    /// libjq reads a child built from the tape, not parsed again: it must be the value jq's own
    /// parser makes (a repeated key keeps its first place and its last value; escapes decoded;
    /// numbers as doubles).
    @Test func aChildFromTheTapeIsTheValueJqParses() throws {
        let document = try JSONDocument(parsing: #"{"b": 1, "a": "\u00e9\n\"", "b": [true, null, 1e400, -0.5, ""], "c": {}}"#)
        let e = try Expression("[keys_unsorted, .b, (.a | length), .c]")
        #expect(e.evaluator == .jq)
        #expect(e.value(of: document.root) == .value(try JSONDocument(parsing: #"[["b", "a", "c"], [true, null, 1.7976931348623157e+308, -0.5, ""], 3, {}]"#).root.json))
    }
}
