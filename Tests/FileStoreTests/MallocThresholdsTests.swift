// glibc's thresholds fixed (`fixMallocThresholds`): a large block freed does not move them.
#if canImport(Glibc)
import Glibc
#endif
import FileStore
import Testing

@Suite struct MallocThresholdsTests {
    /// Whether glibc served `block` by a mapping of its own (bit 1 of its chunk's size word,
    /// just before it): a block freed from there goes back to the kernel at once.
    static func isMapped(_ block: UnsafeMutableRawPointer) -> Bool {
        (block - MemoryLayout<UInt>.size).load(as: UInt.self) & 2 != 0
    }

    @Test func blocksOverTheThresholdAreMappedAfterOneIsFreed() {
        #expect(fixMallocThresholds())
        // By default, freeing the first would raise the threshold past this size, and the next
        // ones would come from a heap, where freed megabytes stay: 1 of 20 mapped, or none. (A
        // heap whose free top another test's blocks left that large serves one first, until
        // trimmed: 19 of 20 were seen in a full run.)
        var mapped = 0
        for _ in 0..<20 {
            let block = malloc(600 << 10)!
            if Self.isMapped(block) { mapped += 1 }
            free(block)
        }
        #expect(mapped >= 15, "\(mapped) of 20 mapped")
    }
}
