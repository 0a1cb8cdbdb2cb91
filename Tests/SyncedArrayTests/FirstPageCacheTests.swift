// The first-page cache: shown at once when fresh, replaced by the real rows as one batch;
// missing, stale, corrupt or unwritable cache files are ignored with a warning.
#if canImport(Glibc)
import Glibc
#endif
import FileStore
import JSONTree
import LiveQuery
import Testing
import TestSupport
@testable import SyncedArray

/// A data file and a cache folder, and sessions of an array over them.
private final class CacheFixture {
    let folder = ScratchFolder()
    let file: String
    let cache: FirstPageCache
    var query: Query = (try? Query().orderByKey()) ?? Query()
    var paging: Paging?

    init(_ text: String, rowLimit: Int = 100) {
        file = folder.file("data.json")
        cache = FirstPageCache(directory: folder.file("cache/synctable"), rowLimit: rowLimit)
        writeByRename(file, text)
    }

    /// A new store and array (not yet synced), as a new run of a program would make.
    func session() throws -> (FileStore, SyncedArray, Recorder, Warnings) {
        let store = try FileStore(path: file)
        let array = SyncedArray(store.reference(path("/items")).withQuery(query), paging: paging, cache: cache)
        let warnings = Warnings()
        array.onCacheWarning = { warnings.list.append($0) }
        return (store, array, Recorder(array), warnings)
    }

    /// A whole run: start, first revision, stop (which writes the cache).
    func run() throws -> [CacheWarning] {
        let (store, array, _, warnings) = try session()
        array.startSync()
        store.wait(forRevision: 1)
        array.stopSync()
        return warnings.list
    }

    var cacheFile: String {
        get throws {
            let (_, array, _, _) = try session()
            return try #require(cache.filePath(for: array.cacheKey))
        }
    }
}

private final class Warnings {
    var list: [CacheWarning] = []
}

private func isMissing(_ w: CacheWarning) -> Bool { if case .missing = w { true } else { false } }
private func staleReason(_ w: CacheWarning?) -> String? { if case .stale(_, let why)? = w { why } else { nil } }
private func corruptReason(_ w: CacheWarning?) -> String? { if case .corrupt(_, let why)? = w { why } else { nil } }

