// Recycled blocks: pages of one mapping moved into another (`RecycledMemory.moveIn`), what the
// parse on two threads does with the second thread's tape instead of copying it; and mappings
// of whole pages, which spares of one element type hand to another.
#if canImport(Glibc)
import Glibc
#endif
@testable import JSONTree
import Testing
import TestSupport

@Suite struct RecycledMemoryTests {
    typealias Block = RecycledMemory<UInt64>
    static let huge = (2 << 20) / MemoryLayout<UInt64>.stride

    /// A block of `count` elements, mapped however small, element k holding `tag << 32 | k`.
    static func filled(_ count: Int, tag: UInt64) -> Block {
        let block = Block(capacity: count, mappedFrom: 1)
        for k in 0..<count { block.base[k] = tag << 32 | UInt64(k) }
        return block
    }

    @Test func elementsMovedInAreTheOnesMovedOut() throws {
        var r = SplitMix64(seed: 16)
        var moves = 0
        for _ in 0..<24 {
            let target = Self.filled(r.int(2 * Self.huge...6 * Self.huge), tag: 1)
            let source = Self.filled(r.int(Self.huge...3 * Self.huge), tag: 2)
            let count = r.int(1...source.capacity)
            // Near the start, at a huge page's edge, or anywhere.
            let index = [r.int(0..<600), Self.huge * r.int(0...3) + r.int(-2...2), r.int(0..<target.capacity / 2)][r.int(0..<3)]
            let room = target.capacity - max(0, index)
            guard let moved = target.moveIn(source, count: count, after: max(0, index)) else {
                // Only for want of room: the pages land less than a huge page past `index`.
                #expect(room < count + Self.huge)
                target.release()
                source.release()
                continue
            }
            defer { target.release() }
            moves += 1
            // At or after `index`, by less than a huge page, at the source's offset within one.
            let at = moved - target.base
            #expect(at >= index && at < max(0, index) + Self.huge && at + count <= target.capacity)
            #expect(Int(bitPattern: moved) % (2 << 20) == Int(bitPattern: source.base) % (2 << 20))
            #expect((0..<count).allSatisfy { moved[$0] == 2 << 32 | UInt64($0) })
            // What lay before `index` is untouched.
            #expect((0..<max(0, index)).allSatisfy { target.base[$0] == 1 << 32 | UInt64($0) })
        }
        #expect(moves >= 12, "\(moves) moved")
    }

    /// Spares pass between element types (a revision's bytes, then a tape): each block must
    /// cover its whole mapping, or the pages past its last element are never given back.
    @Test func aMappedBlockIsWholePages() {
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        for bytes in [page, 3 * page + 1, 5 * page + 3, 7 * page + 7, 9 * page - 1] {
            let block = RecycledMemory<UInt8>(capacity: bytes, mappedFrom: 1)
            defer { block.release() }
            #expect(block.capacity >= bytes && block.capacity % page == 0, "\(bytes) bytes: \(block.capacity)")
            let tape = RecycledMemory<TapeEntry>(capacity: bytes / 8 + 1, mappedFrom: 1)
            defer { tape.release() }
            #expect(tape.capacity * MemoryLayout<TapeEntry>.stride % page == 0, "\(bytes) bytes: \(tape.capacity) entries")
        }
    }

    @Test func withoutRoomNothingMoves() {
        let target = Self.filled(2 * Self.huge, tag: 1)
        let source = Self.filled(2 * Self.huge, tag: 2)
        defer { target.release(); source.release() }
        #expect(target.moveIn(source, count: Self.huge + 1, after: Self.huge) == nil)
        // Both blocks are as they were.
        #expect((0..<2 * Self.huge).allSatisfy { source.base[$0] == 2 << 32 | UInt64($0) && target.base[$0] == 1 << 32 | UInt64($0) })
    }

    @Test func aBlockThatIsNotAMappingDoesNotMove() {
        let target = Self.filled(2 * Self.huge, tag: 1)
        let small = Block(capacity: 100)
        defer { target.release(); small.release() }
        #expect(target.moveIn(small, count: 100, after: 0) == nil)
        #expect(small.moveIn(target, count: 10, after: 0) == nil)
    }
}
