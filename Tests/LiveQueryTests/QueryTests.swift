import JSONTree
import Testing
@testable import LiveQuery

@Suite struct QueryTests {
    func expectError(_ message: String, _ build: () throws -> Query) {
        do {
            let q = try build()
            Issue.record("expected an error containing '\(message)', got \(q)")
        } catch let error as QueryError {
            #expect(error.message.contains(message), "\(error.message)")
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test func rulesAreErrorsNamingTheRule() {
        expectError("already ordered by orderByKey()") { try Query().orderByKey().orderByValue() }
        expectError("already ordered by orderByChild(\"a/b\")") { try Query().orderByChild("a/b").orderByPriority() }
        expectError("limitToLast: a limit is already set (limitToFirst(3))") { try Query().limitToFirst(3).limitToLast(2) }
        expectError("limitToFirst: the limit must be a positive integer, not 0") { try Query().limitToFirst(0) }
        expectError("must be a positive integer, not -1") { try Query().limitToLast(-1) }
        expectError("not an object") { try Query().orderByValue().startAt(["a": 1]) }
        expectError("not an array") { try Query().orderByValue().endAt([1]) }
        expectError("with orderByKey a bound is a key and takes no key argument") { try Query().orderByKey().startAt("a", key: "b") }
        expectError("with orderByKey a bound must be a string (a key), not 5") { try Query().orderByKey().startAt(5) }
        // The rule holds whichever comes first.
        expectError("orderByKey: with orderByKey a bound must be a string") { try Query().equalTo(5).orderByKey() }
        expectError("equalTo: without an orderBy children are in priority order, so a bound must be a number, string or null") { try Query().equalTo(true) }
        expectError("with orderByPriority a bound must be a number, string or null") { try Query().orderByPriority().startAt(true) }
        expectError("startAfter: the start of the range is already set by startAt(1)") { try Query().startAt(1).startAfter(2) }
        expectError("endBefore: the end of the range is already set by endAt(1)") { try Query().endAt(1).endBefore(2) }
        expectError("equalTo: the start of the range is already set") { try Query().startAt(1).equalTo(2) }
        expectError("equalTo: the end of the range is already set") { try Query().endAt(1).equalTo(2) }
        expectError("startAt: the start of the range is already set by equalTo(1)") { try Query().equalTo(1).startAt(2) }
        expectError("orderByChild: the path must not be empty") { try Query().orderByChild(.root) }
    }

    @Test func validQueriesDescribeThemselves() throws {
        let q = try Query().orderByChild("metrics/views").startAt(5, key: "k").endBefore("z").limitToLast(10)
        #expect(q.description == #"orderByChild("metrics/views").startAt(5, "k").endBefore("z").limitToLast(10)"#)
        #expect(q.ordering == .child(try Path("metrics/views")))
        #expect(q.limit == .last(10))
        #expect(try Query().orderByKey().equalTo("a").description == #"orderByKey().equalTo("a")"#)
        #expect(Query().ordering == .priority)
        #expect(try Query().orderByPriority().startAt(nil).endAt("x").limitToFirst(1).limit == .first(1))
    }
}