/// The cache file with its rows replaced (other fields kept, so it is still fresh).
private func rewriteRows(_ path: String, _ rows: [(String, JSON)]) throws {
    let document = try JSONDocument(parsing: try #require(readText(path)))
    guard case .object(let o) = document.root.json else { throw CancellationError() }
    let members = o.members.map { m in
        codeUnitsEqual(m.key, "rows") ? (m.key, JSON.array(rows.map { .array([.string($0.0), $0.1]) })) : m
    }
    writeInPlace(path, JSON.object(JSONObject(members)).serialized())
}

@Suite struct FirstPageCacheTests {
    @Test func theStandardFolderFollowsXDG() {
        #expect(FirstPageCache.standardDirectory(environment: ["XDG_CACHE_HOME": "/x/cache/", "HOME": "/home/u"]) == "/x/cache/synctable")
        #expect(FirstPageCache.standardDirectory(environment: ["XDG_CACHE_HOME": "relative", "HOME": "/home/u"]) == "/home/u/.cache/synctable")
        #expect(FirstPageCache.standardDirectory(environment: ["HOME": "/home/u"]) == "/home/u/.cache/synctable")
        #expect(FirstPageCache.standardDirectory(environment: [:]) == nil)
        let none = FirstPageCache.standard(environment: [:])
        #expect(none.directory == nil)
    }

    @Test func cacheFilesAreNamedByFileLocationQueryAndPaging() throws {
        let a = CacheKey(file: "/d/f.json", location: path("/items"), query: "orderByKey()", paging: nil)
        let b = CacheKey(file: "/d/f.json", location: path("/items"), query: "orderByValue()", paging: nil)
        let c = CacheKey(file: "/d/f.json", location: path("/items"), query: "orderByKey()", paging: Paging(pageSize: 5))
        #expect(Set([a.fileName, b.fileName, c.fileName]).count == 3)
        #expect(a.fileName.count == 21 && a.fileName.hasSuffix(".json"))
    }

    /// First run: no cache (a warning), written once rows arrive. Second run, file unchanged:
    /// the rows are there before the store has read anything, then confirmed as one update.
    @Test func aFreshCacheIsShownAtOnceThenReplacedByTheRealRows() throws {
        let fixture = CacheFixture(#"{"items":{"a":1,"b":{"x":[1,2]},"c":"three"}}"#)
        let first = try fixture.run()
        #expect(first.count == 1 && first.first.map(isMissing) == true, "\(first)")
        #expect(readText(try fixture.cacheFile) != nil)

        let (store, array, recorder, warnings) = try fixture.session()
        array.startSync()
        #expect(array.isShowingCache && array.keys == ["a", "b", "c"])  // before any revision
        #expect(store.currentRevision == nil)
        #expect(array[1].value.valueEquals(["x": [1, 2]]))
        #expect(recorder.take().batches.map(\.inserts) == [[0, 1, 2]])
        store.wait(forRevision: 1)
        #expect(!array.isShowingCache && array.keys == ["a", "b", "c"])
        let got = recorder.take()
        #expect(got.batches.count == 1 && got.batches[0].isEmpty && got.updates == 1)  // all rows were right
        #expect(warnings.list.isEmpty)
        try array.checkInvariants()
    }

    /// A cache whose file is unchanged, but whose rows differ (the file was edited while it was
    /// parsed): rows that were right stay, stale rows go, new ones come, changed ones reload.
    @Test func theRealRowsReplaceTheCacheAsOneBatch() throws {
        let fixture = CacheFixture(#"{"items":{"a":1,"b":2,"c":3,"d":4}}"#)
        _ = try fixture.run()
        try rewriteRows(try fixture.cacheFile, [("a", 1), ("x", 9), ("c", 30), ("d", 4)])
        // The rewrite changed the cache file, not the data file: the cache is still fresh.
        let (store, array, recorder, warnings) = try fixture.session()
        array.startSync()
        #expect(array.isShowingCache && array.keys == ["a", "x", "c", "d"], "\(warnings.list)")
        _ = recorder.take()
        store.wait(forRevision: 1)
        #expect(array.keys == ["a", "b", "c", "d"])
        let got = recorder.take()
        #expect(got.problems.isEmpty, "\(got.problems)")
        #expect(got.batches.count == 1)
        let batch = try #require(got.batches.first)
        #expect(batch.deletes == [1] && batch.inserts == [1] && batch.moves.isEmpty)
        #expect(batch.reloads == [BatchDiff.Reload(key: "c", from: 2, to: 2)])
        #expect(same(recorder.replayed, array.rows.map(PlainRow.init)))
    }

    @Test func aCacheOfAnOlderStateOfTheFileIsStale() throws {
        let fixture = CacheFixture(#"{"items":{"a":1}}"#)
        _ = try fixture.run()
        writeByRename(fixture.file, #"{"items":{"a":1,"b":2}}"#)
        let (store, array, _, warnings) = try fixture.session()
        array.startSync()
        #expect(array.isEmpty && !array.isShowingCache)
        #expect(staleReason(warnings.list.first) == "the data file changed since it was written")
        store.wait(forRevision: 1)
        #expect(array.keys == ["a", "b"])
    }

    @Test func corruptCacheFilesAreIgnoredWithAWarning() throws {
        let fixture = CacheFixture(#"{"items":{"a":1,"b":2}}"#)
        _ = try fixture.run()
        let cacheFile = try fixture.cacheFile
        let good = try #require(readText(cacheFile))
        let cases: [(String, String)] = [
            ("\u{0}\u{1}garbage", "invalid JSON at line 1"),
            (String(good.prefix(good.count / 2)), "invalid JSON"),
            (#"{"hello":"world"}"#, "not a SyncTable first-page cache"),
            ("[1,2]", "not a SyncTable first-page cache"),
        ]
        for (text, reason) in cases {
            writeInPlace(cacheFile, text)
            let (store, array, _, warnings) = try fixture.session()
            array.startSync()
            #expect(array.isEmpty)
            let why = corruptReason(warnings.list.first)
            #expect(why?.hasPrefix(reason) == true, "\(text.prefix(20)): \(warnings.list)")
            store.wait(forRevision: 1)
            #expect(array.keys == ["a", "b"])
        }
        for (rows, reason) in [([("a", JSON(1)), ("a", JSON(2))], "row 1 repeats a key"), ([("a", JSON.null)], "row 0 is not a [key, value] pair")] {
            _ = try fixture.run()  // a good cache again
            try rewriteRows(cacheFile, rows)
            let (_, array, _, warnings) = try fixture.session()
            array.startSync()
            #expect(array.isEmpty && corruptReason(warnings.list.first) == reason, "\(warnings.list)")
        }
    }

    /// Another file's or query's cache under the same name (a hash collision) is not used.
    @Test func aCacheForAnotherQueryIsStale() throws {
        let fixture = CacheFixture(#"{"items":{"a":1,"b":2}}"#)
        _ = try fixture.run()
        let text = try #require(readText(try fixture.cacheFile))
        fixture.query = try Query().orderByValue()
        writeInPlace(try fixture.cacheFile, text)  // orderByKey's cache under orderByValue's name
        let (_, array, _, warnings) = try fixture.session()
        array.startSync()
        #expect(array.isEmpty && staleReason(warnings.list.first) == "written for another file or query")
    }

    @Test func aPagedArrayCachesItsFirstPage() throws {
        let fixture = CacheFixture(#"{"items":{"a":1,"b":2,"c":3,"d":4,"e":5}}"#)
        fixture.paging = Paging(pageSize: 2, from: .end)
        do {
            let (store, array, _, _) = try fixture.session()
            array.startSync()
            store.wait(forRevision: 1)
            array.loadMore()
            #expect(array.keys == ["b", "c", "d", "e"])
            array.stopSync()
        }
        let (store, array, _, warnings) = try fixture.session()
        array.startSync()
        #expect(array.isShowingCache && array.keys == ["d", "e"] && array.hasMore, "\(warnings.list)")
        store.wait(forRevision: 1)
        #expect(array.keys == ["d", "e"] && array.hasMore && !array.isShowingCache)
    }

    @Test func anUnwritableCacheFolderIsAWarning() throws {
        let fixture = CacheFixture(#"{"items":{"a":1}}"#)
        writeInPlace(fixture.folder.file("cache"), "a file where the folder should be")
        let warnings = try fixture.run()
        #expect(warnings.count == 2 && warnings.first.map(isMissing) == true, "\(warnings)")
        guard case .unwritable(_, let why)? = warnings.last else {
            Issue.record("\(warnings)")
            return
        }
        #expect(why.contains("cannot create"))
    }

    @Test func writesLeaveNoTemporaryFiles() throws {
        let fixture = CacheFixture(#"{"items":{"a":1}}"#)
        for text in [#"{"items":{"a":2}}"#, #"{"items":{"a":3}}"#] {
            _ = try fixture.run()
            writeByRename(fixture.file, text)
        }
        _ = try fixture.run()
        let dir = try #require(opendir(fixture.folder.file("cache/synctable")))
        var names = [String]()
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if !name.hasPrefix(".") { names.append(name) }
        }
        closedir(dir)
        #expect(names.count == 1 && names[0].hasSuffix(".json"), "\(names)")
        // The last run's cache is fresh for the file as it is.
        let (_, array, _, _) = try fixture.session()
        array.startSync()
        #expect(array.isShowingCache && array[0].value.doubleValue == 3)
    }
}
