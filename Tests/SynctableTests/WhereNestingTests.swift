// `--where` nested deeper than the parser allows, run as the binary: a regression would end the
// process with SIGSEGV (issue 47), which must not take the in-process tests down with it.
import Testing
import TestSupport

@Suite struct WhereNestingTests {
    /// Issue 47: 7,000 nested `(` or 10,000 `[` ended `list` with SIGSEGV (status 139).
    @Test(arguments: [String(repeating: "(", count: 7000) + ".a" + String(repeating: ")", count: 7000), String(repeating: "[", count: 10000)])
    func deepNestingIsAFlagError(expression: String) throws {
        let folder = ScratchFolder("where")
        let file = folder.write("players.json", #"{"players": {"ann": {"score": 12}}}"#)
        let deep = try runProgram(try synctableBinary(), ["list", file, "--path", "/players", "--where", expression])
        #expect(deep.status == 2)
        #expect(deep.errors.contains("--where: 1:258: the expression nests deeper than 256 levels"), "\(deep.errors)")
    }
}
