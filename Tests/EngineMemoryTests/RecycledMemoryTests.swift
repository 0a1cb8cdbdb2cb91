// Recycled blocks: pages of one mapping moved into another (`RecycledMemory.moveIn`), what the
// parse on two threads does with the second thread's tape instead of copying it; mappings of whole
// pages, which spares of one element type hand to another; the spares kept; and plain blocks,
// mappings only from a threshold and never spares. What the kernel makes of the advice (huge pages
// or not) is the bench's to measure (its resident rows), not these tests'.
#if canImport(Glibc)
import Glibc
#endif
@testable import EngineMemory
import Testing
import TestSupport

@Suite struct RecycledMemoryTests {
    typealias Block = RecycledMemory<UInt64>
    static let huge = (2 << 20) / MemoryLayout<UInt64>.stride

    /// A block of `count` elements, mapped however small, element k holding `tag << 32 | k`.
    static func filled(_ count: Int, tag: UInt64) -> Block {
        let block = Block(capacity: count, mappedFrom: 1, tuning: .tuned)
        for k in 0..<count { block.base[k] = tag << 32 | UInt64(k) }
        return block
    }

    /// Pages given back in the middle of a mapping: they read as zeroes, the rest keeps its
    /// elements.
    @Test func discardedPagesReadAsZeroes() throws {
        let count = 6 * Self.huge
        let block = Self.filled(count, tag: 3)
        defer { block.release() }
        let range = (Self.huge + 1_000)..<(3 * Self.huge + 77)
        block.discardPages(range)
        let page = Int(sysconf(Int32(_SC_PAGESIZE))) / MemoryLayout<UInt64>.stride
        let given = ((range.lowerBound + page - 1) / page * page)..<(range.upperBound / page * page)
        for k in stride(from: 0, to: count, by: 97) {
            #expect(block.base[k] == (given.contains(k) ? 0 : 3 << 32 | UInt64(k)), "element \(k)")
        }
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
            let block = RecycledMemory<UInt8>(capacity: bytes, mappedFrom: 1, tuning: .tuned)
            defer { block.release() }
            #expect(block.capacity >= bytes && block.capacity % page == 0, "\(bytes) bytes: \(block.capacity)")
            let tape = RecycledMemory<UInt64>(capacity: bytes / 8 + 1, mappedFrom: 1, tuning: .tuned)
            defer { tape.release() }
            #expect(tape.capacity * MemoryLayout<UInt64>.stride % page == 0, "\(bytes) bytes: \(tape.capacity) entries")
        }
    }

    /// Random keeps and takes: every mapping kept is, at each step, in the pool, given back to
    /// be unmapped, or taken, exactly once; the pool holds one of each element type at most,
    /// the larger, and past its limit drops the smallest; a take is its own kind's where that
    /// fits, else the smallest that fits.
    @Test func aSparePoolLosesNoMappingAndKeepsOneOfEachType() {
        let kinds = [ObjectIdentifier(UInt8.self), ObjectIdentifier(UInt64.self), ObjectIdentifier(Int32.self)]
        forEachSeed(300) { seed, r in
            var pool = SparePool(limit: 2)
            var unmapped = Set<Int>(), taken = Set<Int>(), made = 0
            for _ in 0..<40 {
                if r.chance(0.6) {
                    made += 1
                    let spare = SpareMapping(base: UnsafeMutableRawPointer(bitPattern: made << 12)!,
                                             bytes: r.int(1...8) << 20, kind: r.pick(kinds))
                    let before = pool.spares
                    let same = before.first { $0.kind == spare.kind }
                    let dropped = pool.keep(spare)
                    if let same {
                        // The larger of the two stays (the one kept before, when they are equal).
                        let expected = same.bytes >= spare.bytes ? spare : same
                        #expect(dropped?.base == expected.base, "seed \(seed)")
                    } else if before.count == pool.limit {
                        #expect(dropped?.bytes == (before + [spare]).map(\.bytes).min(), "seed \(seed)")
                    } else {
                        #expect(dropped == nil, "seed \(seed)")
                    }
                    if let dropped { #expect(unmapped.insert(Int(bitPattern: dropped.base)).inserted, "seed \(seed)") }
                } else {
                    let bytes = r.int(1...8) << 20, waste = r.pick([0.25, 1.0]), kind = r.pick(kinds)
                    let fitting = pool.spares.filter { $0.bytes >= bytes && Double($0.bytes - bytes) <= Double($0.bytes) * waste }
                    let spare = pool.take(fitting: bytes, waste: waste, kind: kind)
                    // Its own kind's where that fits, else the smallest that fits.
                    let own = fitting.first { $0.kind == kind }
                    #expect(spare?.base == (own ?? fitting.min { $0.bytes < $1.bytes })?.base, "seed \(seed)")
                    if let spare { #expect(taken.insert(Int(bitPattern: spare.base)).inserted, "seed \(seed)") }
                }
                let held = Set(pool.spares.map { Int(bitPattern: $0.base) })
                #expect(pool.spares.count <= pool.limit && Set(pool.spares.map(\.kind)).count == pool.spares.count, "seed \(seed)")
                #expect(held.count + unmapped.count + taken.count == made && held.isDisjoint(with: unmapped.union(taken)), "seed \(seed)")
            }
        }
    }

    /// A mapping larger than the pool's largest is given back at once, and the spare of its
    /// type kept before stays.
    @Test func aSpareLargerThanTheLargestIsNotKept() {
        var pool = SparePool(limit: 2, largest: 4 << 20)
        let kind = ObjectIdentifier(UInt64.self)
        let small = SpareMapping(base: UnsafeMutableRawPointer(bitPattern: 1 << 12)!, bytes: 4 << 20, kind: kind)
        let large = SpareMapping(base: UnsafeMutableRawPointer(bitPattern: 2 << 12)!, bytes: (4 << 20) + 4096, kind: kind)
        #expect(pool.keep(small) == nil)
        #expect(pool.keep(large)?.base == large.base)
        #expect(pool.spares.map(\.base) == [small.base])
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

    /// Plain, a block below `mappingThreshold` is malloc'd and a larger one is a mapping of its
    /// own, never kept as a spare; tuned, a large one is a mapping, and the spares kept meanwhile
    /// keep their invariants. Every block grows, shrinks and is given back with its elements kept.
    @Test func plainBlocksAreMappingsOnlyFromTheThresholdAndNeverSpares() {
        let threshold = RecycledMemory<UInt64>.mappingThreshold / MemoryLayout<UInt64>.stride
        for (tuning, capacity) in [(EngineTuning.plain, threshold - 1), (.plain, threshold), (.tuned, 3 * Self.huge)] {
            var block = RecycledMemory<UInt64>(capacity: capacity, mappedFrom: 1, tuning: tuning)
            #expect(block.isMapped == (tuning == .tuned || capacity >= threshold))
            for k in 0..<block.capacity { block.base[k] = UInt64(k) }
            block.resize(to: capacity + 2 * Self.huge)
            block.shrink(to: Self.huge + 7)
            #expect(block.capacity >= Self.huge + 7 && (0..<Self.huge + 7).allSatisfy { block.base[$0] == UInt64($0) })
            // Plain offers nothing to the spares (asked before the release: once unmapped, the
            // address may be another test's spare).
            #expect(block.offersSpare == (tuning == .tuned))
            block.releaseKeepingSpare()
            checkSpareInvariants()
        }
    }
}
