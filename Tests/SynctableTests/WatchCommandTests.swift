// Commands as sources, as a user runs them: `watch` in a real terminal, and `list`, `events`
// and `history` with `--watch`.
import Foundation
import JSONTree
import Testing
import TestSupport

@Suite("Commands as sources")
struct WatchCommandTests {
    /// A script printing the file `data.json` beside it: the test rewrites the file between runs.
    private func catScript(_ folder: ScratchFolder) -> String {
        replaceScript(folder, "cat \"$(dirname \"$0\")/data.json\"")
    }

    /// `show.sh` in `folder` with `body`, replaced by a rename (a run may be reading the old one).
    @discardableResult
    private func replaceScript(_ folder: ScratchFolder, _ body: String) -> String {
        let new = folder.write("show.new", "#!/bin/sh\n" + body + "\n")
        chmod(new, 0o755)
        rename(new, folder.file("show.sh"))
        return folder.file("show.sh")
    }

    /// The process group a command printed to `folder/group` (`echo $$`), once it has.
    private func printedGroup(_ folder: ScratchFolder) -> pid_t? {
        var group: pid_t?
        _ = eventually { group = Int32(folder.read("group").trimmingCharacters(in: .whitespacesAndNewlines)); return group != nil }
        return group
    }

    @Test("a command that is not there: exit status 2 naming it, before any screen")
    func commandNotFound() throws {
        for arguments in [["watch", "--", "no-such-program-for-synctable", "-o", "json"],
                          ["events", "--watch", "1s", "--", "no-such-program-for-synctable"],
                          ["list", "--watch", "1s", "--", "no-such-program-for-synctable"]] {
            let result = try runProgram(try synctableBinary(), arguments)
            #expect(result.status == 2, "\(arguments)")
            #expect(result.errors == "synctable: error: no-such-program-for-synctable: command not found\n", "\(arguments)")
            #expect(result.output.isEmpty, "\(arguments): \(result.output)")
        }
    }

