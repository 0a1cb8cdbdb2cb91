// The answers of the newest revision: bounded by their bytes, keyed by what shapes them (not
// `ns`), each computed once however many ask at once.
#if canImport(Glibc)
import Glibc
#endif
@testable import Serve
import ServeTestSupport
import Testing
import TestSupport

@Suite struct RevisionCacheTests {
    struct Blob: ByteSized {
        let byteCount: Int
    }

    @Test func keepsNoMoreThanItsBytesOldestFirst() async {
        let cache = RevisionCache<Blob>(byteLimit: 1000)
        for i in 0..<50 {
            _ = await cache.answer(revision: 1, key: [UInt8(i)]) { Blob(byteCount: 99) }
            #expect(cache.byteCount <= 1000)
        }
        #expect(cache.byteCount == 1000)
        let computed = cache.computations
        _ = await cache.answer(revision: 1, key: [49]) { Blob(byteCount: 99) }
        #expect(cache.computations == computed, "the newest is kept")
        _ = await cache.answer(revision: 1, key: [0]) { Blob(byteCount: 99) }
        #expect(cache.computations == computed + 1, "the oldest went first")
        _ = await cache.answer(revision: 1, key: [200]) { Blob(byteCount: 5000) }
        #expect(cache.byteCount <= 1000, "an answer larger than the limit is not kept")
        _ = await cache.answer(revision: 2, key: [1]) { Blob(byteCount: 10) }
        #expect(cache.byteCount == 11, "a newer revision empties it")
    }

    @Test func manyAskingAtOnceComputeOnce() async {
        let cache = RevisionCache<Blob>(byteLimit: 1 << 20)
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<32 {
                group.addTask {
                    _ = await cache.answer(revision: 1, key: [7]) {
                        usleep(5000)
                        return Blob(byteCount: 10)
                    }
                }
            }
        }
        #expect(cache.computations == 1)
    }

    /// 300 reads with distinct `ns` of an 11 MB file grew the server by 3 GB: one entry each.
    @Test func readsThatDifferInNsShareAnAnswerAndTheCacheKeepsToItsBytes() async throws {
        let folder = ScratchFolder()
        let value = String(repeating: "v", count: 200_000)
        let members = (0..<12).map { "\"k\($0)\": \"\(value)\($0 % 10)\"" }
        let file = folder.write("db.json", "{" + members.joined(separator: ",") + "}")
        let served = try await InProcessServer(file: file, options: ServeOptions(cacheBytes: 1 << 20))
        for n in 0..<40 {
            let response = try served.request("GET", "/k1.json?ns=x\(n)")
            #expect(response.status == 200 && response.body.count == 200_004)
        }
        #expect(served.server.reads.computations == 1)
        for k in 0..<12 {
            #expect(try served.request("GET", "/k\(k).json").body.count == 200_004)
            #expect(served.server.reads.byteCount <= 1 << 20)
        }
        #expect(served.server.reads.byteCount > 600_000, "what fits is kept")
        try await served.stop()
    }
}
