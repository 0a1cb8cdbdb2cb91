// The command line itself: --version, --help, and the one error format.
import Foundation
import Testing
import TestSupport

@Suite("The command line")
struct CommandLineTests {
    @Test("--version prints the version; --help says each default once")
    func versionAndHelp() throws {
        let binary = try synctableBinary()
        let version = try runProgram(binary, ["--version"])
        #expect(version.status == 0 && version.output == "0.1.0\n")
        let help = try runProgram(binary, ["view", "--help"])
        #expect(help.status == 0)
        let path = help.output.components(separatedBy: "--path <path>").dropFirst().first ?? ""
        let pathHelp = path.components(separatedBy: "\n  -").first ?? ""
        #expect(pathHelp.components(separatedBy: "(default:").count == 2, "\(pathHelp)")
        #expect(!help.output.contains("(default: the root)"))
    }

    @Test("every error of the viewer's command line is one line, 'synctable: error: …', with status 2")
    func oneErrorFormat() throws {
        let binary = try synctableBinary()
        for arguments in [["x.json", "--limit-to-first", "0"], ["x.json", "--columns", "a,,b"], ["x.json", "--page-size=-1"],
                          ["x.json", "--edit", "--read-only"]] {
            let result = try runProgram(binary, arguments)
            #expect(result.status == 2)
            #expect(result.errors.hasPrefix("synctable: error: ") && result.errors.filter { $0 == "\n" }.count == 1,
                    "\(arguments): \(result.errors)")
        }
    }

    @Test("a bad --computed column is named with jq's message and place, with status 2")
    func badComputedColumn() throws {
        let result = try runProgram(try synctableBinary(), ["x.json", "--computed", "ratio = .score /"])
        #expect(result.status == 2)
        #expect(result.errors == "synctable: error: --computed \"ratio = .score /\": jq: error: syntax error, unexpected $end (Unix shell quoting issues?) at <top-level>, line 1: .score /\n")
    }
}

@Suite("The configuration file, as the program reads it")
struct ConfigFileTests {
    @Test("a bad $XDG_CONFIG_HOME/synctable/config.json stops the viewer before it starts: file, line, column, status 2")
    func badConfigStopsTheViewer() throws {
        let folder = ScratchFolder("config")
        let configFolder = folder.file("xdg/synctable")
        try FileManager.default.createDirectory(atPath: configFolder, withIntermediateDirectories: true)
        let config = configFolder + "/config.json"
        try "{\n  \"flags\": {\"page-size\": \"ten\"}\n}\n".write(toFile: config, atomically: true, encoding: .utf8)
        let data = folder.file("data.json")
        try "{}".write(toFile: data, atomically: true, encoding: .utf8)
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_CONFIG_HOME"] = folder.file("xdg")
        environment["TERM"] = "xterm-256color"
        let result = try runProgram(try synctableBinary(), [data], environment: environment)
        #expect(result.status == 2)
        #expect(result.errors == "synctable: error: bad configuration: \(config):2:26: page-size: a whole number, 0 or more (the viewer did not start)\n")
    }
}