    @Test("list --watch runs the command once; a failed run is exit status 1 in words")
    func listRunsOnce() throws {
        let result = try runProgram(try synctableBinary(), ["list", "--watch", "1s", "--format", "jsonl", "--order-by-child", "n", "--",
                                                            "/bin/sh", "-c", #"echo '{"b": {"n": 1}, "a": {"n": 2}}'"#])
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output == "{\"key\":\"b\",\"value\":{\"n\":1}}\n{\"key\":\"a\",\"value\":{\"n\":2}}\n")
        let failed = try runProgram(try synctableBinary(), ["list", "--watch", "1s", "--", "/bin/sh", "-c", "echo 'error: not logged in' >&2; exit 3"])
        #expect(failed.status == 1)
        #expect(failed.errors.hasPrefix("synctable: error: run 1 at "), "\(failed.errors)")
        #expect(failed.errors.hasSuffix(": exit 3: error: not logged in\n"), "\(failed.errors)")
    }

    @Test("events --watch follows the command's changes as event lines; SIGTERM ends its process group")
    func eventsFollowTheCommand() throws {
        let folder = ScratchFolder("watch-events")
        _ = folder.write("data.json", #"{"a": {"n": 1}}"#)
        let events = try ChildProcess([try synctableBinary(), "events", "--watch", "100ms", "--", catScript(folder)])
        #expect(events.readLine()?.hasPrefix(#"{"event":"child_added","key":"a""#) == true, "\(events.standardError())")
        #expect(events.readLine() == #"{"event":"value","count":1}"#)
        writeFileByRename(folder.file("data.json"), Array(#"{"a": {"n": 2}}"#.utf8))
        #expect(events.readLine() == #"{"event":"child_changed","key":"a","prevKey":null,"index":0,"value":{"n":2}}"#)
        #expect(events.readLine() == #"{"event":"value","count":1}"#)
        writeFileByRename(folder.file("data.json"), Array(#"{"a": "#.utf8))
        let error = events.readLine() ?? ""
        #expect(error.hasPrefix(#"{"event":"error","message":"run "#) && error.contains("invalid JSON at line 1, column 7"), "\(error)")
        events.signal(SIGTERM)
        #expect(events.wait(seconds: 30) == 0)

        // A run in progress when the command ends: its whole group goes.
        let slow = try ChildProcess([try synctableBinary(), "events", "--watch", "1s", "--", "/bin/sh", "-c",
                                     #"echo $$ > "$0/group"; sleep 600 & sleep 600"#, folder.path])
        let group = try #require(printedGroup(folder))
        #expect(!processGroupIsGone(group))
        slow.signal(SIGTERM)
        #expect(slow.wait(seconds: 30) == 0)
        #expect(eventually { processGroupIsGone(group) }, "process group \(group) outlived synctable events")
    }

    @Test("history --watch prints what a run changed, with the values before and after")
    func historyFollowsTheCommand() throws {
        let folder = ScratchFolder("watch-history")
        _ = folder.write("data.json", #"{"a": {"n": 1}}"#)
        let history = try ChildProcess([try synctableBinary(), "history", "--follow", "--watch", "100ms", "--", catScript(folder)])
        var line: String?
        // Rewrites until the command, once it has run, reports one (its first run may come after the first rewrite).
        for n in 2..<60 where line == nil {
            writeFileByRename(folder.file("data.json"), Array(#"{"a": {"n": \#(n)}}"#.utf8))
            line = history.readLine(seconds: 0.5)
        }
        let changed = try JSONDocument(parsing: try #require(line, "\(history.standardError())")).root
        #expect(changed[key: "event"]?.stringValue == "changed" && changed[key: "key"]?.stringValue == "a")
        let field = try #require(changed[key: "fields"]?[index: 0])
        #expect(field[key: "path"]?.stringValue == "n")
        // A run may come after more than one rewrite: the value went up, to one the test wrote.
        let (old, new) = (try #require(field[key: "old"]?.doubleValue), try #require(field[key: "new"]?.doubleValue))
        #expect(old < new && new < 60)
        history.signal(SIGTERM)
        #expect(history.wait(seconds: 30) == 0)
    }

    @Test("watch shows the command's output live, its last run, a failed run in words over the last good table; q ends the command")
    func watchInATerminal() throws {
        let folder = ScratchFolder("watch-view", underTmp: true)
        _ = folder.write("data.json", leaderboard([("alice", 10), ("bob", 20)]))
        let session = try TmuxSession(viewer: try viewerCommand(["watch", "--every", "200ms", "--path", "/players", "--", catScript(folder)]))
        try session.waitFor("the rows and the last run") { screen in
            screen.hasRows(inOrder: ["alice", "bob"]) && screen.contains(" took ") && screen.contains("run ")
        }
        writeFileByRename(folder.file("data.json"), Array(leaderboard([("alice", 10), ("bob", 20), ("carol", 31)]).utf8))
        try session.waitFor("carol added") { $0.hasRows(inOrder: ["alice", "bob", "carol"]) && $0.contains("31") }

        // Standard error reaches the screen only sanitized: an escape sequence is not run.
        replaceScript(folder, "printf 'error: \\033[31mYou must be logged in\\n' >&2; exit 1")
        let failed = try session.waitFor("the failed run over the last good table") { screen in
            screen.contains("RUN FAILED") && screen.contains(": exit 1: error: \\x1b[31mYou must be logged in")
                && screen.hasRows(inOrder: ["alice", "bob", "carol"])
        }
        #expect(!failed.text.contains("\u{1B}"))

        // The command's group is ended when the viewer ends.
        replaceScript(folder, "echo $$ > \"$(dirname \"$0\")/group\"; sleep 600 & sleep 600")
        let group = try #require(printedGroup(folder))
        try session.send("q")
        try session.waitFor("the shell back", history: true) { $0.contains("EXITED 0") }
        #expect(eventually { processGroupIsGone(group) }, "process group \(group) outlived the viewer")
    }

    @Test("the viewer ended by SIGHUP ends the command's process group")
    func hangUpEndsTheGroup() throws {
        let folder = ScratchFolder("watch-hup", underTmp: true)
        let session = try TmuxSession(viewer: try viewerCommand(["watch", "--", "/bin/sh", "-c", #"echo $$ > "$0/group"; sleep 600 & sleep 600"#, folder.path]))
        let group = try #require(printedGroup(folder))
        try session.waitFor("the viewer waiting for the first run") { $0.contains("running ") }
        kill(try session.programPID(), SIGHUP)
        try session.waitFor("the shell back", history: true) { $0.contains("EXITED 129") }
        #expect(eventually { processGroupIsGone(group) }, "process group \(group) outlived the viewer")
    }
}
