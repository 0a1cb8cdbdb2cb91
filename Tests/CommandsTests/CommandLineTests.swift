// The command line itself, run in-process: --version, --help, and the one error format.
import CommandTestSupport
import Foundation
import Testing

@Suite("The command line")
struct CommandLineTests {
    @Test("--version prints the version; --help says each default once")
    func versionAndHelp() throws {
        let version = try synctable(["--version"])
        #expect(version.status == 0 && version.output == "0.1.0\n")
        let help = try synctable(["view", "--help"])
        #expect(help.status == 0)
        let path = help.output.components(separatedBy: "--path <path>").dropFirst().first ?? ""
        let pathHelp = path.components(separatedBy: "\n  -").first ?? ""
        #expect(pathHelp.components(separatedBy: "(default:").count == 2, "\(pathHelp)")
        #expect(!help.output.contains("(default: the root)"))
    }

    @Test("every error of the viewer's command line is one line, 'synctable: error: …', with status 2")
    func oneErrorFormat() throws {
        for arguments in [["x.json", "--limit-to-first", "0"], ["x.json", "--columns", "a,,b"], ["x.json", "--page-size=-1"],
                          ["x.json", "--edit", "--read-only"]] {
            let result = try synctable(arguments)
            #expect(result.status == 2)
            #expect(result.errors.hasPrefix("synctable: error: ") && result.errors.filter { $0 == "\n" }.count == 1,
                    "\(arguments): \(result.errors)")
        }
    }

    @Test("a bad --computed column is named with jq's message and place, with status 2")
    func badComputedColumn() throws {
        let result = try synctable(["x.json", "--computed", "ratio = .score /"])
        #expect(result.status == 2)
        #expect(result.errors == "synctable: error: --computed \"ratio = .score /\": jq: error: syntax error, unexpected $end (Unix shell quoting issues?) at <top-level>, line 1: .score /\n")
    }
}
