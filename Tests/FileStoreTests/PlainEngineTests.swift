// A program that links the libraries and keeps the default tuning (`EngineTuning.plain`) sees no
// change made process-wide: no signal caught or ignored that was not before, no helper process,
// and no thread beyond the store's own workers. Measured in a process of its own (this one's
// other tests map files, tuned, and run threads of their own): the test runs itself again,
// alone, with `ENGINE_PROBE` set, and reads what that run prints. The same probe after
// `EngineTuning.tuned.adopt()` and the edge's `guardMappedReads()` must see the SIGBUS handler of
// a mapped read: the probe can tell.
#if canImport(Glibc)
import Glibc
#endif
import Foundation
import EngineMemory
@testable import FileStore
import JSONTree
import LiveQuery
import Testing
import TestSupport

/// `sigaction(2)`, to read a signal's handler.
private let querySignal = Posix.cLibraryFunction(
    "sigaction", as: (@convention(c) (Int32, UnsafeRawPointer?, UnsafeMutableRawPointer?) -> Int32).self)!

@Suite struct PlainEngineTests {
    /// What `/proc/self/status` says of signals and threads, this process's children, and the
    /// handler of each signal (the test library catches SIGBUS already: only the handler's
    /// address tells whether it changed).
    struct ProcessState: Equatable, CustomStringConvertible {
        var caught = "", ignored = "", threads = 0, children = 0, handlers = ""

        static var now: ProcessState {
            var state = ProcessState()
            for line in Disk.text("/proc/self/status").split(separator: "\n") {
                let value = line.split(separator: ":", maxSplits: 1).last.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
                if line.hasPrefix("SigCgt:") { state.caught = value }
                if line.hasPrefix("SigIgn:") { state.ignored = value }
                if line.hasPrefix("Threads:") { state.threads = Int(value) ?? 0 }
            }
            let children = Disk.text("/proc/self/task/\(getpid())/children")
            state.children = children.split(separator: " ").filter { !$0.isEmpty }.count
            state.handlers = (1..<32).map { signal -> String in
                // (Swift takes `sigaction(…)` for the struct's initializer.)
                var action = [UInt8](repeating: 0, count: MemoryLayout<sigaction>.size)
                _ = action.withUnsafeMutableBytes { querySignal(Int32(signal), nil, $0.baseAddress) }
                return String(action.withUnsafeBytes { $0.load(as: UInt.self) }, radix: 16)
            }.joined(separator: ",")
            return state
        }

        var description: String { "caught \(caught) ignored \(ignored) threads \(threads) children \(children) handlers \(handlers)" }
    }

    /// The store's own workers: its read queue and write queue (a dispatch thread each, at
    /// most), and libdispatch's manager thread, which may be started once for them.
    static let storeWorkers = 3

    /// In the probe's process: opens a store on a file of 150,000 children (2 MB; its first read
    /// mapped where the tuning maps), waits for its revision, evaluates a window over them,
    /// writes one value, and prints the state before and after.
    static func probe(_ tuning: EngineTuning) throws -> String {
        let before = ProcessState.now
        tuning.adopt()
        // What synctable's edge does for its tuned engine; a plain program installs nothing.
        if tuning.mappedReads { EngineTuning.guardMappedReads() }
        let folder = ScratchFolder()
        let path = folder.file("large.json")
        let children = 150_000
        writeInPlace(path, #"{"items": {"# + (0..<children).map { #""k\#($0)": \#($0 % 977)"# }.joined(separator: ",") + "}}")
        var options = FileStore.Options()
        options.mappedFirstReadSize = 1
        let store = try FileStore(path: path, options: options)
        let revision = try store.waitForRevision(1, timeoutMilliseconds: 120_000)
        let window = Window(query: try Query().orderByValue().limitToLast(3), path: try Path("/items"), document: revision.document)
        precondition(window.keys.count == 3)
        _ = try store.set(try Path("/items/k1"), .number(JSONNumber(5)))
        let after = withExtendedLifetime(store) { ProcessState.now }
        return "\(before)|\(after)"
    }

    @Test func aPlainProcessChangesNothingProcessWide() throws {
        if let which = ProcessInfo.processInfo.environment["ENGINE_PROBE"] {
            print("probe: " + (try Self.probe(which == "tuned" ? .tuned : .plain)))
            return
        }
        let executable = try #require(try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
        for tuning in ["plain", "tuned"] {
            let run = try ChildProcess([executable] + Self.ownArguments(), environment: ["ENGINE_PROBE": tuning])
            let lines = run.readLines(until: { _ in false }, seconds: 240)
            #expect(run.wait() == 0, "\(tuning): \(run.standardError().suffix(2000))")
            let probe = try #require(lines.last { $0.hasPrefix("probe: ") }, "\(tuning): \(lines.suffix(20))")
            let states = probe.dropFirst("probe: ".count).split(separator: "|").map(String.init)
            try #require(states.count == 2)
            let parsed = states.map(Self.parse)
            let (before, after) = (parsed[0], parsed[1])
            if tuning == "plain" {
                #expect(after.caught == before.caught && after.ignored == before.ignored && after.handlers == before.handlers, "\(probe)")
                #expect(after.children == before.children, "\(probe)")
                #expect(after.threads <= before.threads + Self.storeWorkers, "\(probe)")
            } else {
                // SIGBUS (7): the guard of a mapped first read, in place of the handler before.
                let (old, new) = (before.handlers.split(separator: ","), after.handlers.split(separator: ","))
                #expect(old.count == 31 && new.count == 31 && old[6] != new[6], "\(probe)")
            }
        }
    }

    /// This test alone, in the way this process was started (the test library's arguments).
    static func ownArguments() -> [String] {
        var arguments = Array(CommandLine.arguments.dropFirst())
        if let at = arguments.firstIndex(of: "--filter") { arguments.removeSubrange(at...min(at + 1, arguments.count - 1)) }
        return arguments + ["--filter", "PlainEngineTests"]
    }

    static func parse(_ text: String) -> ProcessState {
        var state = ProcessState()
        let words = text.split(separator: " ").map(String.init)
        for (name, value) in zip(words, words.dropFirst()) {
            switch name {
            case "caught": state.caught = value
            case "ignored": state.ignored = value
            case "threads": state.threads = Int(value) ?? 0
            case "children": state.children = Int(value) ?? 0
            case "handlers": state.handlers = value
            default: break
            }
        }
        return state
    }
}
