// The least this machine takes for the work a large-file row times (issue 54), measured in the
// same run beside it: a row whose target is below its floor cannot meet it here, whatever the
// engine does. Floors are rows of their own, not judged.
#if canImport(Glibc)
import Glibc
#endif
import EngineMemory

/// Adds the floor of an edit → events row: the file at `path` read once, each byte seen once, on
/// two threads (XXH3 of each page, as a follower compares an edited file with its last revision,
/// half the file on each thread), timed from its mapping to its unmapping, as a follower maps
/// it. No kernel call says which bytes another process's save changed, so a follower reads the
/// whole file after every edit.
func addReadOnceFloor(_ report: Report, _ prefix: String, path: String) {
    addFloor(report, "\(prefix): floor, the file read once on two threads", unit: "ms",
             note: "mapped afresh, each page hashed once (XXH3), half the file on each thread: the least any edit costs a follower here") {
        timedRead(path).map { $0 * 1000 }
    }
}

/// Adds the floor of a plain follower's edit → events row: the file at `path` read once with
/// `pread` into a 1 MiB buffer on one thread, each page hashed (XXH3). Plain maps no file (a
/// mapped read needs a process-wide signal handler) and splits no read over two threads, so this
/// is the least a plain edit costs; its ratio to the tuned floor is the least plain/tuned can be
/// once tuned is at its floor.
func addPlainReadFloor(_ report: Report, _ prefix: String, path: String) {
    addFloor(report, "\(prefix): floor, the file read once with pread on one thread (plain)", unit: "ms",
             note: "pread 1 MiB at a time, each page hashed once (XXH3): the least any edit costs a plain follower here") {
        timedPlainRead(path).map { $0 * 1000 }
    }
}

/// Adds the floor of a first screen: the file at `path` copied into fresh memory on one thread
/// (a memory file, 2 MiB at a time, as a first read keeps its own copy of the bytes), from a
/// mapping already populated (the parse has faulted the pages in that the copy behind it reads).
/// On a machine that backs a page on its first touch (a virtual one) this is most of it.
func addFreshCopyFloor(_ report: Report, _ prefix: String, path: String) {
    addFloor(report, "\(prefix): floor, the file copied into fresh memory on one thread", unit: "s",
             note: "a memory file written 2 MiB at a time from the file's populated mapping: what a first read's copy costs, beside its parse") {
        timedCopy(path)
    }
}

/// Adds a floor's row: `measure` (nil when it could not run) five times; no target.
private func addFloor(_ report: Report, _ name: String, unit: String, note: String, measure: () -> Double?) {
    var times = [Double]()
    for _ in 0..<5 {
        guard let t = measure() else { break }
        times.append(t)
    }
    report.add(Figure(name: name, unit: unit, synctable: times.count == 5 ? Stats(times) : nil, target: "-", met: nil, note: note))
}

/// The file mapped afresh for reading (with its pages mapped at once: `populated`): its base and
/// size, to `body`; nil when it cannot be.
private func withMapping<R>(_ path: String, populated: Bool = false, _ body: (UnsafePointer<UInt8>, Int) -> R) -> R? {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var st = stat()
    guard fstat(fd, &st) == 0, st.st_size > 0 else { return nil }
    let size = Int(st.st_size)
    guard let base = mmap(nil, size, PROT_READ, MAP_SHARED | (populated ? MAP_POPULATE : 0), fd, 0), base != MAP_FAILED else { return nil }
    defer { munmap(base, size) }
    return body(base.assumingMemoryBound(to: UInt8.self), size)
}

/// XXH3 of each page of `count` bytes at `bytes`, folded into one value the compiler must
/// compute (a library call it cannot see into: every call is made).
private func hashPages(_ bytes: UnsafePointer<UInt8>, count: Int) -> UInt64 {
    let printer = PageFingerprints.Fingerprinter(), page = Posix.pageSize
    var bits: UInt64 = 0
    var at = 0
    while at < count {
        let n = min(page, count - at)
        bits ^= printer.of(bytes + at, count: n).low64
        at += n
    }
    return bits
}

/// Seconds to read the file at `path` once (`addReadOnceFloor`).
private func timedRead(_ path: String) -> Double? {
    let start = now()
    let done: UInt64? = withMapping(path) { base, size in
        let half = size / 2 / Posix.pageSize * Posix.pageSize
        let second = ThreadWork { hashPages(base + half, count: size - half) }
        return hashPages(base, count: half) ^ second.join()
    }
    guard done != nil else { return nil }
    return now() - start
}

/// Seconds to read the file at `path` once with `pread` on one thread (`addPlainReadFloor`).
private func timedPlainRead(_ path: String) -> Double? {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    let chunk = 1 << 20
    let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: chunk)
    defer { buffer.deallocate() }
    let start = now()
    var at = 0
    while true {
        let n = pread(fd, buffer, chunk, off_t(at))
        if n < 0 && errno == EINTR { continue }
        guard n >= 0 else { return nil }
        if n == 0 { break }
        _ = hashPages(buffer, count: n)
        at += n
    }
    return now() - start
}

/// Seconds to copy the file at `path` into a fresh memory file (`addFreshCopyFloor`).
private func timedCopy(_ path: String) -> Double? {
    withMapping(path, populated: true) { base, size -> Double? in
        let start = now()
        guard let pages = try? SharedPages(capacity: size) else { return nil }
        var at = 0
        while at < size {
            let count = min(2 << 20, size - at)
            guard (try? pages.write(base + at, count: count, at: at)) != nil else { return nil }
            at += count
        }
        let seconds = now() - start
        withExtendedLifetime(pages) {}
        return seconds
    }.flatMap { $0 }
}
