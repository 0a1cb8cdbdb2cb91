import Dispatch
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
        let wrong = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<50 {
                for (n, document) in documents.enumerated() where e.value(of: document.root) != .value(JSON(integerLiteral: n)) {
                    wrong.add(1, ordering: .relaxed)
                }
            }
        }
        #expect(wrong.load(ordering: .relaxed) == 0)
    }

    /// What the status bar says of an expression libjq runs: its text, on one line.
    @Test func wordsOfALibjqExpressionAreItsText() throws {
        #expect(try Expression(".a\n| map(.b)").words == ".a | map(.b)")
    }
}
