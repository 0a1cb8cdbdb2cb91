// A memory file written with `pwrite` (`SharedPages.write`), as a large revision read into memory
// of its own is: the bytes are there through its own mapping and through a copy-on-write one,
// and a source the kernel cannot read fails the write rather than the process.
#if canImport(Glibc)
import Glibc
#endif
@testable import EngineMemory
import Testing

@Suite struct SharedPagesTests {
    /// Pieces written at offsets off page boundaries, across pages (and across the split of a
    /// memory file in two) and up to the last byte, read back through the file's mapping and
    /// through a copy-on-write mapping of it, whose writes the file never sees.
    @Test(arguments: [nil, 1, 2, 5])
    func piecesWrittenAreReadThroughEveryMapping(splitPage: Int?) throws {
        let page = Posix.pageSize
        let pages = try SharedPages(capacity: 5 * page + 17, split: splitPage.map { $0 * page })
        let bytes = (0..<pages.capacity).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 9) }
        var offset = 0
        for count in [1, page - 3, 2 * page + 5, 7, pages.capacity] where offset < pages.capacity {
            let n = min(count, pages.capacity - offset)
            try bytes.withUnsafeBytes { try pages.write($0.baseAddress! + offset, count: n, at: offset) }
            offset += n
        }
        #expect(Array(UnsafeBufferPointer(start: pages.base, count: pages.capacity)) == bytes)
        let mapping = try pages.copyOnWrite()
        defer { Posix.unmap(UnsafeMutableRawPointer(mapping), pages.capacity) }
        #expect(Array(UnsafeBufferPointer(start: mapping, count: pages.capacity)) == bytes)
        for k in 0..<6 { mapping[k * page + 3] = ~bytes[k * page + 3] }
        #expect(Array(UnsafeBufferPointer(start: pages.base, count: pages.capacity)) == bytes)
        let second = try pages.copyOnWrite()
        defer { Posix.unmap(UnsafeMutableRawPointer(second), pages.capacity) }
        #expect(Array(UnsafeBufferPointer(start: second, count: pages.capacity)) == bytes)
        #expect((0..<6).allSatisfy { mapping[$0 * page + 3] == ~bytes[$0 * page + 3] })
    }

    /// Pieces copied from a file (`copy`, plain's first read) at offsets off page boundaries and
    /// across the split, up to past the file's end: the file's bytes, fewer where it ends.
    @Test(arguments: [nil, 2])
    func piecesCopiedFromAFileAreItsBytes(splitPage: Int?) throws {
        let page = Posix.pageSize
        let pages = try SharedPages(capacity: 5 * page + 17, split: splitPage.map { $0 * page })
        let bytes = (0..<pages.capacity - 40).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ $0 >> 11) }
        var name = Array("/tmp/synctable-shared-pages-XXXXXX".utf8CString)
        let fd = mkstemp(&name)
        try #require(fd >= 0)
        defer { close(fd) }
        unlink(name)
        try bytes.withUnsafeBytes { try Posix.writeAll(fd, $0) }
        var offset = 0, copied: [Int] = []
        for count in [1, page - 3, 2 * page + 5, 7, pages.capacity, 1] {
            let n = try pages.copy(from: fd, count: min(count, pages.capacity - offset), at: offset)
            copied.append(n)
            offset += n
        }
        #expect(copied == [1, page - 3, 2 * page + 5, 7, bytes.count - 3 * page - 10, 0])
        #expect(Array(UnsafeBufferPointer(start: pages.base, count: bytes.count)) == bytes)
    }

    /// A source page that cannot be read (as a mapped file's page a truncation took) fails the
    /// write with EFAULT; the bytes written before it stay.
    @Test func aSourceThatCannotBeReadFailsTheWrite() throws {
        let page = Posix.pageSize
        let pages = try SharedPages(capacity: 2 * page)
        let source = try #require(mmap(nil, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0))
        defer { munmap(source, 2 * page) }
        memset(source, 7, page)
        #expect(mprotect(source + page, page, PROT_NONE) == 0)
        #expect(throws: PosixError.self) { try pages.write(source, count: 2 * page, at: 0) }
        #expect(Array(UnsafeBufferPointer(start: pages.base, count: page)) == Array(repeating: 7, count: page))
    }
}
