// Writers in separate processes: the `synctable` binary racing itself and a foreign program,
// and writers killed mid-write.
#if canImport(Glibc)
import Glibc
#endif
import FileStore
import JSONTree
import Testing
import TestSupport

/// The `synctable` built beside the test bundle.
func builtSynctable() throws -> String { try builtProduct("synctable") }

/// Starts `argv` (argv[0] a path) without waiting.
func startProcess(_ argv: [String]) throws -> pid_t { try spawnProgram(argv).pid }

/// The file parsed, or nil when it is not valid JSON.
private func parsed(_ path: String) -> JSON? {
    guard let bytes = readAll(path) else { return nil }
    return try? JSONDocument(parsing: bytes).root.json
}

private let increment: JSON = [".sv": ["increment": 1]]

@Suite(.serialized) struct WriteProcessTests {
    @Test func twoProcessesIncrementingNeverLoseAnUpdate() throws {
        let binary = try builtSynctable()
        let folder = ScratchFolder()
        let file = folder.file("counter.json")
        writeInPlace(file, "{\n  \"n\": 0\n}\n")
        let perProcess = 30
        let loop = #"for i in $(seq 1 "$2"); do "$1" update "$3" / "$4" || exit 1; done"#
        let writers = try ["a", "b"].map { side in
            let values: JSON = ["n": increment, .init(stringLiteral: side): increment]
            return try startProcess(["/bin/sh", "-c", loop, "sh", binary, String(perProcess), file, values.serializedString()])
        }
        for pid in writers { #expect(waitForExit(pid) == 0) }
        #expect(parsed(file) == ["n": .number(JSONNumber(2 * perProcess)), "a": .number(JSONNumber(perProcess)), "b": .number(JSONNumber(perProcess))])
        #expect(Disk.entries(folder.path) == ["counter.json"])
    }

    @Test func aForeignWriterByRenameNeverLosesAnEditToUs() throws {
        let binary = try builtSynctable()
        let folder = ScratchFolder()
        let file = folder.file("shared.json"), stop = folder.file("stop"), count = folder.file("count")
        writeInPlace(file, #"{"n": 0}"#)
        // A foreign program: unlocked read, modify, write a temporary file, rename — adding
        // one key per save until told to stop.
        let foreign = """
            import json, os, sys, time
            path, stop, count = sys.argv[1:4]
            i = 0
            while not os.path.exists(stop):
                with open(path) as f:
                    data = json.load(f)
                data["f%d" % i] = i
                with open(path + ".foreign.tmp", "w") as f:
                    json.dump(data, f, indent=2)
                os.replace(path + ".foreign.tmp", path)
                i += 1
                time.sleep(0.02)
            with open(count, "w") as f:
                f.write(str(i))
            """
        let python = try startProcess(["/usr/bin/env", "python3", "-c", foreign, file, stop, count])
        let ours = 40
        let loop = #"for i in $(seq 1 "$2"); do "$1" set "$3" /n "$4" || exit 1; done"#
        let writer = try startProcess(["/bin/sh", "-c", loop, "sh", binary, String(ours), file, increment.serializedString()])
        #expect(waitForExit(writer) == 0)
        writeInPlace(stop, "")
        #expect(waitForExit(python) == 0, "the foreign writer failed (is python3 installed?)")
        let saves = try #require(Int(Disk.text(count)))
        let final = try #require(parsed(file))
        // Every edit of the foreign writer is in the file: none was lost to our writes.
        let missing = (0..<saves).filter { final["f\($0)"] == nil }
        #expect(saves > 0 && missing.isEmpty, "\(saves) foreign saves, lost: \(missing)")
        // Ours may have been lost to the foreign writer's unlocked writes, never more than made.
        let n = try #require(final["n"]?.doubleValue)
        #expect(n >= 1 && n <= Double(ours))
    }

    @Test func aWriterKilledAtAnyMomentLeavesACompleteFile() throws {
        let binary = try builtSynctable()
        let folder = ScratchFolder()
        let file = folder.file("big.json")
        // Large enough (about 2 MB) that a write takes a while.
        let rows = (0..<20_000).map { "    \"row\($0)\": {\"name\": \"player \($0)\", \"score\": \($0)}" }
        writeInPlace(file, "{\n  \"rows\": {\n" + rows.joined(separator: ",\n") + "\n  }\n}\n")
        var killed = 0, completed = 0, duringWrite = 0
        var rng = SystemRandomNumberGenerator()
        // At least 20 tries; more (up to 80) until one kill has landed mid-write, which a
        // loaded machine can make rare.
        for i in 0..<80 {
            if i >= 20 && duringWrite > 0 { break }
            let before = try #require(readAll(file))
            // The only edit a write may make: this one value, in place.
            let old = "\"row\(i)\": {\"name\": \"player \(i)\", \"score\": \(i)}"
            let new = "\"row\(i)\": {\"name\": \"player \(i)\", \"score\": -\(i)}"
            let edited = Array(String(decoding: before, as: UTF8.self).replacingOccurrences(old, new).utf8)
            let pid = try startProcess([binary, "set", file, "/rows/row\(i)/score", "-\(i)"])
            var writing = false
            if i % 2 == 0 {
                usleep(UInt32.random(in: 0...40_000, using: &rng))
            } else {
                // Aim at the write itself: once the temporary file is open, within its fsync and rename.
                let deadline = monotonicNanoseconds() + 5_000_000_000  // a loaded machine starts it slowly
                while !hasTemporaryOpen(pid, in: folder.path, besides: file) && monotonicNanoseconds() < deadline { usleep(50) }
                writing = hasTemporaryOpen(pid, in: folder.path, besides: file)
                usleep(UInt32.random(in: 0...2_000, using: &rng))
            }
            kill(pid, SIGKILL)
            if waitForExit(pid) == 128 + SIGKILL {
                killed += 1
                if writing { duringWrite += 1 }
            } else {
                completed += 1
            }
            let after = try #require(readAll(file))
            #expect(after == before || after == edited, "try \(i): neither the old nor the new content")
            #expect((try? JSONDocument(parsing: after)) != nil, "try \(i): not valid JSON")
        }
        #expect(killed > 0 && duringWrite > 0, "no writer was killed mid-write (\(completed) completed)")
        // A write left alone makes exactly the minimal edit. A killed writer leaves nothing
        // but, when killed in the microseconds between naming its temporary file and the
        // swap, that file (never reused: its name is random).
        let before = String(decoding: try #require(readAll(file)), as: UTF8.self)
        #expect(spawnAndWait([binary, "set", file, "/rows/row99/score", "-99"]) == 0)
        #expect(Disk.text(file) == before.replacingOccurrences("\"score\": 99}", "\"score\": -99}"))
        let litter = Disk.entries(folder.path).filter { $0 != "big.json" }
        #expect(litter.allSatisfy { $0.hasPrefix(".big.json.synctable-") && $0.hasSuffix(".tmp") }, "\(litter)")
        #expect(litter.count <= killed)
    }
}

/// Whether process `pid` has a file in `folder` open other than `file`: its temporary file
/// (named, or unnamed, which `/proc` shows as `FOLDER/#INODE (deleted)`).
private func hasTemporaryOpen(_ pid: pid_t, in folder: String, besides file: String) -> Bool {
    guard let dir = opendir("/proc/\(pid)/fd") else { return false }
    defer { closedir(dir) }
    var target = [CChar](repeating: 0, count: 4096)
    while let entry = readdir(dir) {
        let name = withUnsafePointer(to: entry.pointee.d_name) {
            $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
        }
        let n = readlink("/proc/\(pid)/fd/\(name)", &target, target.count - 1)
        guard n > 0 else { continue }
        let path = String(decoding: target[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        if path.hasPrefix(folder + "/") && path != file { return true }
    }
    return false
}

extension String {
    fileprivate func replacingOccurrences(_ target: String, _ replacement: String) -> String {
        var out = "", rest = Substring(self)
        while let r = rest.firstRange(of: target) {
            out += rest[..<r.lowerBound] + replacement
            rest = rest[r.upperBound...]
        }
        return out + rest
    }
}
