// How much of the machine the engine may use beyond ordinary allocation on one thread: one value
// for the whole process, `.plain` unless the program opts in. Each tactic and the figure that
// pays for it: docs/engine/.
import Synchronization

/// The engine's tactics for large files, chosen once by the program that links the libraries.
///
/// `.plain` is the default: memory from `malloc` (a block of 8 MiB or more mapped on its own), a
/// parse on the thread that asks for it, files read with `read(2)`, and nothing process-wide (no
/// signal handler, no `mallopt`, no ignored signal, no helper process, no thread but the store's
/// own workers). `.tuned` is what `synctable` runs with. Both give the same results, byte for
/// byte; the property tests compare them.
public struct EngineTuning: Sendable, Hashable, CustomStringConvertible {
    /// Large blocks (tapes, child lists, other bytes of 1 MiB or more) are anonymous mappings with
    /// huge pages asked for, and the mappings of a revision that went are kept for the next one
    /// (`RecycledMemory`, docs/engine/recycled-mappings.md). (A large file's revisions share a
    /// memory file's pages either way: docs/engine/shared-pages.md.)
    public var recycledMappings: Bool
    /// Large parses, reads, child lists and window evaluations split over two threads, and a
    /// large tape's pages faulted in by a thread beside its parse (docs/engine/second-thread.md).
    public var secondThread: Bool
    /// A large file's first revision parsed from its mapping while a thread copies it behind
    /// the parse; a mapped page the file loses to a truncation reads as zeroes (a `SIGBUS`
    /// handler the program installs, `guardMappedReads()`), and the read is made again
    /// (docs/engine/mapped-first-read.md).
    public var mappedReads: Bool
    /// glibc's mapping and trimming thresholds fixed at 128 KiB, so that a long-running
    /// follower's heaps give back what they free (docs/engine/malloc-thresholds.md).
    public var fixedMallocThresholds: Bool
    /// A one-shot write command hands the file it replaced to a helper process, which lets go of
    /// it (and removes any name a killed write left) once the command has exited
    /// (docs/engine/replaced-file-helper.md).
    public var replacedFileHelper: Bool

    /// Ordinary allocation on one thread; nothing process-wide.
    public static let plain = EngineTuning(
        recycledMappings: false, secondThread: false, mappedReads: false, fixedMallocThresholds: false, replacedFileHelper: false)
    /// Every tactic: what `synctable` runs with.
    public static let tuned = EngineTuning(
        recycledMappings: true, secondThread: true, mappedReads: true, fixedMallocThresholds: true, replacedFileHelper: true)

    public init(recycledMappings: Bool, secondThread: Bool, mappedReads: Bool, fixedMallocThresholds: Bool,
                replacedFileHelper: Bool) {
        self.recycledMappings = recycledMappings
        self.secondThread = secondThread
        self.mappedReads = mappedReads
        self.fixedMallocThresholds = fixedMallocThresholds
        self.replacedFileHelper = replacedFileHelper
    }

    /// Installs the process-wide `SIGBUS` handler that mapped reads need (a page a truncation
    /// took reads as zeroes; a fault anywhere else goes to the handler installed before it).
    /// For the program's edge, after any crash handler of its own; once is enough. Until a
    /// program calls it, `mappedReads` reads files instead of mapping them.
    public static func guardMappedReads() { MappedFile.installGuard() }

    /// The process's tuning: `.plain` until `adopt()` is called.
    public static var current: EngineTuning { EngineTuning(bits: currentBits.load(ordering: .relaxed)) }

    /// Makes this the process's tuning, for every store, parse and write from now on, and makes
    /// its process-wide changes (the malloc thresholds). Call it once, as the program starts,
    /// before any store is opened.
    public func adopt() {
        if fixedMallocThresholds { MallocThresholds.fix() }
        currentBits.store(bits, ordering: .relaxed)
    }

    public var description: String {
        self == .plain ? "plain" : self == .tuned ? "tuned"
            : "EngineTuning(recycledMappings: \(recycledMappings), secondThread: \(secondThread), mappedReads: "
                + "\(mappedReads), fixedMallocThresholds: \(fixedMallocThresholds), replacedFileHelper: \(replacedFileHelper))"
    }

    private var bits: Int {
        (recycledMappings ? 1 : 0) | (secondThread ? 2 : 0) | (mappedReads ? 4 : 0) | (fixedMallocThresholds ? 8 : 0)
            | (replacedFileHelper ? 16 : 0)
    }

    private init(bits: Int) {
        self.init(recycledMappings: bits & 1 != 0, secondThread: bits & 2 != 0, mappedReads: bits & 4 != 0,
                  fixedMallocThresholds: bits & 8 != 0, replacedFileHelper: bits & 16 != 0)
    }
}

/// `EngineTuning.current`'s flags.
private let currentBits = Atomic<Int>(0)
